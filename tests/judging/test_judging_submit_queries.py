"""A keystroke's cost in SQL queries (issue 25): one submit through the judging page's view, posted as
static/js/judge.js posts it (the cards it holds named as known), costs at most six queries, whatever queue the
assignment has: its topic's pool in stored order, uncertain first, or a sample drawn by a feature above judging."""

from __future__ import annotations

from typing import Any

import pytest

from judging import queue, samples, selectors, services
from judging.models import CampaignPair, Condition, Judgment, QueueOrder
from tests.factories import judging_campaign_build

pytestmark = pytest.mark.django_db

SUBMIT_QUERIES = 6


def _page_post(client: Any, assignment_id: int, state: queue.QueueState, label: str = "PS") -> Any:
    """The judging page's submit of the card on screen, naming the cards it holds after it."""
    card = state.card
    assert card is not None
    known = [held.card.campaign_pair.pair_id for held in state.held if held.card is not None]
    return client.post(
        f"/judge/{assignment_id}/submit/",
        {
            "pair_id": card.campaign_pair.pair_id,
            "token": card.token,
            "label": label,
            "seconds": "4.2",
            "comment": "",
            "not_judged_reason": "",
            "skip": "",
            "ahead": str(queue.HELD_AHEAD),
            "known": ",".join(map(str, known)),
        },
        headers={"HX-Request": "true"},
    )


def _assign(campaign: Any, assessor: Any) -> Any:
    (made,) = services.assignments_create(
        campaign=campaign, assessor=assessor, topics=[campaign.topics.get()], condition=Condition.FROM_SCRATCH
    )
    return made


def _judge_three(client: Any, assessor: Any, made: Any, django_assert_max_num_queries: Any) -> list[int]:
    """Open the judging page, then submit three cards in a row, each within the budget; the pairs judged."""
    assert client.get(f"/judge/{made.pk}/").status_code == 200
    judged = []
    for _ in range(3):
        assignment = selectors.assessor_assignment_get(user=assessor, assignment_id=made.pk)
        state = queue.queue_state(assignment=assignment, following=True)
        with django_assert_max_num_queries(SUBMIT_QUERIES):
            response = _page_post(client, made.pk, state)
        assert response.status_code == 200
        judged.append(state.card.campaign_pair.pair_id)
    return judged


@pytest.mark.parametrize("order", [QueueOrder.BY_TOPIC, QueueOrder.UNCERTAIN_FIRST])
def test_a_submit_from_the_judging_page_costs_at_most_six_queries(
    client, assessor, order, django_assert_max_num_queries
):
    # given
    campaign = judging_campaign_build(n_sentences=12, passages_per_topic=4)
    campaign.queue_order = order
    campaign.save(update_fields=["queue_order"])
    made = _assign(campaign, assessor)
    client.force_login(assessor)

    # when / then
    judged = _judge_three(client, assessor, made, django_assert_max_num_queries)
    assert list(Judgment.objects.order_by("pk").values_list("pair_id", flat=True)) == judged


def test_a_submit_of_a_sample_costs_no_query_more(client, assessor, django_assert_max_num_queries):
    # given: the assignment judges a sample of its topic (as a study's or a budget sample's would), in its order
    campaign = judging_campaign_build(n_sentences=12, passages_per_topic=4)
    pool = list(CampaignPair.objects.filter(campaign=campaign).order_by("-pair_id"))[:6]
    sample = samples.sample_create(
        campaign=campaign,
        name="sample #1",
        condition=Condition.FROM_SCRATCH,
        pairs=[(cp.topic_id, cp.pair_id) for cp in pool],
    )
    made = _assign(campaign, assessor)
    samples.sample_assign(sample=sample, assignments=[made])
    client.force_login(assessor)

    # when / then
    judged = _judge_three(client, assessor, made, django_assert_max_num_queries)
    assert judged == [cp.pair_id for cp in pool[:3]]
