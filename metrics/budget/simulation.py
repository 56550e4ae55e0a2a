"""How well the budget estimator does on labels where the truth is known: draw the sample many times per budget
and design from a population whose every citation has a human label, and compare each estimate (LLM + sample,
human only) with the full-human score. Pure functions over the estimators (`budget_simulate` prints them)."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

from metrics.budget.estimators import (
    ONE_LLM_DESIGNS,
    Interval,
    Population,
    difference_estimate,
    full_scores,
    inclusion_probabilities,
    poisson_sample,
)


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


def simulate(
    population: Population,
    *,
    budgets: list[float],
    designs: list[str],
    metrics: tuple[str, ...] = ("precision", "recall"),
    repeats: int = 200,
    seed: int = 0,
    interval: str = Interval.T,
) -> list[SimulationRow]:
    """Draw the sample `repeats` times per budget and design and compare every estimate with the truth."""
    rows = []
    for metric in metrics:
        truth = full_scores(population, metric=metric)
        tau_llm = float(stats.kendalltau(full_scores(population, metric=metric, human=False), truth).statistic)
        for design in designs:
            for budget in budgets:
                rng = np.random.default_rng([seed, round(budget * 1e6), ONE_LLM_DESIGNS.index(design)])
                pi = inclusion_probabilities(population.llm_code, budget=budget, design=design)
                tallies: dict[str, list[float]] = {k: [] for k in ("cov", "w", "wh", "covh", "e", "eh", "t", "th", "n")}
                for _ in range(repeats):
                    sampled = poisson_sample(pi, rng)
                    both = difference_estimate(population, sampled=sampled, pi=pi, metric=metric, interval=interval)
                    human = difference_estimate(
                        population, sampled=sampled, pi=pi, metric=metric, use_llm=False, interval=interval
                    )
                    tallies["cov"].append(float(np.mean((both.low <= truth) & (truth <= both.high))))
                    tallies["covh"].append(float(np.mean((human.low <= truth) & (truth <= human.high))))
                    tallies["w"].append(float(np.mean(both.high - both.low)))
                    tallies["wh"].append(float(np.mean(human.high - human.low)))
                    tallies["e"].append(float(np.mean(np.abs(both.score - truth))))
                    tallies["eh"].append(float(np.mean(np.abs(human.score - truth))))
                    tallies["t"].append(float(stats.kendalltau(both.score, truth).statistic))
                    tallies["th"].append(float(stats.kendalltau(human.score, truth).statistic))
                    tallies["n"].append(float(sampled.mean()))
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
                    )
                )
    return rows
