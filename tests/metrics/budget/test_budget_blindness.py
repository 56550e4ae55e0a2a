"""Blindness of a budget sample (DESIGN §3, issue 16): an assessor judging a sample from scratch meets no LLM
label and nothing of the draw (inclusion probabilities, the design, that it is a sample) on any URL they reach;
the budget pages and API are organizers' only."""

from __future__ import annotations

import pytest
from django.test import Client

from judging.models import Pair
from metrics.budget.services import budget_assign, budget_sample_draw
from tests.factories import UserFactory, study_campaign_build, study_labels_seed
from tests.judging.test_judging_blindness import _every_get_path

pytestmark = pytest.mark.django_db

LLM = "gpt-budget-probe"
SHARE = 0.4321  # a probability no page would print by chance


def test_no_url_an_assessor_reaches_shows_the_llms_labels_or_the_draw():
    # given: a sample drawn stratified (its π differ by the LLM's label) and assigned to alice
    campaign = study_campaign_build(pairs_per_topic=(12, 6), runs=2, name="campaign-b")
    study_labels_seed(campaign, human="nist-probe", llm=LLM)
    sample = budget_sample_draw(campaign=campaign, llm=LLM, share=SHARE, design="stratified", seed=1)
    alice = UserFactory(username="alice")
    made = budget_assign(sample=sample, assessor=alice)
    probabilities = {f"{p:.4f}"[:6] for p in sample.items.values_list("inclusion_probability", flat=True)}
    ids = sorted({sample.pk, campaign.pk, *(a.pk for a in made), *Pair.objects.values_list("pk", flat=True)[:2]})
    client = Client()
    client.force_login(alice)

    # when: every GET route of the project, with these ids
    reached = {}
    for path in _every_get_path(ids, [campaign.topics.first().topic_id, LLM]):
        response = client.get(path)
        if response.status_code == 200 and not getattr(response, "streaming", False):
            reached[path] = response.content.decode(errors="replace")

    # then: she reaches her judging pages and API, and none of them names the LLM, its labels or the draw
    assert {f"/judge/{a.pk}/" for a in made} <= set(reached)
    assert f"/api/assignments/{made[0].pk}/next/" in reached
    assert not any(path.startswith(("/metrics/", "/api/metrics/", "/api/budget/")) for path in reached)
    for path, text in reached.items():
        assert LLM not in text, path
        for p in probabilities:
            assert p not in text, (path, p)
        if path.startswith("/api/schema"):
            continue  # the API's schema describes the organizers' endpoints too, with no data in it
        assert "inclusion" not in text.lower(), path
        assert "budget" not in text.lower(), path
        assert "stratified" not in text.lower(), path


def test_the_budget_pages_and_api_refuse_an_assessor():
    campaign = study_campaign_build(pairs_per_topic=(6,), runs=1, name="campaign-c")
    study_labels_seed(campaign, human="nist-probe", llm=LLM)
    sample = budget_sample_draw(campaign=campaign, llm=LLM, share=0.5, seed=0)
    client = Client()
    client.force_login(UserFactory(username="bob"))

    for path in (
        "/metrics/budget/",
        f"/metrics/budget/{sample.pk}/",
        "/api/budget/samples/",
        f"/api/budget/samples/{sample.pk}/",
        f"/api/budget/plan/?llm={LLM}&human=nist-probe",
    ):
        response = client.get(path)
        assert response.status_code in (302, 403), path
        assert LLM not in response.content.decode(), path
