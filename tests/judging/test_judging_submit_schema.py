"""One input schema for an answer (issue 25): the judging page's submit and the API's submit read an answer with the
same `SubmitInputSerializer`, so the same body gets the same verdict on both: stored with the same values, or
refused with a 400."""

from __future__ import annotations

import pytest
from django.test import Client
from django.urls import reverse

from judging import queue, services
from judging.forms import CANNOT_JUDGE_REASONS
from judging.models import Condition, Judgment
from tests.factories import UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db


def _assignment(campaign, username: str):
    return services.assignments_create(
        campaign=campaign,
        assessor=UserFactory(username=username),
        topics=list(campaign.topics.all()),
        condition=Condition.FROM_SCRATCH,
    )[0]


def _verdict(response, assignment) -> tuple:
    stored = Judgment.objects.filter(assignment=assignment).first()
    if stored is None:
        return ("refused", response.status_code)
    return ("stored", stored.label, stored.not_judged_reason, stored.seconds, stored.flagged, stored.comment)


def _send(campaign, path: str, changes: dict[str, str | None]) -> tuple:
    assignment = _assignment(campaign, f"assessor-{path}")
    card = queue.queue_state(assignment=assignment).card
    body = {"pair_id": str(card.campaign_pair.pair_id), "token": card.token, "label": "FS", **changes}
    body = {name: value for name, value in body.items() if value is not None}
    client = Client()
    client.force_login(assignment.assessor)
    if path == "page":
        url = reverse("judging:submit", args=[assignment.pk])
        response = client.post(url, body, headers={"HX-Request": "true"})
    else:
        response = client.post(f"/api/assignments/{assignment.pk}/submit/", body)
    return _verdict(response, assignment)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"seconds": "12.5"}, ("stored", "FS", "", 12.5, False, "")),
        ({"seconds": ""}, ("stored", "FS", "", None, False, "")),
        ({"seconds": "-1"}, ("refused", 400)),
        ({"seconds": "1e9"}, ("refused", 400)),
        ({"seconds": "NaN"}, ("refused", 400)),
        ({"seconds": "inf"}, ("refused", 400)),
        ({"label": "XX"}, ("refused", 400)),
        ({"label": None}, ("refused", 400)),
        ({"label": ""}, ("stored", "", CANNOT_JUDGE_REASONS[0], None, False, "")),
        ({"label": "", "not_judged_reason": " unclear "}, ("stored", "", "unclear", None, False, "")),
        ({"label": "", "not_judged_reason": "x" * 201}, ("refused", 400)),
        ({"label": "NS", "not_judged_reason": "unclear"}, ("stored", "NS", "", None, False, "")),
        ({"comment": "x" * 2001}, ("refused", 400)),
        ({"comment": "x" * 2000}, ("stored", "FS", "", None, False, "x" * 2000)),
        ({"flagged": "on"}, ("stored", "FS", "", None, True, "")),
        ({"flagged": "true"}, ("stored", "FS", "", None, True, "")),
        ({"flagged": ""}, ("stored", "FS", "", None, False, "")),
        ({"flagged": "0"}, ("stored", "FS", "", None, False, "")),
        ({"flagged": "false"}, ("stored", "FS", "", None, False, "")),
        ({"flagged": "maybe"}, ("refused", 400)),
        ({"pair_id": "99999999999999999999"}, ("refused", 400)),
        ({"token": "not-a-token"}, ("refused", 400)),
    ],
    ids=lambda value: repr(value)[:40] if isinstance(value, dict) else None,
)
def test_the_page_and_the_api_give_the_same_verdict_on_the_same_answer(changes, expected):
    # given: one campaign, an assessor on the page and another on the API
    campaign = judging_campaign_build(n_sentences=2, passages_per_topic=2)

    # when: the same body goes to the judging page and to the API
    page, api = _send(campaign, "page", changes), _send(campaign, "api", changes)

    # then
    assert page == api == expected
