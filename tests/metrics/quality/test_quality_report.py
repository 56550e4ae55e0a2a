"""The assessor quality figures on a small known campaign (conftest.py), each checked against a plain-Python
computation written here, independent of metrics/quality/stats.py."""

from __future__ import annotations

import itertools
from datetime import UTC, datetime, timedelta

import pytest

from judging.session import active_time
from metrics.quality import stats
from metrics.quality.selectors import quality_report
from tests.metrics.quality.conftest import ALICE_CORRECTION, LABELS, LLM, MINUTES, NIST, SECONDS

pytestmark = pytest.mark.django_db


def _median(values: list[float]) -> float:
    ordered = sorted(values)
    middle = len(ordered) // 2
    return ordered[middle] if len(ordered) % 2 else (ordered[middle - 1] + ordered[middle]) / 2


def _p90(values: list[float]) -> float:
    ordered = sorted(values)
    position = 0.9 * (len(ordered) - 1)
    low = int(position)
    high = min(low + 1, len(ordered) - 1)
    return ordered[low] + (ordered[high] - ordered[low]) * (position - low)


def _kappa(a: list[str], b: list[str]) -> float:
    n = len(a)
    observed = sum(x == y for x, y in zip(a, b, strict=True)) / n
    expected = sum((a.count(label) / n) * (b.count(label) / n) for label in ("FS", "PS", "NS"))
    return (observed - expected) / (1 - expected)


def _both(a: list[str], b: list[str]) -> tuple[list[str], list[str]]:
    kept = [(x, y) for x, y in zip(a, b, strict=False) if x and y]
    return [x for x, _ in kept], [y for _, y in kept]


def _row(report, name: str):
    return next(r for r in report.rows if r.rater.username == name)


ALICE_NOW = [*LABELS["alice"][:7], ALICE_CORRECTION[0]]


def test_it_gives_one_row_per_assessor_and_condition_named_as_its_label_set(known):
    report = quality_report(campaign=known.campaign)

    assert [r.rater.spec for r in report.rows] == ["alice/from_scratch", "bob/from_scratch", "carol/from_scratch"]


def test_it_counts_judgments_with_corrections_and_pairs_once(known):
    alice = _row(quality_report(campaign=known.campaign), "alice").figures

    assert (alice.judgments, alice.pairs, alice.labelled) == (9, 8, 8)


def test_it_gives_median_and_p90_seconds_over_every_judgment(known):
    alice = _row(quality_report(campaign=known.campaign), "alice").figures
    seconds = SECONDS["alice"] + [ALICE_CORRECTION[1]]

    assert alice.median_seconds == pytest.approx(_median(seconds))
    assert alice.p90_seconds == pytest.approx(_p90(seconds))


def test_it_sums_the_gaps_of_at_most_ten_minutes_as_active_hours(known):
    report = quality_report(campaign=known.campaign)
    for name in ("alice", "bob", "carol"):
        minutes = sorted(MINUTES[name] + ([ALICE_CORRECTION[2]] if name == "alice" else []))
        gaps = [later - earlier for earlier, later in itertools.pairwise(minutes)]
        expected_hours = sum(g for g in gaps if g <= 10) / 60

        assert _row(report, name).figures.active_hours == pytest.approx(expected_hours), name


def test_it_shares_labels_over_labelled_pairs_and_rates_cannot_judge_over_pairs_judged(known):
    bob = _row(quality_report(campaign=known.campaign), "bob").figures
    labelled = [label for label in LABELS["bob"] if label]

    assert bob.shares == {label: pytest.approx(labelled.count(label) / len(labelled)) for label in ("FS", "PS", "NS")}
    assert bob.cannot_judge == 1
    assert bob.cannot_judge_rate == pytest.approx(1 / 8)
    assert bob.flags == 1


def test_it_measures_agreement_between_assessors_on_the_pairs_both_labelled(known):
    alice = _row(quality_report(campaign=known.campaign), "alice")
    a, b = _both(ALICE_NOW, LABELS["bob"])

    figure = alice.assessors["bob/from_scratch"]

    assert figure.n == len(a) == 7
    assert figure.exact == pytest.approx(sum(x == y for x, y in zip(a, b, strict=True)) / len(a))
    assert figure.kappa == pytest.approx(_kappa(a, b))
    assert figure.kappa_low <= figure.kappa <= figure.kappa_high


def test_it_measures_the_same_agreement_from_either_side(known):
    report = quality_report(campaign=known.campaign)

    assert (
        _row(report, "carol").assessors["alice/from_scratch"] == _row(report, "alice").assessors["carol/from_scratch"]
    )
    assert _row(report, "carol").assessors["alice/from_scratch"].n == 5


def test_it_measures_agreement_with_the_llm_label_set_per_citation(known):
    bob = _row(quality_report(campaign=known.campaign), "bob")
    a, b = _both(LABELS["bob"], LLM)

    figure = bob.references["gpt-known/none"]

    assert figure.n == len(a) == 7
    assert figure.kappa == pytest.approx(_kappa(a, b))
    assert figure.exact == pytest.approx(sum(x == y for x, y in zip(a, b, strict=True)) / len(a))


def test_it_measures_agreement_with_nist_where_its_labels_are_loaded(known):
    report = quality_report(campaign=known.campaign)
    alice = _row(report, "alice")

    figure = alice.references["nist/from_scratch"]

    assert [r.spec for r in report.references] == ["gpt-known/none", "nist/from_scratch"]
    assert figure.n == 8
    assert figure.kappa == pytest.approx(_kappa(ALICE_NOW, NIST))


def test_it_measures_drift_against_nist_first(known):
    report = quality_report(campaign=known.campaign)
    carol = _row(report, "carol")
    agreed = sum(x == y for x, y in zip(LABELS["carol"], NIST, strict=False))

    assert report.drift_reference.spec == "nist/from_scratch"
    assert len(carol.drift) == 1
    assert (carol.drift[0].first, carol.drift[0].last, carol.drift[0].compared) == (1, 5, 5)
    assert carol.drift[0].agreement == pytest.approx(agreed / 5)
    assert carol.drift[0].median_seconds == pytest.approx(_median(SECONDS["carol"]))


def test_it_shows_nothing_rather_than_zero_for_an_assessor_who_judged_nothing(known):
    from judging import services
    from tests.factories import UserFactory

    dave = UserFactory(username="dave")
    services.assignments_create(
        campaign=known.campaign, assessor=dave, topics=list(known.campaign.topics.all()), condition="from_scratch"
    )

    row = _row(quality_report(campaign=known.campaign), "dave")

    assert row.figures.judgments == 0
    assert row.figures.median_seconds is None
    assert row.figures.active_hours is None
    assert row.figures.shares == {"FS": None, "PS": None, "NS": None}
    assert row.figures.cannot_judge_rate is None
    assert row.assessors["alice/from_scratch"].n == 0
    assert row.assessors["alice/from_scratch"].kappa is None
    assert row.references["nist/from_scratch"].exact is None


# --- the pure functions on plain data ------------------------------------------------------------------

T0 = datetime(2026, 1, 1, tzinfo=UTC)


def _rows(labels: list[str], seconds: list[float]) -> list[stats.JudgmentRow]:
    return [
        stats.JudgmentRow(k + 1, 100 + k, 200 + k, label, s, T0 + timedelta(minutes=k), False)
        for k, (label, s) in enumerate(zip(labels, seconds, strict=True))
    ]


def test_drift_gives_each_block_its_median_seconds_and_agreement_with_the_reference():
    # given: 7 judgments in blocks of 3; the reference labels every citation FS except the 5th's
    rows = _rows(["FS", "NS", "FS", "PS", "FS", "", "FS"], [1, 2, 3, 10, 20, 30, 40])
    reference = {200 + k: "FS" for k in range(7) if k != 4}

    blocks = stats.drift(rows, reference, block=3)

    assert [(b.first, b.last) for b in blocks] == [(1, 3), (4, 6), (7, 7)]
    assert [b.median_seconds for b in blocks] == [2, 20, 40]
    assert [b.compared for b in blocks] == [3, 1, 1]  # the blank label and the unlabelled citation are left out
    assert [b.agreement for b in blocks] == [pytest.approx(2 / 3), 0.0, 1.0]


def test_gold_accuracy_counts_labelled_gold_pairs_only():
    current = {1: "FS", 2: "NS", 3: "", 9: "PS"}
    gold = {1: "FS", 2: "PS", 3: "NS", 4: "FS"}

    figure = stats.gold_accuracy(current, gold)

    assert (figure.gold, figure.labelled, figure.correct, figure.cannot_judge) == (4, 2, 1, 1)
    assert figure.accuracy == pytest.approx(0.5)


def test_gold_accuracy_is_none_when_no_gold_pair_was_labelled():
    assert stats.gold_accuracy({9: "FS"}, {1: "FS"}).accuracy is None


def test_agreement_is_undefined_not_zero_when_both_sides_give_one_label():
    figure = stats.agreement([2, 2, 2], [2, 2, 2])

    assert figure.n == 3
    assert figure.exact == 1.0
    assert figure.kappa is None


def test_active_time_leaves_out_gaps_longer_than_ten_minutes():
    times = [T0, T0 + timedelta(minutes=4), T0 + timedelta(minutes=14), T0 + timedelta(minutes=24, seconds=1)]

    assert active_time(reversed(times)) == timedelta(minutes=14)
