"""Several answers in one submit (issue 24, the outbox at a long round trip): the judging page sends every answer
it holds in one request; each is stored once through the submit rule (a re-sent batch doubles nothing), one
refused is named with its reason while the others are stored, and the blindness rules hold for every answer."""

from __future__ import annotations

import re
import uuid

import pytest
from django.test import Client
from django.urls import reverse

from judging import queue, services
from judging.forms import SUBMIT_ANSWERS_MAX
from judging.models import AssignmentStatus, CampaignPair, Condition, Judgment
from tests.factories import LLMJudgeFactory, PairJudgmentFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db

FORGED = "00000000-0000-4000-8000-000000000000"


def _assign(assessor, campaign=None, condition=Condition.FROM_SCRATCH):
    campaign = campaign or judging_campaign_build(n_sentences=10, passages_per_topic=3)
    return services.assignments_create(
        campaign=campaign, assessor=assessor, topics=list(campaign.topics.all()), condition=condition
    )[0]


def _order(assignment) -> list[int]:
    return list(
        CampaignPair.objects.filter(campaign=assignment.campaign).order_by("position").values_list("pair_id", flat=True)
    )


def _cards(assignment, n: int):
    """The next `n` cards of the queue, as the page holds them (each with its submission token)."""
    state = queue.queue_state(assignment=assignment, following=True, ahead=max(n - 1, queue.HELD_AHEAD))
    return [state.card, *(held.card for held in state.held)][:n]


def _batch(cards, labels, **extra):
    """The outbox's request: each answer's fields once per answer, in the order answered."""
    body: dict[str, list[str]] = {name: [] for name in ("pair_id", "token", "label", "seconds", "flagged", "comment")}
    for card, label in zip(cards, labels, strict=True):
        body["pair_id"].append(str(card.campaign_pair.pair_id))
        body["token"].append(card.token)
        body["label"].append(label)
        body["seconds"].append("1.5")
        body["flagged"].append("")
        body["comment"].append("")
    return {**body, **extra}


def _post(client: Client, assignment, data, htmx: bool = True):
    headers = {"HX-Request": "true"} if htmx else {}
    return client.post(reverse("judging:submit", args=[assignment.pk]), data, headers=headers)


def _pairs_in(html: str) -> list[int]:
    return [int(p) for p in re.findall(r'name="pair_id" value="(\d+)"', html)]


def _refused_in(html: str) -> dict[str, str]:
    return dict(re.findall(r'<template class="refused-answer" data-token="([^"]*)">([^<]*)</template>', html))


@pytest.fixture
def alice(client):
    user = UserFactory(username="alice")
    client.force_login(user)
    return user


def test_a_batch_stores_each_answer_once_in_order_and_answers_with_the_card_after_them(client, alice):
    # given: the page answered the first three pairs
    assignment = _assign(alice)
    order = _order(assignment)
    cards = _cards(assignment, 3)

    # when: it sends them in one request
    response = _post(client, assignment, _batch(cards, ["FS", "PS", "NS"], ahead="4"))

    # then: three judgments, in the order answered; the card on screen is the fourth pair, four held after it
    html = response.content.decode()
    assert response.status_code == 200
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", "label"))
    assert rows == [(order[0], "FS"), (order[1], "PS"), (order[2], "NS")]
    assert _pairs_in(html) == order[3:8]
    assert re.search(r'id="topic-progress">3 / 10<', html)
    assert _refused_in(html) == {}


def test_resending_the_same_batch_stores_nothing_more_and_gives_the_same_card(client, alice):
    # given: a batch the server stored, whose answer the page never got
    assignment = _assign(alice)
    cards = _cards(assignment, 4)
    data = _batch(cards, ["FS", "FS", "NS", "PS"])
    first = _post(client, assignment, data)

    # when: the page sends it again
    again = _post(client, assignment, data)

    # then
    assert again.status_code == first.status_code == 200
    assert Judgment.objects.filter(assignment=assignment).count() == 4
    assert _pairs_in(again.content.decode()) == _pairs_in(first.content.decode())


def test_a_batch_sent_again_with_new_answers_after_it_stores_only_the_new_ones(client, alice):
    assignment = _assign(alice)
    order = _order(assignment)
    cards = _cards(assignment, 5)
    _post(client, assignment, _batch(cards[:2], ["FS", "PS"]))

    response = _post(client, assignment, _batch(cards, ["FS", "PS", "NS", "NS", "FS"]))

    assert response.status_code == 200
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", flat=True))
    assert rows == order[:5]


@pytest.mark.parametrize(
    ("bad", "reason"),
    [
        ({"token": FORGED}, "unknown submission token"),
        ({"label": "XX"}, "Select a valid choice"),
        ({"pair_id": "987654321"}, "this pair is not in the assignment"),
    ],
    ids=["forged token", "unknown label", "pair not in the assignment"],
)
def test_one_bad_answer_in_a_batch_is_refused_with_its_reason_and_the_others_are_stored(client, alice, bad, reason):
    # given: three answers, the second one bad
    assignment = _assign(alice)
    order = _order(assignment)
    cards = _cards(assignment, 3)
    data = _batch(cards, ["FS", "PS", "NS"])
    for name, value in bad.items():
        data[name][1] = value

    # when
    response = _post(client, assignment, data)

    # then: the first and third are stored; the second is named with why, and nothing else is refused
    html = response.content.decode()
    assert response.status_code == 200
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", "label"))
    assert rows == [(order[0], "FS"), (order[2], "NS")]
    refused = _refused_in(html)
    assert list(refused) == [data["token"][1]]
    assert reason in refused[data["token"][1]]
    # the card on screen is the queue's: the refused answer's pair is still to judge
    assert _pairs_in(html)[0] == order[1]


def test_a_refused_last_answer_still_leaves_the_others_stored_and_the_status_set(client, alice):
    # given: a topic of three pairs; the page sends the three answers, the last with a forged token
    assignment = _assign(alice, judging_campaign_build(n_sentences=3, passages_per_topic=3))
    cards = _cards(assignment, 3)
    data = _batch(cards, ["FS", "PS", "NS"])
    data["token"][2] = FORGED

    # when
    outcomes, state = services.judgments_submit_and_next(
        assignment=assignment,
        answers=[
            services.Answer(pair_id=int(p), label=label, token=uuid.UUID(t))
            for p, label, t in zip(data["pair_id"], data["label"], data["token"], strict=True)
        ],
    )

    # then
    assert [type(o).__name__ for o in outcomes] == ["SubmitResult", "SubmitResult", "SubmissionRejected"]
    assert state.card is not None
    assert state.card.campaign_pair.pair_id == cards[2].campaign_pair.pair_id
    assert Judgment.objects.filter(assignment=assignment).count() == 2
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.OPEN


def test_a_batch_that_finishes_the_topic_marks_the_assignment_done(client, alice):
    assignment = _assign(alice, judging_campaign_build(n_sentences=3, passages_per_topic=3))

    response = _post(client, assignment, _batch(_cards(assignment, 3), ["FS", "PS", ""], not_judged_reason=[""] * 3))

    assert response.status_code == 200
    assert 'data-state="finished"' in response.content.decode()
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.DONE
    # a blank label is cannot judge, with the first reason when none is given (as for one answer)
    assert Judgment.objects.get(assignment=assignment, label="").not_judged_reason


def test_repeated_tokens_in_one_batch_store_one_judgment(client, alice):
    assignment = _assign(alice)
    card = _cards(assignment, 1)[0]

    response = _post(client, assignment, _batch([card, card], ["FS", "NS"]))

    assert response.status_code == 200
    assert list(Judgment.objects.filter(assignment=assignment).values_list("label", flat=True)) == ["FS"]


@pytest.mark.parametrize(
    "change",
    ["uneven labels", "uneven flags", "too many answers", "bad skip"],
)
def test_a_malformed_batch_is_refused_whole_with_a_400_and_stores_nothing(client, alice, change):
    assignment = _assign(alice)
    data = _batch(_cards(assignment, 3), ["FS", "PS", "NS"])
    if change == "uneven labels":
        data["label"] = ["FS", "PS"]
    elif change == "uneven flags":
        data["flagged"] = ["on"]
    elif change == "too many answers":
        data = {k: v * (SUBMIT_ANSWERS_MAX // 3 + 1) for k, v in data.items()}
    else:
        data["skip"] = "1,x"

    response = _post(client, assignment, data)

    assert response.status_code == 400
    assert response["Content-Type"].startswith("text/plain")
    assert not Judgment.objects.exists()


def test_a_batch_whose_every_answer_is_malformed_is_a_400(client, alice):
    assignment = _assign(alice)
    data = _batch(_cards(assignment, 2), ["XX", "YY"])

    response = _post(client, assignment, data)

    assert response.status_code == 400
    assert "Select a valid choice" in response.content.decode()
    assert not Judgment.objects.exists()


def test_a_batch_without_javascript_names_the_refused_answers_with_a_409(client, alice):
    assignment = _assign(alice)
    data = _batch(_cards(assignment, 2), ["FS", "PS"])
    data["token"][0] = FORGED

    response = _post(client, assignment, data, htmx=False)

    assert response.status_code == 409
    assert f"{FORGED}: unknown submission token" in response.content.decode()
    assert Judgment.objects.filter(assignment=assignment).count() == 1


# --- blindness -------------------------------------------------------------------------------------


@pytest.fixture
def shared(client, alice):
    """alice judges from scratch and bob post-edits the same topic; the LLM labelled every pair Partial."""
    campaign = judging_campaign_build(n_sentences=12, passages_per_topic=2)
    campaign.post_edit_judge = LLMJudgeFactory(name="opus-batch-probe")
    campaign.save()
    for cp in CampaignPair.objects.filter(campaign=campaign).select_related("pair"):
        PairJudgmentFactory(judge=campaign.post_edit_judge, pair=cp.pair, label="PS")
    bob = UserFactory(username="bob")
    return {
        "scratch": _assign(alice, campaign),
        "bobs": _assign(bob, campaign, Condition.POST_EDIT),
    }


def test_a_from_scratch_batch_gets_back_no_llm_label_in_any_card_it_holds(client, shared):
    a = shared["scratch"]

    html = _post(client, a, _batch(_cards(a, 3), ["FS", "NS", "FS"], ahead="5")).content.decode()

    assert len(_pairs_in(html)) == 6
    assert "opus-batch-probe" not in html
    assert "LLM label" not in html
    assert "preselected" not in html


def test_an_answer_with_another_assessors_token_is_refused_and_stores_nothing_for_it(client, shared):
    # given: alice's batch carries, second, an answer with the token of bob's card for the same pair
    a, bobs = shared["scratch"], shared["bobs"]
    mine = _cards(a, 2)
    data = _batch(mine, ["FS", "PS"])
    data["token"][1] = _cards(bobs, 2)[1].token

    # when
    response = _post(client, a, data)

    # then: refused, and bob's assignment has nothing of alice's
    assert response.status_code == 200
    assert "unknown submission token" in _refused_in(response.content.decode())[data["token"][1]]
    assert Judgment.objects.filter(assignment=a).count() == 1
    assert not Judgment.objects.filter(assignment=bobs).exists()


def test_a_batch_to_another_assessors_assignment_is_not_found(client, shared):
    bobs = shared["bobs"]

    response = _post(client, bobs, _batch(_cards(bobs, 2), ["FS", "PS"]))

    assert response.status_code == 404
    assert not Judgment.objects.filter(assignment=bobs).exists()
