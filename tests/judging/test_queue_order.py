"""The queue order setting (issue 23, point 6): by topic, or uncertain first (judging/queue.md)."""

from __future__ import annotations

import datetime

import pytest

from judging import queue, services
from judging.models import Assignment, CampaignPair, Condition, Judgment, QueueOrder
from judging.pool import assignment_pending
from tests.factories import LLMJudgeFactory, PairJudgmentFactory, UserFactory, llm_campaign_build


@pytest.fixture
def pool(db):
    campaign = llm_campaign_build(statements=[f"Statement {i}." for i in range(6)], name="order")
    user = UserFactory(username="orderly")
    topic = campaign.topics.get()
    assignment = Assignment.objects.create(
        campaign=campaign, assessor=user, topic=topic, condition=Condition.FROM_SCRATCH
    )
    pairs = [cp.pair for cp in CampaignPair.objects.filter(campaign=campaign).order_by("position")]
    one, two = LLMJudgeFactory(name="llm-one"), LLMJudgeFactory(name="llm-two")
    # pair 3: the two judges disagree; pair 1: one judge says PS; pair 4: llm-one said NS, then FS (current FS,
    # as llm-two says): agreed and FS; pair 2: both FS.
    PairJudgmentFactory(judge=one, pair=pairs[3], label="FS")
    PairJudgmentFactory(judge=two, pair=pairs[3], label="NS")
    PairJudgmentFactory(judge=one, pair=pairs[1], label="PS")
    old = PairJudgmentFactory(judge=one, pair=pairs[4], label="NS")
    Judgment.objects.filter(pk=old.pk).update(created_at=old.created_at - datetime.timedelta(hours=1))
    PairJudgmentFactory(judge=one, pair=pairs[4], label="FS")
    PairJudgmentFactory(judge=two, pair=pairs[4], label="FS")
    PairJudgmentFactory(judge=one, pair=pairs[2], label="FS")
    PairJudgmentFactory(judge=two, pair=pairs[2], label="FS")
    return campaign, assignment, pairs


def _order(assignment, pairs):
    index = {p.pk: i for i, p in enumerate(pairs)}
    return [index[cp.pair_id] for cp in assignment_pending(assignment=assignment)]


def test_by_topic_keeps_the_stored_order(pool):
    campaign, assignment, pairs = pool

    assert campaign.queue_order == QueueOrder.BY_TOPIC
    assert _order(assignment, pairs) == [0, 1, 2, 3, 4, 5]


def test_uncertain_first_puts_disagreements_then_partial_or_no_support_first(pool):
    # given
    campaign, assignment, pairs = pool

    # when
    services.campaign_update(
        campaign=campaign,
        guidelines=campaign.guidelines,
        post_edit_judge=None,
        highlight_evidence=False,
        queue_order=QueueOrder.UNCERTAIN_FIRST,
    )
    assignment.refresh_from_db()

    # then
    assert _order(assignment, pairs) == [3, 1, 0, 2, 4, 5]


def test_the_next_card_follows_the_uncertain_first_order(pool):
    # given
    campaign, assignment, pairs = pool
    campaign.queue_order = QueueOrder.UNCERTAIN_FIRST
    campaign.save()
    assignment.refresh_from_db()

    # when
    state = queue.queue_state(assignment=assignment, following=True)

    # then
    assert state.card is not None
    assert state.card.campaign_pair.pair_id == pairs[3].pk
    assert state.following is not None
    assert state.following.card is not None
    assert state.following.card.campaign_pair.pair_id == pairs[1].pk


def test_an_unknown_queue_order_is_refused(pool):
    campaign, _, _ = pool
    with pytest.raises(ValueError, match="unknown queue order"):
        services.campaign_update(
            campaign=campaign, guidelines="", post_edit_judge=None, highlight_evidence=False, queue_order="random"
        )
