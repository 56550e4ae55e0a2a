"""How well the budget estimator does on labels where the truth is known: draw the sample many times per budget
and design from a population whose every citation has a human label, and compare each estimate (LLM + sample,
human only) with the full-human score. Pure functions over the estimators (`budget_simulate` prints them)."""

from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

import numpy as np
from scipy import stats

from metrics.budget.estimators import (
    Design,
    IntervalKind,
    Population,
    _calibrated,
    active_probabilities,
    difference_estimate,
    expected_errors,
    full_scores,
    inclusion_probabilities,
    neyman_probabilities,
    poisson_sample,
)
from metrics.budget.ranking import kendall_tau, kendall_tau_interval, pairwise_rank_sets, run_unit_matrix, true_ranks

NEYMAN = "neyman"  # stratified by the LLM's label, Neyman allocation from a pilot (`neyman_draw`)
# The designs a simulation compares, in this order (each design's generator is seeded with its place here).
SIMULATION_DESIGNS = (Design.UNIFORM.value, Design.STRATIFIED.value, NEYMAN, Design.ACTIVE.value)
PILOT_DESIGNS = (NEYMAN, Design.ACTIVE.value)  # drawn anew each repeat: a pilot first
PILOT_SHARE = 0.1  # the pilot's share of a Neyman draw's budget
ACTIVE_PILOT_SHARE = 0.05  # the pilot's share of an active draw's budget (its labels count in the estimate)


def neyman_draw(population: Population, *, budget: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(π, judged): a uniform pilot of PILOT_SHARE of the budget, judged first; then the rest of the budget drawn
    with `neyman_probabilities` (strata: the LLM's label; weight: the citation's mean coefficient in precision
    and recall) from the pilot's residuals against the LLM recalibrated on it. The estimate uses the second
    draw alone with its π, fixed given the pilot, so it stays unbiased; the pilot's judgments count in the
    cost (`judged`, the union). The units are the population's citations (NIST's files)."""
    n = len(population.answer)
    pilot = rng.random(n) < PILOT_SHARE * budget
    human = np.nan_to_num(population.human_weights())
    llm = population.llm_weights()
    residual = human - _calibrated(llm, human, pilot, np.ones(n))
    weight = (population.coefficients("precision") + population.coefficients("recall")) / 2
    pi = neyman_probabilities(
        population.llm_code, budget=budget * (1 - PILOT_SHARE), pilot=pilot, residual=residual, weight=weight
    )
    return pi, pilot


def active_draw(population: Population, *, budget: float, rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """(π, sampled) of an active draw (`estimators.active_probabilities`): a uniform pilot of ACTIVE_PILOT_SHARE
    of the budget is judged first; the LLM's expected error per label is learnt from it (`expected_errors`,
    residuals against the LLM recalibrated on the pilot), and the rest of the budget is drawn from the other
    units with π ∝ |c| · expected error / V_run^¼, mixed with uniform. The estimate is conditional on the
    pilot: its units are known (π = 1 given the pilot) and the rest carry their π, fixed given the pilot, so
    it is unbiased and every judgment counts (unlike `neyman_draw`, whose pilot is only spent)."""
    n = len(population.answer)
    pilot = rng.random(n) < ACTIVE_PILOT_SHARE * budget
    human = np.nan_to_num(population.human_weights())
    residual = human - _calibrated(population.llm_weights(), human, pilot, np.ones(n))
    error = expected_errors(population.llm_code, known=pilot, residual=residual)
    weight = (population.coefficients("precision") + population.coefficients("recall")) / 2
    rest = ~pilot
    pi = np.ones(n)
    share = min(1.0, (1 - ACTIVE_PILOT_SHARE) * budget * n / max(int(rest.sum()), 1))
    pi[rest] = active_probabilities(error[rest], budget=share, weight=weight[rest], run=population.citation_run[rest])
    return pi, pilot | poisson_sample(np.where(rest, pi, 0.0), rng)


@dataclass(frozen=True)
class SimulationRow:
    budget: float
    design: str
    metric: str
    repeats: int
    coverage: float  # share of runs x repeats whose interval holds the full-human score
    width: float  # mean interval width, LLM + sample
    width_human_only: float  # mean interval width of the human-only estimate of the same samples
    coverage_human_only: float
    mae: float  # mean absolute error of the point estimates against the full-human scores
    mae_human_only: float
    tau: float  # mean Kendall τ between the estimated and the full-human run rankings
    tau_human_only: float
    tau_llm_only: float  # the LLM alone (no sample), for reference
    judged_share: float  # the share of citations actually drawn, on average
    rank_set_coverage: float | None = None  # share of draws whose rank sets (95% jointly) hold every true rank
    rank_set_size: float | None = None  # mean size of a run's rank set (1: its rank is certain)
    tau_interval_coverage: float | None = (
        None  # share of draws whose τ(LLM only, estimate) interval holds τ(LLM, truth)
    )


def simulate(
    population: Population,
    *,
    budgets: list[float],
    designs: list[str],
    metrics: tuple[str, ...] = ("precision", "recall"),
    repeats: int = 200,
    seed: int = 0,
    interval: str = IntervalKind.T,
) -> list[SimulationRow]:
    """Draw the sample `repeats` times per budget and design and compare every estimate with the truth."""
    rows = []
    for metric in metrics:
        truth = full_scores(population, metric=metric)
        tau_llm = float(stats.kendalltau(full_scores(population, metric=metric, human=False), truth).statistic)
        for design in designs:
            for budget in budgets:
                rng = np.random.default_rng([seed, round(budget * 1e6), SIMULATION_DESIGNS.index(design)])
                pi = np.zeros(0)
                if design not in PILOT_DESIGNS:
                    pi = inclusion_probabilities(population.llm_code, budget=budget, design=design)
                tallies: dict[str, list[float]] = {
                    k: [] for k in ("cov", "w", "wh", "covh", "e", "eh", "t", "th", "n", "rc", "rs", "tc")
                }
                ranks_rng = np.random.default_rng([seed, round(budget * 1e6), SIMULATION_DESIGNS.index(design), 1])
                for _ in range(repeats):
                    drawn_pi, sampled, judged = _draw(population, design=design, budget=budget, pi=pi, rng=rng)
                    _tally(
                        tallies, population, sampled=sampled, pi=drawn_pi, metric=metric, truth=truth,
                        interval=interval, rng=ranks_rng,
                    )  # fmt: skip
                    tallies["n"].append(float(judged.mean()))
                rows.append(
                    SimulationRow(
                        budget=budget,
                        design=design,
                        metric=metric,
                        repeats=repeats,
                        coverage=float(np.mean(tallies["cov"])),
                        width=float(np.mean(tallies["w"])),
                        width_human_only=float(np.mean(tallies["wh"])),
                        coverage_human_only=float(np.mean(tallies["covh"])),
                        mae=float(np.mean(tallies["e"])),
                        mae_human_only=float(np.mean(tallies["eh"])),
                        tau=_nanmean(tallies["t"]),
                        tau_human_only=_nanmean(tallies["th"]),
                        tau_llm_only=tau_llm,
                        judged_share=float(np.mean(tallies["n"])),
                        rank_set_coverage=float(np.mean(tallies["rc"])),
                        rank_set_size=float(np.mean(tallies["rs"])),
                        tau_interval_coverage=float(np.mean(tallies["tc"])) if tallies["tc"] else None,
                    )
                )
    return rows


def _draw(
    population: Population, *, design: str, budget: float, pi: np.ndarray, rng: np.random.Generator
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One draw of a design: (π, the units the estimate uses, every unit judged: the estimate's and a spent pilot's)."""
    if design == NEYMAN:
        pi, pilot = neyman_draw(population, budget=budget, rng=rng)
        sampled = poisson_sample(pi, rng)
        return pi, sampled, sampled | pilot
    if design == Design.ACTIVE:
        pi, sampled = active_draw(population, budget=budget, rng=rng)
        return pi, sampled, sampled
    sampled = poisson_sample(pi, rng)
    return pi, sampled, sampled


def _tally(
    tallies: dict[str, list[float]],
    population: Population,
    *,
    sampled: np.ndarray,
    pi: np.ndarray,
    metric: str,
    truth: np.ndarray,
    interval: str,
    rng: np.random.Generator,
) -> None:
    """One draw's figures against the truth: LLM + sample, human only, and the rank sets (95% jointly, pairwise) and the τ interval."""
    both = difference_estimate(population, sampled=sampled, pi=pi, metric=metric, interval=interval)
    human = difference_estimate(population, sampled=sampled, pi=pi, metric=metric, use_llm=False, interval=interval)
    tallies["cov"].append(float(np.mean((both.low <= truth) & (truth <= both.high))))
    tallies["covh"].append(float(np.mean((human.low <= truth) & (truth <= human.high))))
    tallies["w"].append(float(np.mean(both.high - both.low)))
    tallies["wh"].append(float(np.mean(human.high - human.low)))
    tallies["e"].append(float(np.mean(np.abs(both.score - truth))))
    tallies["eh"].append(float(np.mean(np.abs(human.score - truth))))
    tallies["t"].append(float(stats.kendalltau(both.score, truth).statistic))
    tallies["th"].append(float(stats.kendalltau(human.score, truth).statistic))
    runs = run_unit_matrix(population, sampled=sampled, pi=pi, metric=metric)
    sets = pairwise_rank_sets(runs, rng=rng)
    ranks = true_ranks(truth)
    tallies["rc"].append(float(np.all((sets.best <= ranks) & (ranks <= sets.worst))))
    tallies["rs"].append(float(np.mean(sets.worst - sets.best + 1)))
    llm = full_scores(population, metric=metric, human=False)
    target = float(kendall_tau(llm, truth))
    if not np.isnan(target):
        tau = kendall_tau_interval(llm, runs.score, sets.surely_above)
        tallies["tc"].append(float(tau.low <= target <= tau.high))


def _nanmean(values: list[float]) -> float:
    """The mean of the defined values; NaN (no warning) when none is: τ is undefined when a ranking ties every run."""
    defined = [v for v in values if not np.isnan(v)]
    return float(np.mean(defined)) if defined else float("nan")


def json_safe(value: Any) -> Any:
    """`value` with every NaN or infinite float as None: JSON has no NaN (json.dumps would write an invalid `NaN`)."""
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [json_safe(v) for v in value]
    if isinstance(value, float) and not np.isfinite(value):
        return None
    return value


def judgments_for_width(row: SimulationRow, *, units: int, target_width: float) -> float:
    """The human judgments (sampling units) a design would need for a mean interval width of `target_width`,
    scaled from this row's measured width: the design variance goes as (1 - π) / π at a mean π, so
    (1 - π') / π' = (1 - π) / π · (target / width)². A first-order reading (the design's shape and the t
    quantile are held fixed), best near the budgets simulated."""
    share = min(max(row.judged_share, 1e-9), 1 - 1e-9)
    if row.width <= 0:
        return share * units
    odds = (1 - share) / share * (target_width / row.width) ** 2
    return units / (1 + odds)


def design_rows(rows: list[SimulationRow], *, units: int, target_width: float) -> list[dict[str, Any]]:
    """One object per (design, budget): the first metric's figures at the top level (`metric` names it), each
    metric's in `by_metric`, the judgments for `target_width`, and the rank sets' joint coverage and mean size."""
    grouped: dict[tuple[str, float], list[SimulationRow]] = {}
    for row in rows:
        grouped.setdefault((row.design, row.budget), []).append(row)
    out = []
    for (design, budget), group in grouped.items():
        head = group[0]
        out.append(
            {
                **asdict(head),
                "design": design,
                "budget": budget,
                "judgments": head.judged_share * units,
                "judgments_for_target_width": judgments_for_width(head, units=units, target_width=target_width),
                "by_metric": {
                    r.metric: {
                        **asdict(r),
                        "judgments_for_target_width": judgments_for_width(r, units=units, target_width=target_width),
                    }
                    for r in group
                },
            }
        )
    return out
