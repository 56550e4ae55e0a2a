"""What a budget sample says about the runs: per run, the LLM-only score, the estimate from the LLM's labels on
every pair corrected by the judged sample (PPI / difference estimator, estimators.py) with its 95% interval,
and the human-only estimate of the same sample (centred on its mean human weight); the ranking with the
probability that each adjacent two are in the right order; and the planning curve. Plain data for the page, the API and the CLI."""

from __future__ import annotations

from typing import Any

import numpy as np

from judging.labels import label_set_get
from judging.scope import Scope
from metrics.budget.estimators import (
    Design,
    Population,
    RunEstimates,
    difference_estimate,
    full_scores,
    plan,
)
from metrics.budget.models import BudgetSample
from metrics.budget.ranking import kendall_tau_interval, pairwise_rank_sets, ranking, run_unit_matrix
from metrics.budget.selectors import budget_campaign_population, plan_population

METRICS = ("precision", "recall")
UNIT = "runs' weighted precision and recall over the campaign's topics, from first citations (depth 1)"
RANKING_METHOD = (
    "normal approximation of the estimated difference between the two runs: P = Φ(difference / se), the se "
    "summing over drawn pairs so that a pair both runs hold counts once"
)
RANK_SET_METHOD = (
    "95% jointly for every run with an estimate (Chatzi et al. 2024): a run ranks below every run whose score "
    "is surely higher, i.e. whose estimated difference exceeds q x its se, q calibrated on the maximum over all "
    "pairs of runs (Gaussian draws of the estimates' covariance, seeded with the sample's seed)"
)
TAU_METHOD = (
    "Kendall's tau-b between the LLM-only ranking and the LLM + sample ranking of the runs with an estimate; "
    "95% interval for tau against the full-human ranking projected from the rank sets' joint region: the pairs "
    "of runs surely ordered there count as they are, every other pair either way"
)
INTERVAL_METHOD = "95%: estimate ± t quantile (judged pairs of the run - 1 degrees of freedom) x se, clipped to [0, 1]"


MIN_JUDGED = 2  # judged pairs a run needs before its estimate and interval are shown


CLIPPING_NOTE = (
    "A weighted precision or recall lies in [0, 1]. With few judged pairs the difference estimator's correction can "
    'carry its estimate past 0 or 1: "estimate" is that raw value (unbiased only unclipped, so kept as it is), '
    '"shown" the same clipped to [0, 1], which the page shows (marked; the ranking keeps the raw order); the interval is clipped alike, '
    "and still holds the score whenever the unclipped one does."
)


def _interval(estimate: RunEstimates, at: int) -> dict[str, Any] | None:
    if estimate.drawn[at] < MIN_JUDGED:
        return None
    raw = float(estimate.score[at])
    shown = min(1.0, max(0.0, raw))
    return {
        "estimate": raw,
        "shown": shown,
        "clipped": shown != raw,
        "low": max(0.0, float(estimate.low[at])),
        "high": min(1.0, float(estimate.high[at])),
        "se": float(estimate.se[at]),
    }


def _ranked_runs(
    population: Population, *, runs: list[str], judged: np.ndarray, pi: np.ndarray, metric: str, seed: int
) -> dict[str, Any]:
    """One metric's runs, ranked by the LLM + sample estimate, each with its three figures, its rank set and the
    probability that it is above the next one; and Kendall's τ between the LLM-only ranking and this one."""
    both = difference_estimate(population, sampled=judged, pi=pi, metric=metric)
    human_only = difference_estimate(population, sampled=judged, pi=pi, metric=metric, use_llm=False)
    llm_only = full_scores(population, metric=metric, human=False)
    # A run shows an estimate once MIN_JUDGED of its pairs are judged: those are ranked first, the others after.
    eligible = both.drawn >= MIN_JUDGED
    order, steps = ranking(population, sampled=judged, pi=pi, metric=metric, eligible=eligible)
    rank_set, tau = _rank_sets_and_tau(
        population, judged=judged, pi=pi, metric=metric, eligible=eligible, llm_only=llm_only, seed=seed
    )
    rows = []
    for rank, at in enumerate(order.tolist(), start=1):
        rows.append(
            {
                "rank": rank,
                "run_id": runs[at],
                "llm_only": float(llm_only[at]),
                "ppi": _interval(both, at),
                "human_only": _interval(human_only, at),
                "judged_pairs": int(both.drawn[at]),
                "rank_set": rank_set.get(at),
            }
        )
    for row, step, below in zip(rows, steps, rows[1:], strict=False):
        shown = row["ppi"] is not None and below["ppi"] is not None
        row["next_in_order_probability"] = step.probability if shown else None
    if rows:
        rows[-1]["next_in_order_probability"] = None
    return {"runs": rows, "kendall_tau_llm": tau}


def _rank_sets_and_tau(
    population: Population,
    *,
    judged: np.ndarray,
    pi: np.ndarray,
    metric: str,
    eligible: np.ndarray,
    llm_only: np.ndarray,
    seed: int,
) -> tuple[dict[int, dict[str, int]], dict[str, float | int] | None]:
    """Per run with an estimate, its rank set among those runs ({"best", "worst"}, 1 = highest) that holds
    jointly for all of them with probability ≈ 95% (`ranking.pairwise_rank_sets`); and τ between the LLM-only
    and the estimated ranking of those runs with its 95% interval (None: fewer than 2 runs, or τ undefined).
    The Gaussian draws are seeded with the sample's seed, so the page shows the same sets each time."""
    shown = np.flatnonzero(eligible)
    runs = run_unit_matrix(population, sampled=judged, pi=pi, metric=metric).subset(shown)
    rng = np.random.default_rng([seed, METRICS.index(metric)])
    sets = pairwise_rank_sets(runs, rng=rng)
    rank_set = {
        int(at): {"best": int(b), "worst": int(w)} for at, b, w in zip(shown, sets.best, sets.worst, strict=True)
    }
    if len(shown) < 2:
        return rank_set, None
    tau = kendall_tau_interval(llm_only[shown], runs.score, sets.surely_above)
    if np.isnan(tau.tau):
        return rank_set, None
    return rank_set, {"tau": tau.tau, "low": tau.low, "high": tau.high, "runs": len(shown)}


def budget_estimates(*, sample: BudgetSample) -> dict[str, Any]:
    """The estimates of the sample's campaign, as plain data."""
    found, judged, pi, human = budget_campaign_population(sample=sample)
    population = found.population
    llm = label_set_get(sample.llm)
    drawn_units = sample.items.count()
    judged_units = len(np.unique(found.citation_unit[judged]))
    per_metric = {
        metric: _ranked_runs(population, runs=found.runs, judged=judged, pi=pi, metric=metric, seed=sample.seed)
        for metric in METRICS
    }
    return {
        "sample": sample.pk,
        "campaign": sample.campaign.name,
        "design": sample.design,
        "seed": sample.seed,
        "budget": sample.budget_text,
        "label_sets": {
            "llm": llm.spec,
            "human": human.spec,
            "human_note": f"{human.spec}, read on the pairs of budget sample #{sample.pk} only",
        },
        "unit": UNIT,
        "interval": INTERVAL_METHOD,
        "ranking_method": RANKING_METHOD,
        "rank_set_method": RANK_SET_METHOD,
        "kendall_tau_method": TAU_METHOD,
        "frame_pairs": sample.frame,
        "drawn_pairs": drawn_units,
        "judged_pairs": judged_units,
        "citations": len(population.answer),
        "topics": len(found.topics),
        "metrics": per_metric,
        "min_judged": MIN_JUDGED,
        "clipping_note": CLIPPING_NOTE,
        "note": (
            "While judging goes on, a topic's judged pairs are the first of its shuffled queue: each counts with "
            "its inclusion probability times the topic's judged share of its draw (two-phase design). A run shows an "
            f"estimate once {MIN_JUDGED} of its pairs are judged; before that only the LLM-only score, and it is "
            "ranked below every run with an estimate."
        ),
    }


DEFAULT_PLAN_BUDGETS = (0.02, 0.05, 0.1, 0.15, 0.2, 0.3, 0.4, 0.5)


def budget_plan(
    *,
    llm: str,
    human: str,
    scope: Scope,
    budgets: tuple[float, ...] = DEFAULT_PLAN_BUDGETS,
    design: str = Design.UNIFORM,
) -> dict[str, Any]:
    """Expected mean 95% interval width of the run scores against budget (metrics.budget.plan), from the human
    labels some citations already have beside the LLM's."""
    llm_set, human_set = label_set_get(llm), label_set_get(human)
    population, known, runs, topics = plan_population(llm=llm_set, human=human_set, scope=scope)
    curves = {}
    for metric in METRICS:
        curves[metric] = [
            {
                "budget": p.budget,
                "pairs": p.units,
                "width": p.width,
                "width_human_only": p.width_human_only,
            }
            for p in plan(population, known=known, budgets=list(budgets), metric=metric, design=design)
        ]
    comparison = _design_comparison(population, known=known, budgets=COMPARISON_BUDGETS)
    return {
        "label_sets": {"llm": llm_set.spec, "human": human_set.spec},
        "design": design,
        "runs": len(runs),
        "topics": len(topics),
        "citations": len(population.answer),
        "known": int(known.sum()),
        "unit": "mean over runs of the expected 95% interval width of weighted precision / recall (first citations)",
        "curves": curves,
        "designs": comparison,
    }


COMPARISON_BUDGETS = (0.05, 0.1, 0.2)
PLAN_DESIGNS = (Design.UNIFORM, Design.STRATIFIED, Design.ACTIVE)


def _design_comparison(
    population: Population, *, known: np.ndarray, budgets: tuple[float, ...]
) -> list[dict[str, Any]]:
    """Per design that needs no second LLM and budget: the expected mean 95% interval width of precision and
    recall (`estimators.plan`), and the pairs uniform sampling would need for the same precision width."""
    widths = {
        (design, metric): plan(population, known=known, budgets=list(budgets), metric=metric, design=design)
        for design in PLAN_DESIGNS
        for metric in METRICS
    }
    rows = []
    for design in PLAN_DESIGNS:
        for at, budget in enumerate(budgets):
            point = widths[(design, "precision")][at]
            uniform = widths[(Design.UNIFORM, "precision")][at]
            rows.append(
                {
                    "design": design.value,
                    "label": design.label,
                    "budget": budget,
                    "pairs": point.units,
                    "precision_width": point.width,
                    "recall_width": widths[(design, "recall")][at].width,
                    # the design variance goes as (1 - π) / π: the uniform share with this width
                    "uniform_pairs_for_width": point.units
                    / budget
                    * _uniform_share(budget, uniform.width, point.width),
                }
            )
    return rows


def _uniform_share(budget: float, uniform_width: float, width: float) -> float:
    if width <= 0 or budget >= 1:
        return budget
    odds = (1 - budget) / budget * (width / uniform_width) ** 2
    return 1 / (1 + odds)
