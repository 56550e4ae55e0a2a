"""The plan and the lifecycle in the API (issue 23, points 1 and 5): validated, documented, nothing written on refusal."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User
from django.test import Client

from judging.models import Assignment, Campaign
from tests.factories import OrganizerFactory, campaign_of_sizes_build


@pytest.fixture
def org(db):
    client = Client()
    client.force_login(OrganizerFactory(username="org"))
    return client


@pytest.fixture
def planned(db):
    campaign = campaign_of_sizes_build(sizes=(8, 6, 4, 2), name="api-plan")
    for name in ("p1", "p2", "p3"):
        User.objects.create(username=name)
    return campaign


def _plan(client, campaign, **extra):
    body = {"assessors": ["p1", "p2", "p3"], "condition": "from_scratch", "overlap": 2, **extra}
    return client.post(f"/api/campaigns/{campaign.pk}/assign-plan/", body, content_type="application/json")


def test_the_api_previews_a_plan_without_writing(org, planned):
    response = _plan(org, planned)

    assert response.status_code == 200
    body = response.json()
    assert body["written"] is False
    assert len(body["new"]) == 8
    assert sum(load["topics"] for load in body["loads"]) == 8
    assert not Assignment.objects.exists()


def test_the_api_writes_the_previewed_plan(org, planned):
    fingerprint = _plan(org, planned).json()["fingerprint"]

    response = _plan(org, planned, write=True, fingerprint=fingerprint)

    assert response.status_code == 201
    assert Assignment.objects.filter(campaign=planned).count() == 8


def test_the_api_refuses_a_plan_that_changed_since_its_preview(org, planned):
    response = _plan(org, planned, write=True, fingerprint="0" * 16)

    assert response.status_code == 409
    assert "changed since its preview" in response.json()["detail"]
    assert not Assignment.objects.exists()


def test_the_api_refuses_unknown_assessors_and_an_overlap_above_them(org, planned):
    unknown = _plan(org, planned, assessors=["p1", "ghost"], overlap=1)
    above = _plan(org, planned, overlap=4)

    assert unknown.status_code == 400
    assert "unknown assessors: ghost" in str(unknown.json())
    assert above.status_code == 400
    assert not Assignment.objects.exists()


def test_the_api_answers_404_for_an_unknown_campaign(org, planned):
    response = org.post(
        "/api/campaigns/999999/assign-plan/",
        {"assessors": ["p1"], "condition": "from_scratch", "overlap": 1},
        content_type="application/json",
    )

    assert response.status_code == 404


def test_the_api_clones_archives_restores_and_deletes(org, planned):
    clone = org.post(f"/api/campaigns/{planned.pk}/clone/", {"name": "api-copy"}, content_type="application/json")
    copy_id = clone.json()["id"]
    archived = org.post(f"/api/campaigns/{copy_id}/archive/")
    restored = org.post(f"/api/campaigns/{copy_id}/restore/")
    wrong = org.post(f"/api/campaigns/{copy_id}/delete/", {"confirm": "nope"}, content_type="application/json")
    deleted = org.post(f"/api/campaigns/{copy_id}/delete/", {"confirm": "api-copy"}, content_type="application/json")

    assert (clone.status_code, clone.json()["pairs"]) == (201, 20)
    assert archived.json()["archived_at"] is not None
    assert restored.json()["archived_at"] is None
    assert wrong.status_code == 409
    assert deleted.status_code == 200
    assert list(Campaign.objects.values_list("name", flat=True)) == ["api-plan"]
