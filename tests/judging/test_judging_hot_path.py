"""The judging keystroke's cheap reads and writes: the stored queue order, the plain-SQL reads (same answers as
the ORM's), the session user read in plain SQL, and a submit that reads the next pair once."""

from __future__ import annotations

import importlib
from datetime import UTC, datetime

import pytest
from django.apps import apps
from django.db import connection
from django.test.utils import CaptureQueriesContext

from core.sql import aware
from judging import queue, selectors, services
from judging.models import Assignment, CampaignPair, Condition
from judging.pool import assignment_pool
from tests.factories import LLMJudgeFactory, judging_campaign_build

pytestmark = pytest.mark.django_db


def _queue(campaign) -> list[tuple[int, int]]:
    rows = CampaignPair.objects.filter(campaign=campaign).order_by("topic_id", "position")
    return [(cp.pair.passage_id, cp.pair_id) for cp in rows.select_related("pair")]


def test_the_build_numbers_each_topic_queue_by_passage_then_pair():
    campaign = judging_campaign_build(n_sentences=12, passages_per_topic=4)
    positions = list(
        CampaignPair.objects.filter(campaign=campaign).order_by("position").values_list("position", flat=True)
    )
    assert positions == list(range(12))
    assert _queue(campaign) == sorted(_queue(campaign))
    # Three pairs cite each passage, and they come one after the other.
    assert [p for p, _ in _queue(campaign)] == sorted(p for p, _ in _queue(campaign))


def test_the_migration_numbers_existing_pools_as_the_build_does():
    campaign = judging_campaign_build(n_sentences=9, passages_per_topic=3)
    built = _queue(campaign)
    # Scrambled (distinct: the unique constraint holds here, while the migration fills the column before adding it).
    for k, cp in enumerate(CampaignPair.objects.filter(campaign=campaign).order_by("-pk")):
        CampaignPair.objects.filter(pk=cp.pk).update(position=5000 + 7 * k)
    migration = importlib.import_module("judging.migrations.0005_campaignpair_position")
    migration.number_queues(apps, None)
    assert _queue(campaign) == built
    assert sorted(CampaignPair.objects.filter(campaign=campaign).values_list("position", flat=True)) == list(range(9))


def test_the_queue_follows_the_stored_order_and_skips_judged_pairs(assessor):
    campaign = judging_campaign_build(n_sentences=6, passages_per_topic=2)
    topic = campaign.topics.get()
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=assessor, topics=[topic], condition=Condition.FROM_SCRATCH
    )
    assignment = selectors.assessor_assignment_get(user=assessor, assignment_id=assignment.pk)
    expected = [pair for _, pair in _queue(campaign)]
    seen = []
    while (state := queue.queue_state(assignment=assignment)).card is not None:
        card = state.card
        seen.append(card.campaign_pair.pair_id)
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
        )
    assert seen == expected
    assert seen == list(assignment_pool(assignment=assignment).order_by("position").values_list("pair_id", flat=True))
    assert Assignment.objects.get(pk=assignment.pk).status == "done"


def test_the_plain_sql_assignment_has_its_campaign_and_topic_and_defers_the_rest(assessor, organizer):
    campaign = judging_campaign_build()
    campaign.post_edit_judge = LLMJudgeFactory()
    campaign.save()
    topic = campaign.topics.get()
    (made,) = services.assignments_create(
        campaign=campaign, assessor=assessor, topics=[topic], condition=Condition.POST_EDIT
    )
    with CaptureQueriesContext(connection) as queries:
        got = selectors.assessor_assignment_get(user=assessor, assignment_id=made.pk)
        assert got.campaign.name == campaign.name
        assert got.topic.topic_id == topic.topic_id
        assert got.assessor is assessor
        assert (got.condition, got.status, got.created_at) == (Condition.POST_EDIT, made.status, made.created_at)
    assert len(queries) == 1
    # The campaign's summary was not read: reading it loads it, as a deferred field does.
    assert got.campaign.build_summary == campaign.build_summary
    assert selectors.assessor_assignment_get(user=organizer, assignment_id=made.pk) is None


def test_a_datetime_read_in_plain_sql_is_aware_utc_as_the_orm_gives_it():
    naive = datetime(2026, 11, 29, 23, 55, 1, 250000)
    assert aware(naive) == naive.replace(tzinfo=UTC)
    assert aware("2026-11-29 23:55:01.250000") == naive.replace(tzinfo=UTC)
    already = datetime(2026, 11, 29, tzinfo=UTC)
    assert aware(already) is already
    assert aware(None) is None


def test_the_session_user_is_read_with_the_orm_and_an_inactive_user_is_logged_out(client, assessor):
    client.force_login(assessor)
    with CaptureQueriesContext(connection) as queries:
        assert client.get("/judge/").status_code == 200
    assert any('FROM "auth_user" WHERE "auth_user"."id" =' in q["sql"] for q in queries.captured_queries)
    assessor.is_active = False
    assessor.save(update_fields=["is_active"])
    response = client.get("/judge/")
    assert response.status_code == 302
    assert "/accounts/login/" in response["Location"]


def test_a_submit_reads_the_next_pair_once_and_writes_in_a_few_statements(assessor):
    campaign = judging_campaign_build(n_sentences=8)
    (made,) = services.assignments_create(
        campaign=campaign, assessor=assessor, topics=[campaign.topics.get()], condition=Condition.FROM_SCRATCH
    )
    assignment = selectors.assessor_assignment_get(user=assessor, assignment_id=made.pk)
    card = queue.queue_state(assignment=assignment).card
    with CaptureQueriesContext(connection) as queries:
        _, state = services.judgment_submit_and_next(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="PS", token=card.token_uuid
        )
    sql = [q["sql"] for q in queries.captured_queries]
    # Check, insert; the next pair with its card and its answer (the assessor's assignments came with the
    # assignment, progress is cached).
    assert len(sql) == 3, sql
    assert sum("FROM judging_campaignpair cp" in q and "NOT EXISTS" in q for q in sql) == 1, sql
    assert state.card is not None
    assert state.card.campaign_pair.pair_id != card.campaign_pair.pair_id
    assert state.topic_progress.done == 1


def test_the_last_submit_of_a_topic_marks_the_assignment_done_without_another_read(assessor):
    campaign = judging_campaign_build(n_sentences=2)
    (made,) = services.assignments_create(
        campaign=campaign, assessor=assessor, topics=[campaign.topics.get()], condition=Condition.FROM_SCRATCH
    )
    assignment = selectors.assessor_assignment_get(user=assessor, assignment_id=made.pk)
    state = queue.queue_state(assignment=assignment)
    while state.card is not None:
        assert Assignment.objects.get(pk=made.pk).status == "open"
        _, state = services.judgment_submit_and_next(
            assignment=assignment, pair_id=state.card.campaign_pair.pair_id, label="FS", token=state.card.token_uuid
        )
    assert Assignment.objects.get(pk=made.pk).status == "done"
    assert state.next_assignment is None
