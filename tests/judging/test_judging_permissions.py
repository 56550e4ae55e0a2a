"""Roles: an assessor reaches only their own assignments and judgments; organizer actions are staff-only."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import queue, services
from judging.models import Condition, Judgment
from tests.factories import OrganizerFactory, UserFactory, judging_campaign_build


@pytest.fixture
def two(db):
    campaign = judging_campaign_build(n_sentences=3)
    topics = list(campaign.topics.all())
    alice, bob = UserFactory(username="alice"), UserFactory(username="bob")
    a = services.assignments_create(campaign=campaign, assessor=alice, topics=topics, condition=Condition.FROM_SCRATCH)[
        0
    ]
    b = services.assignments_create(campaign=campaign, assessor=bob, topics=topics, condition=Condition.FROM_SCRATCH)[0]
    card = queue.queue_state(assignment=b).card
    bobs_judgment = services.judgment_submit(
        assignment=b, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
    ).judgment
    client = Client()
    client.force_login(alice)
    return {"campaign": campaign, "alice": a, "bob": b, "bobs_judgment": bobs_judgment, "client": client, "card": card}


@pytest.mark.parametrize("path", ["/judge/{b}/", "/judge/{b}/back/"])
def test_it_answers_404_on_another_assessors_judging_pages(two, path):
    response = two["client"].get(path.format(b=two["bob"].pk))

    assert response.status_code == 404


def test_it_answers_404_on_a_submit_to_another_assessors_assignment(two):
    card = two["card"]
    response = two["client"].post(
        f"/judge/{two['bob'].pk}/submit/", {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "NS"}
    )

    assert response.status_code == 404
    assert Judgment.objects.count() == 1


@pytest.mark.parametrize("path", ["/api/assignments/{b}/", "/api/assignments/{b}/next/", "/api/judgments/{j}/"])
def test_it_answers_404_on_another_assessors_assignment_and_judgments_in_the_api(two, path):
    response = two["client"].get(path.format(b=two["bob"].pk, j=two["bobs_judgment"].pk))

    assert response.status_code == 404


def test_it_answers_404_on_an_api_submit_to_another_assessors_assignment(two):
    card = two["card"]
    response = two["client"].post(
        f"/api/assignments/{two['bob'].pk}/submit/",
        {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "NS"},
        content_type="application/json",
    )

    assert response.status_code == 404
    assert Judgment.objects.count() == 1


def test_it_lists_only_the_assessors_own_assignments_and_judgments(two):
    assignments = two["client"].get("/api/assignments/").json()["results"]
    judgments = two["client"].get("/api/judgments/").json()["results"]

    assert [a["id"] for a in assignments] == [two["alice"].pk]
    assert judgments == []


@pytest.mark.parametrize(
    ("method", "path"),
    [
        ("get", "/api/campaigns/"),
        ("post", "/api/campaigns/"),
        ("post", "/api/assignments/"),
        ("get", "/organize/campaigns/"),
        ("get", "/organize/campaigns/{c}/"),
        ("post", "/organize/campaigns/{c}/build/"),
        ("post", "/organize/campaigns/{c}/assign/"),
    ],
)
def test_it_answers_403_to_an_assessor_on_organizer_actions(two, method, path):
    response = getattr(two["client"], method)(path.format(c=two["campaign"].pk), {})

    assert response.status_code == 403


def test_it_lets_an_organizer_list_every_assignment(two):
    client = Client()
    client.force_login(OrganizerFactory(username="org"))

    rows = client.get("/api/assignments/").json()["results"]

    assert {r["assessor"] for r in rows} == {"alice", "bob"}
