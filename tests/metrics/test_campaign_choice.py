"""The default campaign of a metrics page is the one the organizer chose last, kept per user across logins
(issue 24): creating a newer campaign never moves the page to it."""

from __future__ import annotations

import pytest
from django.test import Client

from judging import queue, services
from judging.models import CampaignPair, Condition
from tests.factories import JudgeFactory, OrganizerFactory, PairJudgmentFactory, UserFactory, judging_campaign_build

pytestmark = pytest.mark.usefixtures("fresh_cache")


def _campaign_with_labels(name: str):
    """A campaign whose from-scratch assessor and LLM judge both labelled it: one the default rule can pick."""
    campaign = judging_campaign_build(n_sentences=3, passages_per_topic=3, name=name)
    (assignment,) = services.assignments_create(
        campaign=campaign, assessor=UserFactory(), topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )
    card = queue.queue_state(assignment=assignment).card
    services.judgment_submit(
        assignment=assignment, pair_id=card.campaign_pair.pair_id, label="FS", token=card.token_uuid
    )
    llm = JudgeFactory(name=f"llm-{name}", kind="llm")
    for cp in CampaignPair.objects.filter(campaign=campaign).select_related("pair"):
        PairJudgmentFactory(judge=llm, pair=cp.pair, label="PS")
    campaign.post_edit_judge = llm
    campaign.save()
    return campaign


@pytest.fixture
def organizer_client(db):
    client = Client()
    client.force_login(OrganizerFactory(username="olga"))
    return client


def test_a_newer_campaign_does_not_move_the_dashboard_off_the_one_chosen_last(organizer_client):
    # given: the organizer looked at "spring"; then "summer" is created
    _campaign_with_labels("spring")
    assert organizer_client.get("/metrics/", {"campaign": "spring"}).status_code == 200
    _campaign_with_labels("summer")

    # when
    response = organizer_client.get("/metrics/")

    # then
    assert response.context["choice"].campaign == "spring"
    assert "spring: the one you chose last" in response.content.decode()


def test_the_choice_survives_logging_out(organizer_client):
    # given: the organizer chose everything loaded, then logged out
    _campaign_with_labels("spring")
    organizer_client.get("/metrics/", {"campaign": ""})
    organizer_client.logout()
    _campaign_with_labels("summer")

    # when
    client = Client()
    client.force_login(OrganizerFactory._meta.model.objects.get(username="olga"))
    response = client.get("/metrics/")

    # then
    assert response.context["choice"].campaign == ""


def test_each_organizer_keeps_their_own_choice(organizer_client):
    # given
    _campaign_with_labels("spring")
    _campaign_with_labels("summer")
    organizer_client.get("/metrics/", {"campaign": "spring"})
    other = Client()
    other.force_login(OrganizerFactory(username="omar"))
    other.get("/metrics/", {"campaign": "summer"})

    # when / then
    assert organizer_client.get("/metrics/").context["choice"].campaign == "spring"
    assert other.get("/metrics/").context["choice"].campaign == "summer"


def test_the_studies_page_opens_on_the_campaign_chosen_last(organizer_client):
    # given
    _campaign_with_labels("spring")
    _campaign_with_labels("summer")
    organizer_client.get("/metrics/studies/", {"campaign": "spring"})

    # when
    response = organizer_client.get("/metrics/studies/")

    # then
    assert response.context["campaign"].name == "spring"
