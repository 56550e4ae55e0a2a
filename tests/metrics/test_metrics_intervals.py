"""Intervals that mean what they say (DESIGN §5): run scores by topic bootstrap, τ by jackknife, κ by
resampling items; each holds its estimate, none from fewer than 5 topics. Also Krippendorff's alpha and each label's figures."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import krippendorff
import numpy as np
import pytest
from scipy.stats import kendalltau, norm
from sklearn.metrics import cohen_kappa_score, confusion_matrix

from metrics.agreement import label_agreement
from metrics.bootstrap import MIN_TOPICS, kappa_of_matrices, run_intervals, tau_interval


def _random_matrices(count: int) -> Iterator[tuple[np.ndarray, np.ndarray]]:
    """Pairs of runs x topics matrices of many shapes, with ties, constant runs and an undefined τ."""
    rng = np.random.default_rng(20)
    for k in range(count):
        runs, topics = int(rng.integers(2, 31)), int(rng.integers(5, 41))
        a = rng.random((runs, topics))
        if k % 4 == 0:
            a = np.round(a, 1)  # many ties
        if k % 7 == 0:
            a[0] = 0.3  # a constant run (0.3 is not exact in binary: its resampled means round differently)
        b = np.clip(a + rng.normal(0, rng.uniform(0.01, 0.5), a.shape), 0, 1)
        if k % 13 == 0:
            b[:] = 0.25  # every run equal for b: τ undefined
        yield a, b


def test_it_gives_run_intervals_that_hold_the_run_mean_on_random_data():
    for a, _ in _random_matrices(200):
        for interval, mean in zip(run_intervals(a, resamples=200, seed=1), a.mean(axis=1), strict=True):
            assert interval.low <= mean <= interval.high


def test_it_gives_tau_intervals_that_hold_tau_on_random_data():
    undefined = 0
    for a, b in _random_matrices(200):
        tau = kendalltau(a.mean(axis=1), b.mean(axis=1)).statistic
        interval = tau_interval(a, b)
        if np.isnan(tau):
            undefined += 1
            assert (interval.low, interval.high) == (None, None)
        else:
            assert -1.0 <= interval.low <= tau <= interval.high <= 1.0
    assert undefined > 0  # the undefined case was exercised


def test_it_gives_no_interval_from_fewer_than_five_topics():
    # given
    rng = np.random.default_rng(1)
    a = rng.random((6, MIN_TOPICS - 1))
    b = a + rng.normal(0, 0.1, a.shape)

    # when
    runs = run_intervals(a)
    tau = tau_interval(a, b)

    # then
    assert {(i.low, i.high) for i in runs} == {(None, None)}
    assert (tau.low, tau.high) == (None, None)


def test_it_gives_intervals_from_five_topics():
    # given
    rng = np.random.default_rng(1)
    a = rng.random((6, MIN_TOPICS))
    b = a + rng.normal(0, 0.1, a.shape)

    # when
    runs = run_intervals(a)
    tau = tau_interval(a, b)

    # then
    assert all(i.low is not None and i.high is not None for i in runs)
    assert tau.low is not None
    assert tau.high is not None


def test_it_bootstraps_run_intervals_like_a_plain_percentile_bootstrap_of_the_mean():
    # given
    rng = np.random.default_rng(3)
    per_topic = rng.random((3, 25))

    # when
    intervals = run_intervals(per_topic, resamples=4000, seed=5)

    # then: a plain numpy percentile bootstrap of each run's mean over resampled topics
    draws = rng.integers(0, 25, size=(4000, 25))
    for run, interval in enumerate(intervals):
        low, high = np.percentile(per_topic[run][draws].mean(axis=1), [2.5, 97.5])
        assert interval.low == pytest.approx(low, abs=0.02)
        assert interval.high == pytest.approx(high, abs=0.02)


def test_it_gives_the_delete_one_topic_jackknife_interval_of_tau():
    # given
    rng = np.random.default_rng(4)
    a, b = rng.random((4, 6)), rng.random((4, 6))

    # when
    interval = tau_interval(a, b)

    # then: by hand, with scipy's τ and each topic left out in turn
    tau = kendalltau(a.mean(axis=1), b.mean(axis=1)).statistic
    left_out = np.array(
        [
            kendalltau(np.delete(a, i, axis=1).mean(axis=1), np.delete(b, i, axis=1).mean(axis=1)).statistic
            for i in range(6)
        ]
    )
    se = np.sqrt(5 / 6 * ((left_out - left_out.mean()) ** 2).sum())
    z = norm.ppf(0.975)
    assert se > 0
    assert interval.low == pytest.approx(max(-1.0, tau - z * se))
    assert interval.high == pytest.approx(min(1.0, tau + z * se))


def test_it_counts_runs_tied_over_the_other_topics_as_tied_in_the_jackknife():
    # given: scores on a 0.1 grid, run 1 the same scores as run 0 in another topic order
    rng = np.random.default_rng(8)
    tenths_a = rng.integers(0, 11, (6, 12))
    tenths_a[1] = rng.permutation(tenths_a[0])
    tenths_b = np.clip(tenths_a + rng.integers(-2, 3, tenths_a.shape), 0, 10)
    tenths_b[1] = tenths_b[0]

    # when
    interval = tau_interval(tenths_a / 10, tenths_b / 10)

    # then: the jackknife by hand in whole tenths, where ties are exact
    tau = kendalltau(tenths_a.sum(axis=1), tenths_b.sum(axis=1)).statistic
    left_out = np.array(
        [
            kendalltau(np.delete(tenths_a, i, axis=1).sum(axis=1), np.delete(tenths_b, i, axis=1).sum(axis=1)).statistic
            for i in range(12)
        ]
    )
    se = np.sqrt(11 / 12 * ((left_out - left_out.mean()) ** 2).sum())
    z = norm.ppf(0.975)
    assert interval.low == pytest.approx(max(-1.0, tau - z * se))
    assert interval.high == pytest.approx(min(1.0, tau + z * se))


def test_it_gives_a_kappa_interval_that_holds_kappa():
    # given
    rng = np.random.default_rng(6)
    a = rng.integers(0, 3, 400)
    b = np.where(rng.random(400) < 0.6, a, rng.integers(0, 3, 400))

    # when
    result = label_agreement(a, b, seed=2)

    # then
    assert result.kappa_ci is not None
    assert result.kappa is not None
    assert result.kappa_ci[0] < result.kappa < result.kappa_ci[1]
    assert result.kappa_ci[1] - result.kappa_ci[0] < 0.2


def test_it_gives_the_same_kappa_interval_for_the_same_seed():
    rng = np.random.default_rng(7)
    a, b = rng.integers(0, 3, 50), rng.integers(0, 3, 50)

    assert label_agreement(a, b, seed=3).kappa_ci == label_agreement(a, b, seed=3).kappa_ci


def test_it_computes_each_resampled_kappa_as_scikit_learn_does():
    # given: label pairs drawn at several agreement rates, and one side with a single label
    rng = np.random.default_rng(11)
    cases = []
    for agree in (0.0, 0.3, 0.9):
        a = rng.integers(0, 3, 60)
        cases.append((a, np.where(rng.random(60) < agree, a, rng.integers(0, 3, 60))))
    cases.append((np.zeros(10, dtype=int), rng.integers(0, 3, 10)))
    matrices = np.array([confusion_matrix(a, b, labels=[0, 1, 2]) for a, b in cases], dtype=float)

    # when
    kappas = kappa_of_matrices(matrices)

    # then
    assert kappas == pytest.approx([cohen_kappa_score(a, b, labels=[0, 1, 2]) for a, b in cases])


def test_it_gives_no_kappa_interval_from_one_item():
    assert label_agreement(["FS"], ["NS"]).kappa_ci is None


def test_it_gives_krippendorffs_ordinal_alpha():
    # given
    rng = np.random.default_rng(6)
    a = rng.integers(0, 3, 400)
    b = np.where(rng.random(400) < 0.6, a, rng.integers(0, 3, 400))

    # when
    result = label_agreement(a, b)

    # then
    assert result.alpha_ordinal == pytest.approx(
        krippendorff.alpha(reliability_data=np.vstack([a, b]), level_of_measurement="ordinal", value_domain=[0, 1, 2])
    )


def test_it_gives_an_alpha_of_one_for_identical_labels():
    labels = ["NS", "PS", "FS", "FS", "PS", "NS", "FS"]

    assert label_agreement(labels, list(labels)).alpha_ordinal == pytest.approx(1.0)


def test_it_gives_each_labels_precision_and_recall_of_one_set_against_the_other():
    # given: a = human, b = LLM
    a = ["FS", "FS", "FS", "PS", "NS", "NS"]
    b = ["FS", "FS", "PS", "FS", "NS", "FS"]

    # when
    figures = label_agreement(a, b).per_label

    # then: the LLM says FS 4 times, 2 of them the human's FS (precision 2/4); of the human's 3 FS, the LLM
    # says FS to 2 (recall 2/3). NS: the LLM's one NS is the human's; of the human's 2 NS it keeps 1. PS: the
    # one PS each gave are on different items.
    assert figures == {
        "NS": {"precision": 1.0, "recall": 0.5, "support_a": 2, "support_b": 1},
        "PS": {"precision": 0.0, "recall": 0.0, "support_a": 1, "support_b": 1},
        "FS": {"precision": 0.5, "recall": 2 / 3, "support_a": 3, "support_b": 4},
    }


def test_it_gives_no_precision_for_a_label_one_side_never_gave():
    figures = label_agreement(["FS", "NS"], ["FS", "FS"]).per_label

    assert figures["NS"] == {"precision": None, "recall": 0.0, "support_a": 1, "support_b": 0}
    assert figures["PS"] == {"precision": None, "recall": None, "support_a": 0, "support_b": 0}


def test_it_matches_the_sources_figures_for_nist_against_opus_on_the_excerpt(data_dir: Path):
    # given: rows = NIST's human labels, columns = Opus's
    with (data_dir / "excerpts" / "opus48_nist_verdicts.excerpt.jsonl").open() as lines:
        rows = [json.loads(line) for line in lines]

    # when
    result = label_agreement([r["human_label"] for r in rows], [r["opus_nist_label"] for r in rows])

    # then
    assert (result.n, round(result.agreement, 4), round(result.kappa, 4)) == (131, 0.4427, 0.2182)
    assert result.labels == ("NS", "PS", "FS")
    assert result.matrix == [[15, 31, 23], [1, 10, 12], [2, 4, 33]]
