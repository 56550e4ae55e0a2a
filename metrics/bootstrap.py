"""95% bootstrap confidence intervals by resampling topics with a fixed seed (beyond the paper).

Each resample draws as many topics as there are, with replacement; a run's score on a resample is its
mean over the drawn topics, as the run score is its mean over all topics.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

DEFAULT_RESAMPLES = 1000
DEFAULT_SEED = 20241025


@dataclass(frozen=True)
class Interval:
    low: float | None
    high: float | None


def _interval(values: np.ndarray, level: float) -> Interval:
    values = values[~np.isnan(values)]
    if values.size == 0:
        return Interval(None, None)
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(values, [tail, 100.0 - tail])
    return Interval(float(low), float(high))


def topic_samples(n_topics: int, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED) -> np.ndarray:
    """(resamples x n_topics) topic indexes drawn with replacement; the same seed gives the same draws."""
    rng = np.random.default_rng(seed)
    return rng.integers(0, n_topics, size=(resamples, n_topics))


def resampled_means(per_topic: np.ndarray, samples: np.ndarray) -> np.ndarray:
    """(resamples x runs) run means over each resample's topics, from a (runs x topics) matrix."""
    if per_topic.shape[1] == 0:
        return np.zeros((samples.shape[0], per_topic.shape[0]))
    resamples, n_topics = samples.shape
    # How often each resample drew each topic; a run's resampled mean is then one matrix product.
    flat = (samples + np.arange(resamples)[:, None] * n_topics).ravel()
    counts = np.bincount(flat, minlength=resamples * n_topics).reshape(resamples, n_topics)
    return (counts @ per_topic.T) / n_topics


def run_intervals(
    per_topic: np.ndarray, *, resamples: int = DEFAULT_RESAMPLES, seed: int = DEFAULT_SEED, level: float = 0.95
) -> list[Interval]:
    """One interval per run (row of the runs x topics matrix)."""
    if per_topic.shape[1] == 0:
        return [Interval(None, None) for _ in range(per_topic.shape[0])]
    means = resampled_means(per_topic, topic_samples(per_topic.shape[1], resamples=resamples, seed=seed))
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(means, [tail, 100.0 - tail], axis=0)
    return [Interval(float(a), float(b)) for a, b in zip(low, high, strict=True)]


def tau_interval(
    per_topic_a: np.ndarray,
    per_topic_b: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """Interval of Kendall τ-b between two judges' run scores; both matrices are runs x the same topics."""
    if per_topic_a.shape != per_topic_b.shape:
        raise ValueError("both matrices must have the same runs and topics")
    runs, topics = per_topic_a.shape
    if runs < 2 or topics == 0:
        return Interval(None, None)
    samples = topic_samples(topics, resamples=resamples, seed=seed)
    a = resampled_means(per_topic_a, samples)
    b = resampled_means(per_topic_b, samples)
    return _interval(kendall_tau_b_rows(a, b), level)


def kendall_tau_b_rows(a: np.ndarray, b: np.ndarray, *, batch: int = 64) -> np.ndarray:
    """Kendall τ-b of each row pair (a[k], b[k]), vectorised over rows: the bootstrap needs a thousand of
    them and scipy's per-call overhead dominates there. Equal to `scipy.stats.kendalltau` (tested):
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
