"""The run ranking from a budget sample, as pure functions: the adjacent runs' order with its probability, rank
sets that hold jointly for all runs (Chatzi et al., "Prediction-Powered Ranking of Large Language Models",
NeurIPS 2024), and Kendall's τ between the LLM-only ranking and the estimated one with an interval.

All three read the same object: the difference estimates of the run scores and their estimated covariance.
Under Poisson sampling the covariance of runs r and s is Σ_u (1 - π_u) D_ru D_su / π_u² over the drawn units u
(D_ru = Σ_i∈u,r c_ri d_i, d the residual), i.e. AᵀA with a_ru = √(1 - π_u) D_ru / π_u (`run_unit_matrix`): two
runs that share a drawn pair share its error, so their difference is surer than their two intervals say.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import numpy as np
from scipy import stats

from metrics.budget.estimators import Population, _prediction_and_residual

RANK_SET_DRAWS = 1000  # Gaussian draws calibrating the rank sets' joint quantile and the τ interval


@dataclass(frozen=True)
class RunDifferences:
    """Each run's estimated score and the matrix whose cross-product is the estimates' covariance."""

    score: np.ndarray  # per run
    a: np.ndarray  # (drawn units, runs): a_ru = √(1 - π_u) D_ru / π_u

    @property
    def covariance(self) -> np.ndarray:
        return self.a.T @ self.a

    def difference_se(self) -> np.ndarray:
        """(runs, runs): the standard error of score_r - score_s (0 on the diagonal)."""
        cov = self.covariance
        var = np.diag(cov)
        return np.sqrt(np.maximum(var[:, None] + var[None, :] - 2 * cov, 0.0))

    def subset(self, runs: np.ndarray) -> RunDifferences:
        return RunDifferences(self.score[runs], self.a[:, runs])

    def gaussian_draws(self, rng: np.random.Generator, draws: int = RANK_SET_DRAWS) -> np.ndarray:
        """(draws, runs): errors drawn from N(0, covariance), by Gaussian multipliers on the drawn units."""
        return rng.standard_normal((draws, self.a.shape[0])) @ self.a


def run_unit_matrix(
    population: Population,
    *,
    sampled: np.ndarray,
    pi: np.ndarray,
    metric: str,
    use_llm: bool = True,
    calibrate: bool = True,
) -> RunDifferences:
    """The difference estimates of the run scores (as `difference_estimate`) and their covariance factor."""
    c = population.coefficients(metric)
    prediction, residual = _prediction_and_residual(
        population, sampled=sampled, pi=pi, use_llm=use_llm, calibrate=calibrate
    )
    safe_pi = np.where(sampled, pi, 1.0)
    score = np.bincount(
        population.citation_run, weights=c * (prediction + residual / safe_pi), minlength=population.n_runs
    )
    units = population.units
    width = int(units.max(initial=0)) + 1
    keys, inverse = np.unique(
        population.citation_run[sampled].astype(np.int64) * width + units[sampled], return_inverse=True
    )
    sums = np.bincount(inverse, weights=(c * residual)[sampled], minlength=len(keys))
    drawn_units, row = np.unique(keys % width, return_inverse=True)
    unit_pi = np.ones(len(drawn_units))
    unit_pi[np.searchsorted(drawn_units, units[sampled])] = pi[sampled]
    a = np.zeros((len(drawn_units), population.n_runs))
    a[row, keys // width] = np.sqrt(1 - unit_pi[row]) * sums / unit_pi[row]
    return RunDifferences(score, a)


# --- adjacent runs ----------------------------------------------------------------------------------------


@dataclass(frozen=True)
class RankStep:
    """Two runs next to each other in the estimated ranking, and how sure the sample makes their order."""

    upper: int  # run index, estimated higher
    lower: int
    difference: float  # estimated score of upper less lower
    se: float  # standard error of that difference (runs sharing drawn pairs covary: counted)
    probability: float  # Φ(difference / se): the normal approximation's confidence that upper is above lower


def ranking(
    population: Population,
    *,
    sampled: np.ndarray,
    pi: np.ndarray,
    metric: str,
    use_llm: bool = True,
    calibrate: bool = True,
    eligible: np.ndarray | None = None,
) -> tuple[np.ndarray, list[RankStep]]:
    """The runs by estimated score (highest first) and, for each adjacent two, the probability that they are
    in the right order: the difference of their estimates is itself a difference estimate, whose variance sums
    over drawn units (Σ (1 - π_u) (D_upper,u - D_lower,u)² / π_u², so a pair both runs hold counts once), and
    the probability is Φ(difference / se) under the normal approximation. A step with se 0 (no drawn unit
    tells the two runs apart) gets 1 or 0.5 by the sign of the difference. With `eligible` (a boolean per run:
    those with an estimate to show), the eligible runs come first, so that a run without an estimate is never
    ranked above one with."""
    runs = run_unit_matrix(population, sampled=sampled, pi=pi, metric=metric, use_llm=use_llm, calibrate=calibrate)
    order = np.argsort(-runs.score, kind="stable")
    if eligible is not None:
        order = np.concatenate([order[eligible[order]], order[~eligible[order]]])
    se = runs.difference_se()
    steps = []
    for upper, lower in itertools.pairwise(order):
        difference = float(runs.score[upper] - runs.score[lower])
        step_se = float(se[upper, lower])
        probability = float(stats.norm.cdf(difference / step_se)) if step_se > 0 else (1.0 if difference > 0 else 0.5)
        steps.append(RankStep(int(upper), int(lower), difference, step_se, probability))
    return order, steps


# --- rank sets --------------------------------------------------------------------------------------------


def rank_sets(surely_above: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Each run's set of ranks (1 = highest) as (best, worst) arrays, from `surely_above[r, s]` (run r is above
    run s in every score vector of a joint confidence region): run r ranks below every run surely above it and
    above every run surely below it. If the true scores are in the region, every true rank is in its set."""
    above = surely_above.sum(axis=0)  # runs s surely above r
    below = surely_above.sum(axis=1)  # runs s surely below r
    return 1 + above, len(surely_above) - below


def intervals_above(low: np.ndarray, high: np.ndarray) -> np.ndarray:
    """surely_above from simultaneous per-run intervals: r's interval lies wholly above s's."""
    return low[:, None] > high[None, :]


@dataclass(frozen=True)
class RankSets:
    best: np.ndarray
    worst: np.ndarray
    quantile: float  # the joint quantile of the studentized pairwise differences
    surely_above: np.ndarray  # (runs, runs): r surely above s, for all pairs jointly with probability ≈ 1 - alpha


def pairwise_rank_sets(
    runs: RunDifferences, *, rng: np.random.Generator, alpha: float = 0.05, draws: int = RANK_SET_DRAWS
) -> RankSets:
    """Rank sets that hold jointly with probability ≈ 1 - alpha, from a simultaneous region over all pairwise
    differences (Chatzi et al. 2024): run r is surely above s when score_r - score_s > q · se_rs, q the 1 - alpha
    quantile of max over pairs of |Z_r - Z_s| / se_rs with Z ~ N(0, covariance) (a max-statistic calibration
    by Gaussian draws; it knows the differences share runs, unlike Bonferroni), stepped down: once some pairs
    are called, q is taken again over the others (Romano & Wolf 2005), which keeps the family-wise error. A
    pair whose difference has no estimated variance is never called (nothing drawn tells the two apart)."""
    n = len(runs.score)
    if n < 2:
        return RankSets(np.ones(n, dtype=int), np.ones(n, dtype=int), 0.0, np.zeros((n, n), dtype=bool))
    se = runs.difference_se()
    known = se > 0
    if not known.any():
        return RankSets(np.ones(n, dtype=int), np.full(n, n), 0.0, np.zeros((n, n), dtype=bool))
    z = runs.gaussian_draws(rng, draws)
    upper = np.triu(known, k=1)
    rows, cols = np.nonzero(upper)
    statistic = np.abs(z[:, rows] - z[:, cols]) / se[rows, cols]
    observed = np.abs(runs.score[rows] - runs.score[cols]) / se[rows, cols]
    called = np.zeros(len(rows), dtype=bool)
    while True:  # step-down (Romano & Wolf 2005): the quantile over the pairs not called yet, until none is added
        quantile = float(np.quantile(statistic[:, ~called].max(axis=1), 1 - alpha)) if (~called).any() else 0.0
        now = observed > quantile
        if not (now & ~called).any():
            break
        called |= now
    surely_above = np.zeros((n, n), dtype=bool)
    higher = runs.score[rows] > runs.score[cols]
    surely_above[rows[called & higher], cols[called & higher]] = True
    surely_above[cols[called & ~higher], rows[called & ~higher]] = True
    best, worst = rank_sets(surely_above)
    return RankSets(best, worst, quantile, surely_above)


def true_ranks(scores: np.ndarray) -> np.ndarray:
    """Each run's rank by score, 1 = highest; tied runs share the best rank of their tie."""
    return 1 + (scores[None, :] > scores[:, None]).sum(axis=1)


# --- Kendall's τ between the LLM-only ranking and the estimated one ----------------------------------------


def kendall_tau(reference: np.ndarray, scores: np.ndarray) -> np.ndarray:
    """Kendall's τ-b between `reference` (runs) and each row of `scores` (runs, or draws x runs); NaN where
    either side ties every run."""
    rows = np.atleast_2d(scores)
    i, j = np.triu_indices(len(reference), k=1)
    x = np.sign(reference[i] - reference[j])
    y = np.sign(rows[:, i] - rows[:, j])
    pairs_x, pairs_y = float(np.sum(x != 0)), np.sum(y != 0, axis=1).astype(float)
    denominator = np.sqrt(pairs_x * pairs_y)
    with np.errstate(invalid="ignore", divide="ignore"):
        tau = np.where(denominator > 0, (y * x).sum(axis=1) / denominator, np.nan)
    return tau if np.ndim(scores) > 1 else tau[:1].reshape(())


@dataclass(frozen=True)
class TauInterval:
    tau: float  # τ between the reference ranking and the estimated one (NaN: undefined)
    low: float
    high: float


def kendall_tau_interval(reference: np.ndarray, score: np.ndarray, surely_above: np.ndarray) -> TauInterval:
    """τ between `reference` (the LLM-only scores) and the estimated `score`, with an interval for τ against the
    full-human scores projected from the rank sets' joint region (`pairwise_rank_sets`): a pair of runs called
    there has its true order known, any other may go either way, so τ lies between all of those discordant
    and all concordant. It holds whenever the region does (≥ 1 - alpha jointly), whatever the ranking's
    discreteness; a parametric bootstrap of τ covered only ~0.7 in simulation (τ is no smooth function)."""
    tau = float(kendall_tau(reference, score))
    if np.isnan(tau):
        return TauInterval(float("nan"), float("nan"), float("nan"))
    i, j = np.triu_indices(len(reference), k=1)
    x = np.sign(reference[i] - reference[j])
    known = np.where(surely_above[i, j], 1.0, np.where(surely_above[j, i], -1.0, 0.0))
    fixed = float(np.sum(x * known))
    free = float(np.sum((x != 0) & (known == 0)))
    denominator = np.sqrt(float(np.sum(x != 0)) * len(i))  # no ties in the true scores
    return TauInterval(tau, max(-1.0, (fixed - free) / denominator), min(1.0, (fixed + free) / denominator))
