"""The sentence scores' pure functions: shares by hand, and the topic bootstrap of a ratio."""

from __future__ import annotations

import numpy as np
import pytest

from kinds.sentence.scores import ratio_interval, run_sentence_scores


def test_the_shares_of_one_run_by_hand():
    # given: 3 topics; combined FS, PS, NS, none; worthy sentences without citation: the last two
    topic = np.array([0, 0, 1, 2, 2, 2])
    worthy = np.array([1, 1, 1, 0, 1, 1])
    combined = np.array([2, 1, 0, -1, -1, -1])
    cited = np.array([True, True, True, True, False, False])

    # when
    scores = run_sentence_scores("r", topic, worthy, combined, cited, resamples=0)

    # then
    assert (scores.sentences, scores.topics, scores.combined_judged) == (6, 3, 3)
    assert scores.combined_full == pytest.approx(1 / 3)
    assert scores.combined_partial_or_full == pytest.approx(2 / 3)
    assert scores.needs_citation_uncited == pytest.approx(2 / 6)
    assert all(i.low is None for i in scores.intervals.values())


def test_the_ratio_interval_holds_the_estimate_and_needs_five_topics_that_count():
    rng = np.random.default_rng(1)
    den = rng.integers(1, 20, size=12).astype(float)
    num = np.floor(den * rng.random(12))
    interval = ratio_interval(num, den, resamples=500, seed=3)
    estimate = num.sum() / den.sum()
    assert interval.low is not None
    assert interval.high is not None
    assert interval.low <= estimate <= interval.high
    assert interval.high - interval.low > 0
    # all of the denominator in four topics: no interval, however many topics there are
    few = np.array([3.0, 2, 1, 4] + [0] * 8)
    assert ratio_interval(np.minimum(few, 1), few, resamples=500).low is None
