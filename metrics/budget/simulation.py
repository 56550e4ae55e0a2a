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
    difference_estimate,
    full_scores,
    inclusion_probabilities,
    neyman_probabilities,
    poisson_sample,
    rank_set_level,
    rank_sets,
    true_ranks,
)

# The designs a simulation compares, in this order (each design's generator is seeded with its place here).
SIMULATION_DESIGNS = (Design.UNIFORM.value, Design.STRATIFIED.value, "neyman")
NEYMAN = "neyman"  # stratified by the LLM's label, Neyman allocation from a pilot (`neyman_draw`)
PILOT_SHARE = 0.1  # the pilot's share of a Neyman draw's budget


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
                pi = pilot = np.zeros(0)
                if design != NEYMAN:
                    pi = inclusion_probabilities(population.llm_code, budget=budget, design=design)
                tallies: dict[str, list[float]] = {
                    k: [] for k in ("cov", "w", "wh", "covh", "e", "eh", "t", "th", "n", "rc", "rs")
                }
                for _ in range(repeats):
                    if design == NEYMAN:
                        pi, pilot = neyman_draw(population, budget=budget, rng=rng)
                    sampled = poisson_sample(pi, rng)
                    _tally(tallies, population, sampled=sampled, pi=pi, metric=metric, truth=truth, interval=interval)
                    tallies["n"].append(float((sampled | pilot).mean() if len(pilot) else sampled.mean()))
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
                        tau=float(np.nanmean(tallies["t"])),
                        tau_human_only=float(np.nanmean(tallies["th"])),
                        tau_llm_only=tau_llm,
                        judged_share=float(np.mean(tallies["n"])),
                        rank_set_coverage=float(np.mean(tallies["rc"])),
                        rank_set_size=float(np.mean(tallies["rs"])),
                    )
                )
    return rows


def _tally(
    tallies: dict[str, list[float]],
    population: Population,
    *,
    sampled: np.ndarray,
    pi: np.ndarray,
    metric: str,
    truth: np.ndarray,
    interval: str,
) -> None:
    """One draw's figures against the truth: LLM + sample, human only, and the rank sets (95% jointly)."""
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
    level = rank_set_level(population.n_runs)
    joint = difference_estimate(population, sampled=sampled, pi=pi, metric=metric, level=level, interval=interval)
    best, worst = rank_sets(joint.low, joint.high)
    ranks = true_ranks(truth)
    tallies["rc"].append(float(np.all((best <= ranks) & (ranks <= worst))))
    tallies["rs"].append(float(np.mean(worst - best + 1)))


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
