"""Sentence scores per run (issue 26), pure numpy over a label set's sentence labels, no queries.

- combined_judged: sentences with a combined label (NS, PS or FS);
- combined_full, combined_partial_or_full: of those, the share labelled FS, and PS or FS;
- needs_citation_uncited: sentences that need a citation and have none, of all the run's labelled sentences.

Each share is a ratio of sums over the run's sentences, so its 95% interval resamples the run's topics and
recomputes the ratio (a percentile bootstrap with metrics.bootstrap's seed, resamples and topic minimum, the
minimum counted over the topics the share's denominator has sentences in; an interval holds its estimate, as
there). `metrics.bootstrap.run_intervals` bootstraps a mean of per-topic scores, which is not this figure.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.bootstrap import DEFAULT_RESAMPLES, DEFAULT_SEED, MIN_TOPICS, NO_INTERVAL, Interval

FULL, PARTIAL = 2, 1
SHARES = ("combined_full", "combined_partial_or_full", "needs_citation_uncited")


@dataclass(frozen=True)
class RunSentenceScores:
    run_id: str
    sentences: int
    topics: int
    combined_judged: int
    combined_full: float | None
    combined_partial_or_full: float | None
    needs_citation_uncited: float | None
    intervals: dict[str, Interval]

    @property
    def panel_cells(self) -> list[tuple[float | None, Interval]]:
        """Each share with its interval, in SHARES' order."""
        return [(getattr(self, name), self.intervals[name]) for name in SHARES]


def ratio_interval(
    numerators: np.ndarray,
    denominators: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
    level: float = 0.95,
) -> Interval:
    """Percentile bootstrap over topics of sum(numerators) / sum(denominators), one entry per topic. No interval
    unless MIN_TOPICS topics hold part of the denominator: a share whose sentences sit in one topic would get an
    interval of width 0, which says nothing."""
    topics = len(numerators)
    total = float(denominators.sum())
    if int((denominators > 0).sum()) < MIN_TOPICS or resamples <= 0 or total == 0:
        return NO_INTERVAL
    estimate = float(numerators.sum()) / total
    draws = np.random.default_rng(seed).integers(0, topics, size=(resamples, topics))
    num, den = numerators[draws].sum(axis=1), denominators[draws].sum(axis=1)
    ratios = num[den > 0] / den[den > 0]
    if ratios.size == 0:
        return NO_INTERVAL
    tail = (1.0 - level) / 2.0 * 100.0
    low, high = np.percentile(ratios, [tail, 100.0 - tail])
    return Interval(min(float(low), estimate), max(float(high), estimate))


def run_sentence_scores(
    run_id: str,
    topic_index: np.ndarray,
    worthy: np.ndarray,
    combined: np.ndarray,
    cited: np.ndarray,
    *,
    resamples: int = DEFAULT_RESAMPLES,
    seed: int = DEFAULT_SEED,
) -> RunSentenceScores:
    """One run's scores from its labelled sentences (aligned arrays; combined -1 where there is none)."""
    topics, per_topic = np.unique(topic_index, return_inverse=True)
    n_topics = len(topics)

    def per(mask: np.ndarray) -> np.ndarray:
        return np.bincount(per_topic, weights=mask.astype(float), minlength=n_topics)

    judged, full, partial = combined >= 0, combined == FULL, combined >= PARTIAL
    uncited = (worthy == 1) & ~cited
    every = np.ones(len(worthy), dtype=bool)
    parts = {
        "combined_full": (per(full), per(judged)),
        "combined_partial_or_full": (per(partial), per(judged)),
        "needs_citation_uncited": (per(uncited), per(every)),
    }
    values = {name: (float(n.sum()) / float(d.sum()) if d.sum() else None) for name, (n, d) in parts.items()}
    intervals = {name: ratio_interval(n, d, resamples=resamples, seed=seed) for name, (n, d) in parts.items()}
    return RunSentenceScores(
        run_id=run_id,
        sentences=len(worthy),
        topics=n_topics,
        combined_judged=int(judged.sum()),
        combined_full=values["combined_full"],
        combined_partial_or_full=values["combined_partial_or_full"],
        needs_citation_uncited=values["needs_citation_uncited"],
        intervals=intervals,
    )
