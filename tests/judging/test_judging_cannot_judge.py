"""Cannot judge: an assessor may skip a pair with a reason; it is stored as not judged (DESIGN §2), counts as
done in the queue, and the label rule leaves the citation out rather than borrowing another label."""

from __future__ import annotations

import numpy as np
import pytest
from django.urls import reverse

from judging import queue, selectors, services
from judging.labels import citation_labels, label_set_get
from judging.models import CampaignPair, Condition, Judgment
from tests.conftest import browser_login
from tests.factories import UserFactory, judging_campaign_build


def _assignment(n_sentences=3):
    campaign = judging_campaign_build(n_sentences=n_sentences, passages_per_topic=n_sentences, name="skips")
    alice = UserFactory(username="alice")
    (made,) = services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    return selectors.assessor_assignment_get(user=alice, assignment_id=made.pk)


@pytest.mark.django_db
def test_a_skip_is_stored_as_not_judged_with_its_reason_and_the_queue_moves_on(client):
    # given
    assignment = _assignment()
    card = queue.queue_state(assignment=assignment).card
    client.force_login(assignment.assessor)

    # when
    response = client.post(
        reverse("judging:submit", args=[assignment.pk]),
        {
            "pair_id": card.campaign_pair.pair_id,
            "token": card.token,
            "label": "",
            "not_judged_reason": "The passage is unreadable, empty or not in a language I read",
        },
        HTTP_HX_REQUEST="true",
    )

    # then
    assert response.status_code == 200
    judgment = Judgment.objects.get(assignment=assignment)
    assert (judgment.label, judgment.not_judged_reason) == (
        "",
        "The passage is unreadable, empty or not in a language I read",
    )
    state = queue.queue_state(assignment=assignment)
    assert state.topic_progress.done == 1
    assert state.card.campaign_pair.pair_id != card.campaign_pair.pair_id


@pytest.mark.django_db
def test_the_label_rule_leaves_a_skipped_citation_out(client):
    # given: the first pair skipped, the second judged
    assignment = _assignment()
    for label in ["", "FS"]:
        card = queue.queue_state(assignment=assignment).card
        services.judgment_submit_and_next(
            assignment=assignment,
            pair_id=card.campaign_pair.pair_id,
            label=label,
            token=card.token_uuid,
            not_judged_reason="I cannot judge this pair" if label == "" else "",
        )
    cps = list(CampaignPair.objects.filter(campaign=assignment.campaign).order_by("position")[:2])

    # when
    labels = citation_labels(
        label_set_get("campaign:skips/from_scratch"),
        citation_ids=np.array([cp.context_citation_id for cp in cps]),
        citation_pairs=np.array([cp.pair_id for cp in cps]),
    )

    # then
    assert labels.codes.tolist() == [-1, 2]
    assert labels.not_judged.tolist() == [True, False]


@pytest.mark.django_db
def test_a_skip_without_a_reason_is_refused_by_the_service_and_the_page_gives_the_default_reason(client):
    assignment = _assignment()
    card = queue.queue_state(assignment=assignment).card
    with pytest.raises(services.SubmissionRejected, match="say why"):
        services.judgment_submit_and_next(
            assignment=assignment, pair_id=card.campaign_pair.pair_id, label="", token=card.token_uuid
        )
    assert not Judgment.objects.exists()

    client.force_login(assignment.assessor)
    client.post(
        reverse("judging:submit", args=[assignment.pk]),
        {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": ""},
    )
    assert Judgment.objects.get().not_judged_reason == "I cannot judge this pair"


@pytest.mark.django_db
def test_the_api_takes_a_skip_with_its_reason(client):
    assignment = _assignment()
    card = queue.queue_state(assignment=assignment).card
    client.force_login(assignment.assessor)

    response = client.post(
        f"/api/assignments/{assignment.pk}/submit/",
        {"pair_id": card.campaign_pair.pair_id, "token": card.token, "label": "", "not_judged_reason": "unclear"},
        content_type="application/json",
    )

    assert response.status_code == 201, response.content
    assert Judgment.objects.get().not_judged_reason == "unclear"


@pytest.mark.browser
@pytest.mark.django_db(transaction=True)
def test_an_assessor_skips_a_pair_with_the_0_key_and_a_reason(live_server, page):
    assignment = _assignment()
    browser_login(page, live_server, "alice")
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("body[data-judge=ready]", state="attached")

    page.select_option("#cannot-judge-reason", label="I do not know enough about the topic")
    page.locator("#pair-card").click(position={"x": 5, "y": 5})  # leave the select, back to the keys
    token = page.get_attribute("#pair-card", "data-token")
    page.keyboard.press("0")
    page.wait_for_function("t => document.getElementById('pair-card').dataset.token !== t", arg=token)
    page.wait_for_selector("body[data-judge=ready]", state="attached")  # the answer acknowledged

    judgment = Judgment.objects.get(assignment_id=assignment.pk)
    assert (judgment.label, judgment.not_judged_reason) == ("", "I do not know enough about the topic")
