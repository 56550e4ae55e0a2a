"""The assessor's figures beside the progress: pairs judged today and pairs per hour in the working session
(judging/session.py holds the rule)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from django.db import connection
from django.test import Client
from django.test.utils import CaptureQueriesContext

from judging import queue, services
from judging.models import Condition, Judgment
from judging.session import SESSION_ROWS, assessor_session_figures, session_figures
from tests.factories import UserFactory, judging_campaign_build

NOW = datetime(2026, 12, 2, 15, 0, tzinfo=UTC)
MIDNIGHT = datetime(2026, 12, 2, tzinfo=UTC)


def _minutes_ago(*minutes: float, pairs: list[int] | None = None) -> list[tuple[datetime, int]]:
    """(created_at, pair_id), newest first; pair k by default."""
    ids = pairs or list(range(len(minutes)))
    return [(NOW - timedelta(minutes=m), p) for m, p in zip(minutes, ids, strict=True)]


def test_it_measures_the_pace_over_the_gaps_between_judgments_of_the_session():
    # 13 judgments one every 30 s: 12 gaps in 6 minutes -> 120 pairs an hour
    figures = session_figures(_minutes_ago(*[k * 0.5 for k in range(13)]), now=NOW, today=0)

    assert figures.session_pairs == 13
    assert figures.session_minutes == pytest.approx(6.0)
    assert figures.per_hour == pytest.approx(120.0)


def test_it_ends_the_session_at_a_gap_of_more_than_ten_minutes():
    # 6 judgments a minute apart, a 15-minute break, then 20 earlier ones
    recent = [k * 1.0 for k in range(6)]
    earlier = [20.0 + k for k in range(20)]
    figures = session_figures(_minutes_ago(*recent, *earlier), now=NOW, today=0)

    assert figures.session_pairs == 6
    assert figures.per_hour == pytest.approx(5 / (5 / 60))


def test_it_keeps_a_gap_of_exactly_ten_minutes_in_the_session():
    figures = session_figures(_minutes_ago(0, 1, 2, 3, 4, 14), now=NOW, today=0)

    assert figures.session_pairs == 6


def test_it_shows_no_pace_once_the_last_judgment_is_over_ten_minutes_old():
    figures = session_figures(_minutes_ago(11, 12, 13, 14, 15, 16), now=NOW, today=0)

    assert figures.session_pairs == 0
    assert figures.per_hour is None


def test_it_shows_no_pace_for_fewer_than_five_pairs_or_under_a_minute():
    assert session_figures(_minutes_ago(0, 1, 2, 3), now=NOW, today=0).per_hour is None
    assert session_figures(_minutes_ago(0, 0.1, 0.2, 0.3, 0.4, 0.5), now=NOW, today=0).per_hour is None


def test_it_counts_a_changed_answer_as_one_pair_of_the_session():
    # pair 7 judged three times (twice changed), pair 8 once
    figures = session_figures(_minutes_ago(0, 1, 2, 3, pairs=[7, 8, 7, 7]), now=NOW, today=0)

    assert figures.session_pairs == 2


def _alice_judges(n: int):
    campaign = judging_campaign_build(n_sentences=max(n, 1), passages_per_topic=max(n, 1))
    alice = UserFactory(username="alice")
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    for _ in range(n):
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
        )
    return alice, assignment


def _set_times(*times: datetime) -> None:
    """The judgments' times, oldest judgment first."""
    for judgment, at in zip(Judgment.objects.order_by("pk"), times, strict=True):
        Judgment.objects.filter(pk=judgment.pk).update(created_at=at)


@pytest.mark.django_db
def test_it_counts_today_from_midnight_and_a_changed_answer_once():
    # given: 3 pairs judged, the first yesterday; then the last one judged again (a changed answer)
    alice, assignment = _alice_judges(3)
    back = queue.back_state(assignment=assignment)
    services.judgment_submit(
        assignment=assignment, pair_id=back.card.campaign_pair.pair_id, label="NS", token=back.card.token_uuid
    )
    _set_times(MIDNIGHT - timedelta(minutes=5), MIDNIGHT + timedelta(minutes=1), *[MIDNIGHT + timedelta(minutes=2)] * 2)

    figures = assessor_session_figures(user=alice, now=MIDNIGHT + timedelta(minutes=3))

    assert figures.today == 2
    assert figures.session_pairs == 3  # the session runs across midnight


@pytest.mark.django_db
def test_it_reads_no_more_than_the_newest_judgments_for_the_pace_and_counts_all_of_today():
    alice, _ = _alice_judges(SESSION_ROWS + 10)
    _set_times(*[NOW - timedelta(seconds=30 * k) for k in reversed(range(SESSION_ROWS + 10))])

    figures = assessor_session_figures(user=alice, now=NOW)

    assert figures.today == SESSION_ROWS + 10
    assert figures.session_pairs == SESSION_ROWS
    assert figures.per_hour == pytest.approx(120.0)


@pytest.mark.django_db
def test_it_reads_the_figures_in_one_query_from_the_assessors_own_judgments():
    # given: alice judged 3 pairs, bob 1
    campaign = judging_campaign_build(n_sentences=6, passages_per_topic=6)
    topic = campaign.topics.get()
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    for user, n in ((alice, 3), (bob, 1)):
        (assignment,) = services.assignments_create(
            campaign=campaign, assessor=user, topics=[topic], condition=Condition.FROM_SCRATCH
        )
        for _ in range(n):
            card = queue.queue_state(assignment=assignment).card
            services.judgment_submit(
                assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
            )

    with CaptureQueriesContext(connection) as queries:
        figures = assessor_session_figures(user=alice)

    assert len(queries) == 1
    assert figures.today == 3
    assert figures.session_pairs == 3


@pytest.mark.django_db
def test_it_shows_the_figures_beside_the_progress_and_updates_them_with_each_card():
    campaign = judging_campaign_build(n_sentences=8, passages_per_topic=8)
    alice = UserFactory(username="alice")
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    client = Client()
    client.force_login(alice)
    assert '<b id="judged-today">0</b>' in client.get(f"/judge/{assignment.pk}/").content.decode()

    # when: six judgments, a minute apart (their times set as if judged over the last five minutes)
    for _ in range(6):
        card = queue.queue_state(assignment=assignment).card
        html = client.post(
            f"/judge/{assignment.pk}/submit/",
            {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "NS"},
            headers={"HX-Request": "true"},
        ).content.decode()
    now = datetime.now(UTC)
    for k, judgment in enumerate(Judgment.objects.order_by("-pk")):
        Judgment.objects.filter(pk=judgment.pk).update(created_at=now - timedelta(minutes=k))
    html = client.get(f"/judge/{assignment.pk}/").content.decode()

    # then: 6 pairs today; 5 gaps over 5 minutes = 60 pairs an hour
    assert '<b id="judged-today">6</b> pairs' in html
    assert '<b id="pairs-per-hour">60</b> pairs/hour' in html
