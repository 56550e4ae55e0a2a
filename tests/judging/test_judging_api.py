"""The judging REST API: campaigns and assignments for organizers, queue and submit for assessors."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import services
from judging.api import CardOutputSerializer, CardPairSerializer
from judging.models import Assignment, Campaign, CampaignPair, Condition, Judgment
from tests.factories import (
    LLMJudgeFactory,
    OrganizerFactory,
    PairJudgmentFactory,
    PassageFactory,
    RunFactory,
    TopicFactory,
    UserFactory,
    answer_build,
    judging_campaign_build,
)


@pytest.fixture
def organizer_client(db):
    client = Client()
    client.force_login(OrganizerFactory(username="org"))
    return client


@pytest.fixture
def material(db):
    topic = TopicFactory(topic_id="2024-7")
    p1, p2 = PassageFactory(), PassageFactory()
    answer_build(run=RunFactory(run_id="a.1"), topic=topic, sentences=[("One.", [p1]), ("Two.", [p2])])
    answer_build(run=RunFactory(run_id="b.1"), topic=topic, sentences=[("One.", [p1])])
    return topic


def _campaign_and_assignment(client, condition="from_scratch"):
    created = client.post(
        "/api/campaigns/", {"name": "api", "topics": ["2024-7"], "depth": 1}, content_type="application/json"
    ).json()
    UserFactory(username="alice")
    made = client.post(
        "/api/assignments/",
        {"campaign": created["id"], "assessor": "alice", "topics": ["2024-7"], "condition": condition},
        content_type="application/json",
    ).json()
    return created, made


def test_it_creates_and_builds_a_campaign_through_the_api(organizer_client, material):
    response = organizer_client.post(
        "/api/campaigns/", {"name": "api", "topics": ["2024-7"], "depth": 1}, content_type="application/json"
    )

    body = response.json()
    assert response.status_code == 201
    assert sorted(body["runs"]) == ["a.1", "b.1"]
    assert body["build_summary"]["pairs"] == 2
    assert body["build_summary"]["judgments_saved"] == 1


def test_it_reports_passages_without_text_when_an_api_build_stops(organizer_client, material):
    bare = PassageFactory(text="", has_text=False)
    answer_build(run=RunFactory(run_id="c.1"), topic=material, sentences=[("Three.", [bare])])

    stopped = organizer_client.post(
        "/api/campaigns/", {"name": "api", "topics": ["2024-7"]}, content_type="application/json"
    )
    left_behind = Campaign.objects.filter(name="api").exists()
    created = organizer_client.post(
        "/api/campaigns/",
        {"name": "api", "topics": ["2024-7"], "allow_missing_text": True},
        content_type="application/json",
    )

    assert stopped.status_code == 409
    assert stopped.json()["missing_passages"] == [bare.passage_id]
    assert not left_behind
    assert stopped.json()["detail"].startswith(f"nothing created: 1 cited passages have no text: {bare.passage_id}.")
    assert created.status_code == 201
    assert created.json()["build_summary"]["citations_left_out"] == 1


def test_it_creates_assignments_through_the_api(organizer_client, material):
    _, made = _campaign_and_assignment(organizer_client)

    assert [(a["assessor"], a["topic"], a["condition"], a["total"]) for a in made] == [
        ("alice", "2024-7", "from_scratch", 2)
    ]
    assert Assignment.objects.count() == 1


def test_it_returns_the_same_next_pair_for_a_repeated_api_submit(organizer_client, material):
    # given
    _, made = _campaign_and_assignment(organizer_client)
    alice = Client()
    alice.force_login(Campaign.objects.get().assignments.get().assessor)
    url = f"/api/assignments/{made[0]['id']}"
    pair = alice.get(f"{url}/next/").json()["pair"]
    body = {"pair_id": pair["pair_id"], "token": pair["token"], "label": "PS", "seconds": 2.5}

    # when
    first = alice.post(f"{url}/submit/", body, content_type="application/json")
    second = alice.post(f"{url}/submit/", body, content_type="application/json")

    # then
    assert (first.status_code, second.status_code) == (201, 200)
    assert first.json()["judgment"]["id"] == second.json()["judgment"]["id"]
    assert first.json()["next"] == second.json()["next"]
    assert first.json()["next"]["pair"]["pair_id"] != pair["pair_id"]
    assert Judgment.objects.count() == 1


def test_it_rejects_an_invalid_label_without_storing(organizer_client, material):
    _, made = _campaign_and_assignment(organizer_client)
    alice = Client()
    alice.force_login(Campaign.objects.get().assignments.get().assessor)
    url = f"/api/assignments/{made[0]['id']}"
    pair = alice.get(f"{url}/next/").json()["pair"]

    response = alice.post(
        f"{url}/submit/",
        {"pair_id": pair["pair_id"], "token": pair["token"], "label": "XX"},
        content_type="application/json",
    )

    assert response.status_code == 400
    assert not Judgment.objects.exists()


@pytest.mark.parametrize("condition", [Condition.FROM_SCRATCH, Condition.POST_EDIT])
def test_the_next_card_has_exactly_the_fields_its_serializer_documents(db, condition):
    # given: an LLM label on every pair, for the post-edit condition to show
    campaign = judging_campaign_build(n_sentences=2, passages_per_topic=2)
    campaign.post_edit_judge = LLMJudgeFactory(name="opus-card-shape")
    campaign.save()
    for cp in CampaignPair.objects.filter(campaign=campaign).select_related("pair"):
        PairJudgmentFactory(judge=campaign.post_edit_judge, pair=cp.pair, label="PS")
    alice = UserFactory(username="alice")
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all())[:1], condition=condition
    )
    client = Client()
    client.force_login(alice)

    # when
    card = client.get(f"/api/assignments/{assignment.pk}/next/").json()

    # then: the documented shape, with the LLM's label only where the condition allows it
    assert set(card) == set(CardOutputSerializer().fields)
    documented = set(CardPairSerializer().fields)
    expected = documented if condition == Condition.POST_EDIT else documented - {"shown_label"}
    assert set(card["pair"]) == expected
    assert card["pair"].get("shown_label") == ("PS" if condition == Condition.POST_EDIT else None)
