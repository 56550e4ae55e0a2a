"""95% intervals (DESIGN §5), all of them here: the run scores, Kendall τ between two label sets' run scores,
and Cohen's κ between two label sets' labels.

A run score is a mean over topics, so its interval resamples topics (`scipy.stats.bootstrap`, percentile,
fixed seed). τ is a rank statistic: a percentile bootstrap over resampled topics is biased downward for it
(a resample holds about 63% distinct topics, which blurs the ranking, and the interval can leave τ out), so
τ's interval is a delete-one-topic jackknife: τ ± z·se, se from the τ's with each topic left out in turn.
With fewer than `MIN_TOPICS` topics no interval is given. κ's interval resamples items (percentile); each
resample's κ is `kappa_of_matrices`, scikit-learn's κ vectorised. Every interval given holds its estimate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy import stats

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20241025
MIN_TOPICS = 5
RUN_INTERVAL_METHOD = "topic bootstrap (scipy.stats.bootstrap, percentile)"
TAU_INTERVAL_METHOD = "delete-one-topic jackknife"
TIE_DECIMALS = 12  # leave-one-out run means equal to this many decimals are tied for τ


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None


NO_INTERVAL = Interval(None, None)


def _holding(low: float, high: float, estimate: float) -> Interval:
    # Degenerate data (a constant run, whose resampled means can differ from its mean in the last bit) can
    # leave the estimate just outside, and an interval printed beside its estimate must hold it.
    return Interval(min(float(low), estimate), max(float(high), estimate))


def run_intervals(
    per_topic: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95
) -> list[Interval]:
    """One interval of the mean over topics per run (row of the runs x topics matrix)."""
    runs, topics = per_topic.shape
    if topics < MIN_TOPICS or runs == 0 or resamples <= 0:
        return [NO_INTERVAL for _ in range(runs)]
    result = stats.bootstrap(
        (per_topic,),
        np.mean,
        axis=-1,
        vectorized=True,
        n_resamples=resamples,
        confidence_level=level,
        method="percentile",
        rng=np.random.default_rng(seed),
    )
    means = per_topic.mean(axis=1)
    low, high = result.confidence_interval
    return [_holding(lo, hi, m) for lo, hi, m in zip(low, high, means, strict=True)]


def tau_interval(
    per_topic_a: np.ndarray,
    per_topic_b: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """Jackknife interval of Kendall τ-b between the two sets' run means; both matrices are runs x the same
    topics. `resamples` and `seed` are accepted for symmetry with `run_intervals` (0 resamples: none) and
    otherwise unused: the jackknife draws nothing."""
    if per_topic_a.shape != per_topic_b.shape:
        raise ValueError("both matrices must have the same runs and topics")
    runs, topics = per_topic_a.shape
    if runs < 2 or topics < MIN_TOPICS or resamples <= 0:
        return NO_INTERVAL
    # The centre is scipy's τ of the run means, the very figure the pages print beside the interval (the
    # vectorised τ below can differ from it in the last bit).
    tau = float(stats.kendalltau(per_topic_a.sum(axis=1) / topics, per_topic_b.sum(axis=1) / topics).statistic)
    if np.isnan(tau):
        return NO_INTERVAL
    # Each topic left out in turn: the run means over the other topics. Rounded, because τ turns on exact
    # ties, and two runs with equal means over the other topics can differ in the last bits after subtracting.
    left_out_a = np.round((per_topic_a.sum(axis=1)[None, :] - per_topic_a.T) / (topics - 1), TIE_DECIMALS)
    left_out_b = np.round((per_topic_b.sum(axis=1)[None, :] - per_topic_b.T) / (topics - 1), TIE_DECIMALS)
    taus = kendall_tau_b_rows(left_out_a, left_out_b)
    taus = taus[~np.isnan(taus)]
    if taus.size < 2:
        return NO_INTERVAL
    n = taus.size
    se = float(np.sqrt((n - 1) / n * np.sum((taus - taus.mean()) ** 2)))
    z = float(stats.norm.ppf(0.5 + level / 2.0))
    return _holding(max(-1.0, tau - z * se), min(1.0, tau + z * se), tau)


def kendall_tau_b_rows(a: np.ndarray, b: np.ndarray, *, batch: int = 64) -> np.ndarray:
    """Kendall τ-b of each row pair (a[k], b[k]), vectorised over rows (the jackknife needs one per topic and
    scipy's per-call overhead dominates there). Equal to `scipy.stats.kendalltau` (tested):
    τ-b = Σ sign(Δa)·sign(Δb) / sqrt(Σ|sign(Δa)| · Σ|sign(Δb)|) over all pairs of runs."""
    taus = np.empty(a.shape[0])
    for start in range(0, a.shape[0], batch):
        x, y = a[start : start + batch], b[start : start + batch]
        sx = np.sign(x[:, :, None] - x[:, None, :]).astype(np.int8)
        sy = np.sign(y[:, :, None] - y[:, None, :]).astype(np.int8)
        concordance = (sx * sy).sum(axis=(1, 2), dtype=np.int64)
        untied = np.sqrt(
            np.count_nonzero(sx, axis=(1, 2)).astype(float) * np.count_nonzero(sy, axis=(1, 2)).astype(float)
        )
        with np.errstate(invalid="ignore", divide="ignore"):
            taus[start : start + batch] = np.where(untied > 0, concordance / untied, np.nan)
    return taus


def kappa_of_matrices(matrices: np.ndarray) -> np.ndarray:
    """Unweighted Cohen's κ of each (..., k, k) confusion matrix of counts (rows a, columns b): what
    scikit-learn's `cohen_kappa_score` gives for the items each matrix counts (tested), NaN where κ is undefined
    (one label on both sides). Vectorised, as the bootstrap needs a thousand: scikit-learn takes about 2 ms for
    one matrix (its cells given as weighted items), which made one interval take seconds."""
    n = matrices.sum(axis=(-2, -1))
    observed = np.trace(matrices, axis1=-2, axis2=-1) / n
    expected = (matrices.sum(axis=-1) * matrices.sum(axis=-2)).sum(axis=-1) / n**2
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(expected < 1, (observed - expected) / (1 - expected), np.nan)


def kappa_interval(
    matrix: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95
) -> tuple[float, float] | None:
    """Percentile bootstrap interval of κ over items, from their confusion matrix. κ depends on the items
    only through that matrix, so resampling n items with replacement is a multinomial draw of its cells:
    exact, and cheap at any n (`scipy.stats.bootstrap` resamples the items themselves: 1.8 s for 20,000 items,
    where this takes milliseconds). The interval is widened to hold κ itself where the percentiles would leave
    it out."""
    n = int(matrix.sum())
    kappa = float(kappa_of_matrices(matrix.astype(float)))
    if n < 2 or math.isnan(kappa):
        return None
    rng = np.random.default_rng(seed)
    draws = rng.multinomial(n, (matrix / n).ravel(), size=resamples).reshape(resamples, *matrix.shape)
    kappas = kappa_of_matrices(draws.astype(float))
    kappas = kappas[~np.isnan(kappas)]
    if kappas.size == 0:
        return None
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(kappas, [tail, 100.0 - tail])
    # κ's resampling distribution is skewed when agreement is near chance or one label dominates, so with few
    # items its percentiles can both fall on one side of κ; the page prints κ with its interval, which must hold it.
    return (min(float(low), kappa), max(float(high), kappa))
