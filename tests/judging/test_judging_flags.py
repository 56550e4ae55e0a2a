"""Flags: the organizer's review list per campaign (open, resolved, withdrawn), resolving with a note, the CSV."""

from __future__ import annotations

import csv
import io
import re

import pytest
from django.urls import reverse

from judging import queue, selectors, services
from judging.models import Condition, FlagReview, Judgment
from tests.factories import UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db


def _judge(assignment, label, *, flagged=False, comment=""):
    card = queue.queue_state(assignment=assignment).card
    services.judgment_submit_and_next(
        assignment=assignment,
        pair_id=card.campaign_pair.pair_id,
        label=label,
        token=card.token_uuid,
        flagged=flagged,
        comment=comment,
    )
    return card


def _back_and_judge(assignment, label):
    state = queue.back_state(assignment=assignment)
    services.judgment_submit_and_next(
        assignment=assignment, pair_id=state.card.campaign_pair.pair_id, label=label, token=state.card.token_uuid
    )


@pytest.fixture
def flagged_campaign():
    """alice: pair 1 flagged (a formula-like comment), pair 2 plain, pair 3 flagged and then judged again unflagged."""
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=4, name="flags")
    alice = UserFactory(username="alice")
    (made,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    assignment = selectors.assessor_assignment_get(user=alice, assignment_id=made.pk)
    _judge(assignment, "PS", flagged=True, comment="=HYPERLINK(odd passage)")
    _judge(assignment, "FS")
    _judge(assignment, "NS", flagged=True, comment="not sure")
    _back_and_judge(assignment, "FS")
    return campaign


def _ids(html: str) -> list[int]:
    return [int(x) for x in re.findall(r'id="flag-(\d+)"', html)]


def test_the_review_list_shows_open_flags_and_keeps_withdrawn_ones_apart(client, organizer, flagged_campaign):
    first, third = Judgment.objects.filter(flagged=True).order_by("pk")
    client.force_login(organizer)
    url = reverse("judging:campaign_flags", args=[flagged_campaign.pk])

    open_html = client.get(url).content.decode()
    withdrawn_html = client.get(url, {"state": "withdrawn"}).content.decode()

    assert _ids(open_html) == [first.pk]
    assert "open (1)" in open_html
    assert "withdrawn (1)" in open_html
    assert "resolved (0)" in open_html
    assert _ids(withdrawn_html) == [third.pk]


def test_resolving_a_flag_records_the_note_once_and_moves_it_to_resolved(client, organizer, flagged_campaign):
    first = Judgment.objects.filter(flagged=True).order_by("pk").first()
    client.force_login(organizer)
    resolve = reverse("judging:flag_resolve", args=[flagged_campaign.pk, first.pk])

    response = client.post(resolve, {"note": "passage was truncated; reloaded it"}, follow=True)
    client.post(resolve, {"note": "a second answer"})

    assert response.status_code == 200
    review = FlagReview.objects.get()
    assert (review.judgment_id, review.resolved_by, review.note) == (
        first.pk,
        organizer,
        "passage was truncated; reloaded it",
    )
    url = reverse("judging:campaign_flags", args=[flagged_campaign.pk])
    assert _ids(client.get(url).content.decode()) == []
    resolved = client.get(url, {"state": "resolved"}).content.decode()
    assert _ids(resolved) == [first.pk]
    assert "passage was truncated; reloaded it" in resolved
    # the judgment itself is untouched
    first.refresh_from_db()
    assert (first.label, first.flagged) == ("PS", True)


def test_the_flags_csv_has_every_flag_with_its_state_and_is_safe_to_open(client, organizer, flagged_campaign):
    first, third = Judgment.objects.filter(flagged=True).order_by("pk")
    client.force_login(organizer)
    client.post(reverse("judging:flag_resolve", args=[flagged_campaign.pk, first.pk]), {"note": "done"})

    response = client.get(reverse("judging:campaign_flags_csv", args=[flagged_campaign.pk]))

    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    by_id = {int(r["judgment_id"]): r for r in rows}
    assert set(by_id) == {first.pk, third.pk}
    assert (by_id[first.pk]["state"], by_id[first.pk]["note"], by_id[first.pk]["resolved_by"]) == (
        "resolved",
        "done",
        "org",
    )
    assert by_id[first.pk]["comment"] == "'=HYPERLINK(odd passage)"
    assert (by_id[third.pk]["state"], by_id[third.pk]["label"]) == ("withdrawn", "NS")
    assert by_id[third.pk]["sentence"].startswith("Claim ")


def test_a_flag_of_another_campaign_or_an_unflagged_judgment_cannot_be_resolved_here(
    client, organizer, flagged_campaign
):
    other = judging_campaign_build(n_sentences=1, name="other")
    plain = Judgment.objects.filter(flagged=False).first()
    first = Judgment.objects.filter(flagged=True).order_by("pk").first()
    client.force_login(organizer)

    assert client.post(reverse("judging:flag_resolve", args=[other.pk, first.pk])).status_code == 404
    assert client.post(reverse("judging:flag_resolve", args=[flagged_campaign.pk, plain.pk])).status_code == 404
    assert not FlagReview.objects.exists()


def test_assessors_cannot_see_or_resolve_flags(client, flagged_campaign):
    first = Judgment.objects.filter(flagged=True).order_by("pk").first()
    client.force_login(UserFactory(username="carol"))

    assert client.get(reverse("judging:campaign_flags", args=[flagged_campaign.pk])).status_code == 403
    assert client.post(reverse("judging:flag_resolve", args=[flagged_campaign.pk, first.pk])).status_code == 403
    assert client.get(reverse("judging:campaign_flags_csv", args=[flagged_campaign.pk])).status_code == 403
