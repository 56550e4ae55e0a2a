"""Cards held ahead (issue 24, point 5), on the server: the judging page gets at least three cards after the one
on screen, more when it asks (within a bound), the cards after the pairs it says it has answered and not sent,
and a held card never carries a label the assessor must not see."""

from __future__ import annotations

import re

import pytest
from django.urls import reverse

from judging import queue, services
from judging.models import CampaignPair, Condition, Judgment
from tests.factories import LLMJudgeFactory, PairJudgmentFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db


def _assign(condition=Condition.FROM_SCRATCH, n_sentences=16, llm_label=None):
    campaign = judging_campaign_build(n_sentences=n_sentences, passages_per_topic=4)
    if llm_label:
        llm = LLMJudgeFactory()
        campaign.post_edit_judge = llm
        campaign.save()
        for cp in CampaignPair.objects.filter(campaign=campaign):
            PairJudgmentFactory(judge=llm, pair=cp.pair, label=llm_label)
    alice = UserFactory(username="alice")
    return services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=condition
    )[0]


def _order(assignment) -> list[int]:
    return list(
        CampaignPair.objects.filter(campaign=assignment.campaign).order_by("position").values_list("pair_id", flat=True)
    )


def _pairs_in(html: str) -> list[int]:
    return [int(p) for p in re.findall(r'name="pair_id" value="(\d+)"', html)]


def test_the_page_holds_three_cards_after_the_one_on_screen(client):
    # given
    assignment = _assign()
    order = _order(assignment)
    client.force_login(assignment.assessor)

    # when
    html = client.get(reverse("judging:judge", args=[assignment.pk])).content.decode()

    # then: the card on screen, then three held in order
    assert html.count('<template class="following-card">') == queue.HELD_AHEAD == 3
    assert _pairs_in(html) == order[:4]


def test_a_page_on_a_long_round_trip_gets_the_cards_it_asks_for_up_to_the_bound(client):
    assignment = _assign(n_sentences=24)
    client.force_login(assignment.assessor)

    eight = client.get(reverse("judging:judge", args=[assignment.pk]), {"ahead": "8"}).content.decode()
    many = client.get(reverse("judging:judge", args=[assignment.pk]), {"ahead": "999"}).content.decode()

    assert eight.count('<template class="following-card">') == 8
    assert many.count('<template class="following-card">') == queue.HELD_AHEAD_MAX


def test_a_submit_answers_with_the_cards_after_the_pairs_the_page_has_not_sent(client):
    # given: the page answered pairs 0, 1 and 2; it sends 0 and says 1 and 2 wait in its outbox
    assignment = _assign()
    order = _order(assignment)
    card = queue.queue_state(assignment=assignment).card
    client.force_login(assignment.assessor)

    # when
    response = client.post(
        reverse("judging:submit", args=[assignment.pk]),
        {"pair_id": order[0], "token": card.token, "label": "FS", "skip": f"{order[1]},{order[2]}", "ahead": "5"},
        HTTP_HX_REQUEST="true",
    )

    # then: the next card is pair 3, with five held after it; only pair 0 is stored
    html = response.content.decode()
    assert response.status_code == 200
    assert _pairs_in(html) == order[3:9]
    assert list(Judgment.objects.values_list("pair_id", flat=True)) == [order[0]]
    # ... and its progress counts the pairs answered on the page
    assert re.search(r'id="topic-progress">3 / ', html)


@pytest.mark.parametrize("skip", ["1,x", "1;2", ",".join(["7"] * 501), "\x00"])
def test_a_bad_skip_is_refused_and_stores_nothing(client, skip):
    assignment = _assign(n_sentences=3)
    card = queue.queue_state(assignment=assignment).card
    client.force_login(assignment.assessor)

    response = client.post(
        reverse("judging:submit", args=[assignment.pk]),
        {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "FS", "skip": skip},
    )

    assert response.status_code == 400
    assert "skip" in response.content.decode()
    assert not Judgment.objects.exists()


def test_held_from_scratch_cards_never_carry_the_llm_label(client):
    # given: the LLM labelled every pair, and alice judges from scratch
    assignment = _assign(Condition.FROM_SCRATCH, llm_label="NS")
    client.force_login(assignment.assessor)

    html = client.get(reverse("judging:judge", args=[assignment.pk]), {"ahead": "6"}).content.decode()

    assert html.count('<template class="following-card">') == 6
    assert "LLM label" not in html
    assert "preselected" not in html


def test_held_post_edit_cards_carry_the_llm_label_each(client):
    assignment = _assign(Condition.POST_EDIT, llm_label="PS")
    client.force_login(assignment.assessor)

    html = client.get(reverse("judging:judge", args=[assignment.pk]), {"ahead": "6"}).content.decode()

    assert html.count('<template class="following-card">') == 6
    assert html.count('class="llm-label"') == 7
    assert html.count("choice-PS preselected") == 7


def test_a_card_being_changed_holds_the_queues_next_cards(client):
    # given: two pairs judged; the assessor goes back to the first
    assignment = _assign()
    order = _order(assignment)
    for _ in range(2):
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
        )
    client.force_login(assignment.assessor)

    html = client.get(reverse("judging:judged_pair", args=[assignment.pk, order[0]])).content.decode()

    assert _pairs_in(html) == [order[0], *order[2:5]]


def test_cards_the_page_holds_already_come_back_as_their_tokens_only(client):
    # given: the page holds pairs 1 to 3 and sends its answer to pair 0
    assignment = _assign()
    order = _order(assignment)
    state = queue.queue_state(assignment=assignment, following=True)
    client.force_login(assignment.assessor)

    # when
    response = client.post(
        reverse("judging:submit", args=[assignment.pk]),
        {
            "pair_id": order[0],
            "token": state.card.token,
            "label": "FS",
            "ahead": "4",
            "known": ",".join(str(p) for p in order[2:4]),
        },
        HTTP_HX_REQUEST="true",
    )

    # then: pair 1 in full (the next card), 2 and 3 as their tokens, 4 and 5 in full
    html = response.content.decode()
    assert _pairs_in(html) == [order[1], order[4], order[5]]
    tokens = re.findall(r'<template class="following-card" data-known="([0-9a-f-]+)"></template>', html)
    assert tokens == [held.card.token for held in state.held[1:3]]


def test_the_page_can_ask_for_cards_without_those_it_holds(client):
    assignment = _assign()
    order = _order(assignment)
    client.force_login(assignment.assessor)

    html = client.get(
        reverse("judging:judge", args=[assignment.pk]), {"ahead": "5", "known": f"{order[1]},{order[2]}"}
    ).content.decode()

    assert _pairs_in(html) == [order[0], order[3], order[4], order[5]]
    assert html.count("data-known=") == 2
