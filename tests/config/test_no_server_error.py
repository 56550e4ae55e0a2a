"""The requests the audit (issue 17) answered with a 500: each is now refused with a clear 400, or served."""

from __future__ import annotations

import json

import pytest

pytestmark = pytest.mark.django_db


@pytest.mark.parametrize(
    ("query", "field"),
    [
        ("depth=" + "9" * 30, "depth"),
        ("depth=1001", "depth"),
        ("depth=-1", "depth"),
        ("depth=x", "depth"),
        ("topics=" + "x" * 100_001, "topics"),
        ("campaign=" + "c" * 129, "campaign"),
    ],
)
def test_it_refuses_a_huge_depth_or_oversized_ids_on_stats_with_a_400_naming_the_field(client, organizer, query, field):
    client.force_login(organizer)

    response = client.get(f"/api/metrics/stats/?{query}")

    assert response.status_code == 400
    assert list(response.json()) == [field]


@pytest.mark.parametrize(
    "query", ["topics=" + ",".join(str(i) for i in range(5000)), "topics=%E2%80%AE,%F0%9F%92%A9,'--", "depth=1000"]
)
def test_it_answers_garbage_topic_ids_on_stats_with_nothing_found(client, organizer, query):
    client.force_login(organizer)

    response = client.get(f"/api/metrics/stats/?{query}")

    assert response.status_code == 200
    assert response.json() == {"rows": []}


def nested(depth: int) -> str:
    return "[" * depth + "]" * depth


def test_it_refuses_an_api_body_nested_50000_deep_with_a_400(client, organizer):
    client.force_login(organizer)

    response = client.post("/api/campaigns/", data=nested(50_000), content_type="application/json")

    assert response.status_code == 400
    assert "nested" in response.json()["detail"]


def test_it_still_reads_an_ordinary_nested_body(client, organizer):
    client.force_login(organizer)

    response = client.post("/api/campaigns/", data=json.dumps({"name": [[["x"]]]}), content_type="application/json")

    assert response.status_code == 400
    assert "name" in response.json()


@pytest.mark.parametrize("role", ["organizer", "assessor", "anonymous"])
def test_it_answers_options_on_the_api_docs_for_every_role(client, organizer, assessor, role):
    if role != "anonymous":
        client.force_login(organizer if role == "organizer" else assessor)

    response = client.options("/api/docs/")

    assert response.status_code in (200, 302, 401, 403)  # served, or sent to log in: never a 500
    if response.status_code == 200:
        assert "GET" in response["Allow"]
