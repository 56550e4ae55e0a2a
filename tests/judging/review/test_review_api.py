"""The review API: reviewers read the queue and a pair (with the LLM's reply and prompt) and set final labels;
an assessor reaches none of it (blindness)."""

from __future__ import annotations

import pytest
from rest_framework.test import APIClient

from judging.models import FinalLabel
from tests.judging.review.conftest import RAW_REPLY, ReviewWorld

pytestmark = pytest.mark.django_db


def _client(user: object) -> APIClient:
    client = APIClient()
    client.force_authenticate(user)  # type: ignore[arg-type]
    return client


def test_an_assessor_reaches_no_review_operation(world: ReviewWorld) -> None:
    # given
    client = _client(world.alice)
    base = f"/api/campaigns/{world.campaign.pk}/review/"

    # when
    answers = [
        client.get(base),
        client.get(f"{base}{world.pairs[5]}/"),
        client.post(f"{base}{world.pairs[5]}/final/", {"label": "FS", "reason": "x"}, format="json"),
    ]

    # then
    assert [a.status_code for a in answers] == [403, 403, 403]
    assert all(RAW_REPLY not in a.content.decode() for a in answers)
    assert not FinalLabel.objects.exists()


def test_a_reviewer_reads_the_queue_and_a_pair_with_the_llm_reply(world: ReviewWorld) -> None:
    # given
    client = _client(world.reviewer)
    base = f"/api/campaigns/{world.campaign.pk}/review/"

    # when
    queue = client.get(base, {"reason": "llm"})
    pair = client.get(f"{base}{world.pairs[5]}/")

    # then
    assert [i["pair_id"] for i in queue.json()] == [world.pairs[2], world.pairs[5]]
    assert pair.json()["llm"][0]["raw_reply"] == RAW_REPLY
    assert "Respond as either" in pair.json()["llm"][0]["prompt"]


def test_a_reviewer_sets_a_final_label(world: ReviewWorld) -> None:
    # when
    response = _client(world.reviewer).post(
        f"/api/campaigns/{world.campaign.pk}/review/{world.pairs[2]}/final/",
        {"label": "NS", "reason": "not in the passage"},
        format="json",
    )

    # then
    assert response.status_code == 201
    assert response.json()["label_set"] == "final/rev"
    assert FinalLabel.objects.get().label == "NS"


@pytest.mark.parametrize(
    ("path", "data", "code"),
    [
        ("{c}/review/{p}/final/", {"label": "XX", "reason": "r"}, 400),
        ("{c}/review/{p}/final/", {"label": "FS", "reason": "a\u0000b"}, 400),
        ("{c}/review/{p}/final/", {"label": "FS", "reason": "r" * 2001}, 400),
        ("{c}/review/999999/final/", {"label": "FS", "reason": "r"}, 404),
        ("999999/review/{p}/final/", {"label": "FS", "reason": "r"}, 404),
    ],
)
def test_bad_input_is_a_clear_error_and_writes_nothing(world: ReviewWorld, path: str, data: dict, code: int) -> None:
    # when
    url = "/api/campaigns/" + path.format(c=world.campaign.pk, p=world.pairs[2])
    response = _client(world.reviewer).post(url, data, format="json")

    # then
    assert response.status_code == code
    assert not FinalLabel.objects.exists()
