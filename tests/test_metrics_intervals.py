"""Intervals that mean what they say (DESIGN §5): run scores by topic bootstrap, τ by jackknife, κ by
resampling items; each holds its estimate, none from fewer than 5 topics."""

from __future__ import annotations

import json

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, norm

from metrics.agreement import label_agreement
from metrics.bootstrap import MIN_TOPICS, run_intervals, tau_interval


def _random_matrices(count: int):
    rng = np.random.default_rng(20)
    for k in range(count):
        runs, topics = int(rng.integers(2, 31)), int(rng.integers(5, 41))
        a = rng.random((runs, topics))
        if k % 4 == 0:
            a = np.round(a, 1)  # many ties
        if k % 7 == 0:
            a[0] = 0.5  # a constant run
        b = np.clip(a + rng.normal(0, rng.uniform(0.01, 0.5), a.shape), 0, 1)
        yield a, b


def test_every_interval_holds_its_estimate_on_random_data():
    for a, b in _random_matrices(200):
        for interval, mean in zip(run_intervals(a, resamples=200, seed=1), a.mean(axis=1), strict=True):
            assert interval.low <= mean <= interval.high
        tau = kendalltau(a.mean(axis=1), b.mean(axis=1)).statistic
        interval = tau_interval(a, b)
        if np.isnan(tau):
            assert interval.low is None
        else:
            assert interval.low <= tau <= interval.high


def test_it_gives_no_interval_from_fewer_than_five_topics():
    rng = np.random.default_rng(1)
    a = rng.random((6, MIN_TOPICS - 1))

    assert {(i.low, i.high) for i in run_intervals(a)} == {(None, None)}
    assert (tau_interval(a, a + 0.1).low, tau_interval(a, a + 0.1).high) == (None, None)


def test_the_run_interval_is_a_percentile_bootstrap_of_the_mean_over_topics():
    # given
    rng = np.random.default_rng(3)
    per_topic = rng.random((3, 25))

    # when
    (interval, *_rest) = run_intervals(per_topic, resamples=4000, seed=5)

    # then: a plain numpy percentile bootstrap of the first run's mean
    draws = rng.integers(0, 25, size=(4000, 25))
    means = per_topic[0][draws].mean(axis=1)
    low, high = np.percentile(means, [2.5, 97.5])
    assert interval.low == pytest.approx(low, abs=0.02)
    assert interval.high == pytest.approx(high, abs=0.02)


def test_the_tau_interval_is_the_delete_one_topic_jackknife():
    # given
    rng = np.random.default_rng(4)
    a, b = rng.random((4, 6)), rng.random((4, 6))

    # when
    interval = tau_interval(a, b)

    # then: by hand, with scipy's τ
    tau = kendalltau(a.mean(axis=1), b.mean(axis=1)).statistic
    left_out = np.array(
        [
            kendalltau(np.delete(a, i, axis=1).mean(axis=1), np.delete(b, i, axis=1).mean(axis=1)).statistic
            for i in range(6)
        ]
    )
    se = np.sqrt(5 / 6 * ((left_out - left_out.mean()) ** 2).sum())
    z = norm.ppf(0.975)
    assert interval.low == pytest.approx(max(-1.0, tau - z * se))
    assert interval.high == pytest.approx(min(1.0, tau + z * se))


def test_the_kappa_interval_holds_kappa_and_alpha_is_krippendorffs():
    rng = np.random.default_rng(6)
    a = rng.integers(0, 3, 400)
    b = np.where(rng.random(400) < 0.6, a, rng.integers(0, 3, 400))

    result = label_agreement(a, b, seed=2)

    assert result.kappa_ci[0] <= result.kappa <= result.kappa_ci[1]
    assert result.kappa_ci[1] - result.kappa_ci[0] < 0.2
    assert result.alpha_ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=np.vstack([a, b]), level_of_measurement="ordinal", value_domain=[0, 1, 2])
    )
    assert label_agreement(a, a).alpha_ordinal == pytest.approx(1.0)


def test_it_gives_each_labels_precision_and_recall_of_one_set_against_the_other():
    # given: a = human, b = LLM
    a = ["FS", "FS", "FS", "PS", "NS", "NS"]
    b = ["FS", "FS", "PS", "FS", "NS", "FS"]

    # when
    figures = label_agreement(a, b).per_label

    # then: the LLM says FS 4 times, 2 of them the human's FS; the human's 3 FS, the LLM keeps 2
    assert figures["FS"] == {"precision": 0.5, "recall": 2 / 3, "support_a": 3, "support_b": 4}
    assert figures["NS"] == {"precision": 1.0, "recall": 0.5, "support_a": 2, "support_b": 1}
    assert figures["PS"]["precision"] == 0.0


def test_it_matches_the_sources_figures_for_nist_against_opus_on_the_excerpt(data_dir):
    rows = [json.loads(line) for line in (data_dir / "excerpts" / "opus48_nist_verdicts.excerpt.jsonl").open()]

    result = label_agreement([r["human_label"] for r in rows], [r["opus_nist_label"] for r in rows])

    assert (result.n, round(result.agreement, 4), round(result.kappa, 4)) == (131, 0.4427, 0.2182)
    assert result.matrix == [[15, 31, 23], [1, 10, 12], [2, 4, 33]]
