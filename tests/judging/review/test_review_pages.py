"""The review pages: who reaches them (blindness: never an assessor), and the form."""

from __future__ import annotations

import pytest
from django.test import Client

from judging.models import FinalLabel
from tests.factories import OrganizerFactory, UserFactory
from tests.judging.review.conftest import RAW_REPLY, ReviewWorld

pytestmark = pytest.mark.django_db


def _client(user: object) -> Client:
    client = Client()
    client.force_login(user)  # type: ignore[arg-type]
    return client


def test_an_assessor_never_reaches_the_review_pages(world: ReviewWorld) -> None:
    # given
    client = _client(world.alice)
    outsider = _client(UserFactory(username="carol"))
    queue = f"/review/{world.campaign.pk}/"

    # when / then
    for c in (client, outsider):
        assert c.get("/review/").status_code == 403
        page = c.get(queue + f"?pair={world.pairs[5]}")
        assert page.status_code == 403
        assert RAW_REPLY not in page.content.decode()
        assert c.post(queue + f"{world.pairs[5]}/final/", {"label": "FS", "reason": "x"}).status_code == 403
    assert not FinalLabel.objects.exists()


def test_an_anonymous_visitor_is_sent_to_log_in(world: ReviewWorld) -> None:
    assert Client().get(f"/review/{world.campaign.pk}/")["Location"].startswith("/accounts/login/")


def test_a_reviewer_sees_the_labels_the_llm_reply_and_its_prompt(world: ReviewWorld) -> None:
    # when
    page = _client(world.reviewer).get(f"/review/{world.campaign.pk}/?pair={world.pairs[5]}")

    # then
    html = page.content.decode()
    assert page.status_code == 200
    assert RAW_REPLY in html
    assert "Respond as either" in html  # the prompt the LLM was sent
    assert world.alice.username in html
    assert world.bob.username in html


def test_an_organizer_sets_a_final_label_and_goes_to_the_next_open_pair(world: ReviewWorld) -> None:
    # given
    client = _client(OrganizerFactory())

    # when
    response = client.post(
        f"/review/{world.campaign.pk}/{world.pairs[2]}/final/", {"label": "PS", "reason": "partly stated"}
    )

    # then
    assert response.status_code == 302
    assert response["Location"].endswith(f"?pair={world.pairs[3]}")
    final = FinalLabel.objects.get()
    assert (final.pair_id, final.label, final.reason) == (world.pairs[2], "PS", "partly stated")


@pytest.mark.parametrize(
    ("data", "status"), [({"label": "ZZ", "reason": "x"}, 400), ({"label": "FS", "reason": ""}, 400)]
)
def test_a_bad_form_is_a_clear_error_and_writes_nothing(world: ReviewWorld, data: dict[str, str], status: int) -> None:
    # when
    response = _client(world.reviewer).post(f"/review/{world.campaign.pk}/{world.pairs[2]}/final/", data)

    # then
    assert response.status_code == status
    assert 'id="review-errors"' in response.content.decode()
    assert not FinalLabel.objects.exists()


def test_an_unknown_campaign_or_pair_is_a_404(world: ReviewWorld) -> None:
    client = _client(world.reviewer)
    assert client.get("/review/999999/").status_code == 404
    assert client.get(f"/review/{world.campaign.pk}/?pair=999999").status_code == 404
    assert client.post(f"/review/{world.campaign.pk}/999999/final/", {"label": "FS", "reason": "x"}).status_code == 404
