"""Run scores from LLM labels on every citation corrected by people on a sample, as pure functions.

The estimator is the **difference estimator** under Poisson sampling (each unit drawn independently with a
known inclusion probability π, so the design is exact and recorded): with LLM weights ŵ on every citation
and human weights w on the sampled ones,

    score_r = Σ_i c_ri · (ŵ_i + s_i (w_i - ŵ_i) / π_i)

where c_ri is the citation's coefficient in run r's score (1 / (topics · judged citations of its answer) for
weighted precision, 1 / (topics · sentences of its answer) for recall at depth 1) and s_i says whether it
was sampled. It is unbiased for the full-human score whatever the LLM labels are (E[s_i] = π_i); good LLM
labels only make it tighter. With ŵ = 0 it is the human-only Horvitz-Thompson estimate of the same sample.
Its variance, Σ c_ri² (1 - π_i) d_i² / π_i with d = w - ŵ, is estimated unbiasedly from the sample by
Σ_sampled c_ri² (1 - π_i) d_i² / π_i²; the 95% interval is estimate ± 1.96 · se. This is the
prediction-powered mean of Angelopoulos et al. (Science 2023) with λ = 1 under a known sampling design, in
the form survey statistics calls the model-assisted difference estimator.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import stats

WEIGHT_OF_CODE = np.array([0.0, 0.5, 1.0])  # NS, PS, FS


class Design:
    UNIFORM = "uniform"
    STRATIFIED = "stratified"  # more of the LLM's Partial labels, where it is most often wrong
    CHOICES = (UNIFORM, STRATIFIED)


# Relative inclusion weight per LLM label code (NS, PS, FS) in the stratified design.
STRATIFIED_WEIGHTS = np.array([1.5, 2.5, 1.0])


@dataclass(frozen=True)
class Population:
    """Every citation of the scores (one row each) with its answer, and each answer's run and denominators."""

    answer: np.ndarray  # each citation's answer, an index into the answer columns
    llm_code: np.ndarray  # the LLM's label code (0 NS, 1 PS, 2 FS; -1 none: the LLM's mean weight is used)
    human_code: np.ndarray  # the human label code (only read where sampled, and for the full-human score)
    answer_run: np.ndarray  # each answer's run (index into runs)
    answer_judged: np.ndarray  # each answer's judged citations (precision's denominator)
    answer_sentences: np.ndarray  # each answer's sentences less those not judged (recall's denominator)
    n_runs: int
    n_topics: int

    def coefficients(self, metric: str) -> np.ndarray:
        denominator = self.answer_judged if metric == "precision" else self.answer_sentences
        per_answer = np.divide(1.0, denominator * self.n_topics, out=np.zeros(len(denominator)), where=denominator > 0)
        return per_answer[self.answer]

    @property
    def citation_run(self) -> np.ndarray:
        return self.answer_run[self.answer]

    def llm_weights(self) -> np.ndarray:
        known = self.llm_code >= 0
        mean = float(WEIGHT_OF_CODE[self.llm_code[known]].mean()) if known.any() else 0.5
        return np.where(known, WEIGHT_OF_CODE[np.clip(self.llm_code, 0, None)], mean)

    def human_weights(self) -> np.ndarray:
        return WEIGHT_OF_CODE[self.human_code]


def inclusion_probabilities(llm_code: np.ndarray, *, budget: float, design: str = Design.UNIFORM) -> np.ndarray:
    """Each unit's inclusion probability, averaging `budget` (a share, 0 < budget ≤ 1) over the units."""
    if not 0 < budget <= 1:
        raise ValueError("the budget is a share of the pairs, above 0 and at most 1")
    n = len(llm_code)
    if design == Design.UNIFORM:
        return np.full(n, budget)
    if design != Design.STRATIFIED:
        raise ValueError(f"unknown design {design!r} ({', '.join(Design.CHOICES)})")
    raw = np.where(llm_code >= 0, STRATIFIED_WEIGHTS[np.clip(llm_code, 0, None)], STRATIFIED_WEIGHTS.max())
    # Scale to the budget; units that would pass 1 are taken for sure and the rest scaled again.
    pi = np.zeros(n)
    free = np.ones(n, dtype=bool)
    target = budget * n
    for _ in range(n + 1):
        scale = (target - (~free).sum()) / raw[free].sum()
        pi[free] = raw[free] * scale
        over = free & (pi >= 1)
        if not over.any():
            break
        pi[over] = 1.0
        free &= ~over
    return np.clip(pi, 0, 1)


def poisson_sample(pi: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Each unit drawn independently with its probability (the design the estimator assumes)."""
    return rng.random(len(pi)) < pi


@dataclass(frozen=True)
class Estimate:
    score: np.ndarray  # per run
    se: np.ndarray
    low: np.ndarray
    high: np.ndarray


def difference_estimate(
    population: Population,
    *,
    sampled: np.ndarray,
    pi: np.ndarray,
    metric: str,
    use_llm: bool = True,
    calibrate: bool = True,
    level: float = 0.95,
) -> Estimate:
    """Each run's score estimated from the LLM's labels on all citations and the human labels of the
    sampled ones (`use_llm=False`: the human-only estimate of the same sample), with its interval."""
    c = population.coefficients(metric)
    prediction = population.llm_weights() if use_llm else np.zeros(len(c))
    if use_llm and calibrate:
        prediction = _calibrated(prediction, population.human_weights(), sampled, pi)
    residual = np.where(sampled, population.human_weights() - prediction, 0.0)
    safe_pi = np.where(sampled, pi, 1.0)
    runs = population.citation_run
    score = np.bincount(runs, weights=c * (prediction + residual / safe_pi), minlength=population.n_runs)
    variance = np.bincount(
        runs, weights=np.where(sampled, c**2 * (1 - pi) * residual**2 / safe_pi**2, 0.0), minlength=population.n_runs
    )
    se = np.sqrt(variance)
    z = float(stats.norm.ppf(0.5 + level / 2))
    return Estimate(score, se, score - z * se, score + z * se)


def _calibrated(llm: np.ndarray, human: np.ndarray, sampled: np.ndarray, pi: np.ndarray) -> np.ndarray:
    """The LLM's weights recalibrated on the sample (a + b·ŵ by least squares weighted 1/π): the PPI++ idea of
    trusting the LLM only as far as the sample shows it tracks people. Any fixed recalibration keeps the
    estimator unbiased; fitting it on the sample costs a bias of order 1/sample size."""
    if sampled.sum() < 10:
        return llm
    x, y, weight = llm[sampled], human[sampled], 1.0 / pi[sampled]
    mx, my = np.average(x, weights=weight), np.average(y, weights=weight)
    var = np.average((x - mx) ** 2, weights=weight)
    if var <= 0:
        return llm
    slope = np.average((x - mx) * (y - my), weights=weight) / var
    return my + slope * (llm - mx)


def full_scores(population: Population, *, metric: str, human: bool = True) -> np.ndarray:
    """Each run's score from the human labels of every citation (the truth) or the LLM's alone."""
    weights = population.human_weights() if human else population.llm_weights()
    c = population.coefficients(metric)
    return np.bincount(population.citation_run, weights=c * weights, minlength=population.n_runs)


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
) -> list[SimulationRow]:
    """Draw the sample `repeats` times per budget and design and compare every estimate with the truth."""
    rows = []
    for metric in metrics:
        truth = full_scores(population, metric=metric)
        tau_llm = float(stats.kendalltau(full_scores(population, metric=metric, human=False), truth).statistic)
        for design in designs:
            for budget in budgets:
                rng = np.random.default_rng([seed, round(budget * 1e6), Design.CHOICES.index(design)])
                pi = inclusion_probabilities(population.llm_code, budget=budget, design=design)
                tallies: dict[str, list[float]] = {k: [] for k in ("cov", "w", "wh", "covh", "e", "eh", "t", "th", "n")}
                for _ in range(repeats):
                    sampled = poisson_sample(pi, rng)
                    both = difference_estimate(population, sampled=sampled, pi=pi, metric=metric)
                    human = difference_estimate(population, sampled=sampled, pi=pi, metric=metric, use_llm=False)
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
