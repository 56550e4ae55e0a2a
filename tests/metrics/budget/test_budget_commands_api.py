"""The budget commands and API (issue 16): draw, assign, estimates and plan from the CLI and over REST, with the
same services and the same figures as the page; bad input is a clear error, never a traceback."""

from __future__ import annotations

import json
from io import StringIO

import pytest
from django.core.management import CommandError, call_command
from rest_framework.test import APIClient

from metrics.budget import report
from metrics.budget.models import BudgetSample
from metrics.budget.services import budget_sample_draw
from tests.factories import OrganizerFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = pytest.mark.django_db

LLM = "gpt-budget-cli"


@pytest.fixture
def campaign():
    campaign = study_campaign_build(pairs_per_topic=(16, 8), runs=2, name="budget-cli")
    study_labels_seed(campaign, human="nist-cli", llm=LLM)
    return campaign


def _call(*args: str) -> str:
    out = StringIO()
    call_command(*args, stdout=out)
    return out.getvalue()


def test_the_commands_draw_assign_and_report(campaign):
    UserFactory(username="alice")

    drawn = _call("budget_draw", "budget-cli", "--llm", LLM, "--budget", "12", "--design", "stratified", "--seed", "4")
    sample = BudgetSample.objects.get()
    assigned = _call("budget_assign", str(sample.pk), "alice")
    table = _call("budget_estimate", str(sample.pk))
    data = json.loads(_call("budget_estimate", str(sample.pk), "--format", "json"))

    assert f"budget sample #{sample.pk}: {sample.items.count()} of 24 pairs drawn" in drawn
    assert "12 pairs, design stratified, seed 4" in drawn
    assert sample.budget_pairs == 12
    assert "alice: 2 from-scratch assignment(s)" in assigned
    assert f"LLM labels {LLM}/none; human labels campaign:budget-cli/from_scratch" in table
    assert data == report.budget_estimates(sample=sample)
    assert "set: the rank set" in table
    assert "Kendall's tau, LLM-only vs LLM+S ranking, precision:" in table


def test_the_commands_refuse_bad_input_with_what_to_do(campaign):
    with pytest.raises(CommandError, match="not a budget: write a number of pairs"):
        _call("budget_draw", "budget-cli", "--llm", LLM, "--budget", "lots")
    with pytest.raises(CommandError, match="no campaign named 'nope'"):
        _call("budget_draw", "nope", "--llm", LLM, "--budget", "10%")
    with pytest.raises(CommandError, match="no judge named"):
        _call("budget_draw", "budget-cli", "--llm", "nobody", "--budget", "10%")
    with pytest.raises(CommandError, match="no budget sample #99"):
        _call("budget_estimate", "99")
    with pytest.raises(CommandError, match="has no labels yet"):
        _call("budget_plan", "--llm", LLM, "--human", "campaign:budget-cli/from_scratch", "--campaign", "budget-cli")


def test_the_plan_command_gives_narrower_widths_with_more_budget_and_with_the_llm(campaign):
    data = json.loads(
        _call("budget_plan", "--llm", LLM, "--human", "nist-cli", "--campaign", "budget-cli", "--format", "json")
    )

    assert data["label_sets"] == {"llm": f"{LLM}/none", "human": "nist-cli/from_scratch"}
    assert data["known"] == data["citations"] == 48
    widths = [p["width_human_only"] for p in data["curves"]["precision"]]
    assert widths == sorted(widths, reverse=True)
    assert all(p["width"] <= p["width_human_only"] for p in data["curves"]["recall"])


def test_the_api_draws_assigns_and_reads_the_estimates(campaign):
    UserFactory(username="alice")
    client = APIClient()
    client.force_authenticate(OrganizerFactory(username="olga"))

    made = client.post(
        "/api/budget/samples/", {"campaign": "budget-cli", "llm": LLM, "share": 0.5, "seed": 1}, format="json"
    )
    sample_id = made.json()["id"]
    assigned = client.post(f"/api/budget/samples/{sample_id}/assign/", {"assessor": "alice"}, format="json")
    estimates = client.get(f"/api/budget/samples/{sample_id}/")
    refused = client.post("/api/budget/samples/", {"campaign": "budget-cli", "llm": LLM, "share": 1.5}, format="json")
    plan = client.get(f"/api/budget/plan/?campaign=budget-cli&llm={LLM}&human=nist-cli")

    assert made.status_code == 201
    assert made.json()["design"] == "uniform"
    assert made.json()["drawn"] == BudgetSample.objects.get(pk=sample_id).items.count()
    assert assigned.status_code == 201
    assert {a["condition"] for a in assigned.json()["assignments"]} == {"from_scratch"}
    assert estimates.json()["label_sets"]["llm"] == f"{LLM}/none"
    assert refused.status_code == 400
    assert "at most 1" in refused.json()["detail"]
    assert plan.status_code == 200
    assert plan.json()["topics"] == 2


def test_the_api_lists_samples_in_one_query_whatever_their_number(campaign, django_assert_max_num_queries):
    # given: five samples of the campaign
    for seed in range(5):
        budget_sample_draw(campaign=campaign, llm=LLM, share=0.5, seed=seed)
    client = APIClient()
    client.force_authenticate(OrganizerFactory(username="olga"))

    # when: the list costs one query, the campaign joined and each sample's drawn pairs counted in it
    with django_assert_max_num_queries(1):
        listed = client.get("/api/budget/samples/")

    # then
    assert listed.status_code == 200
    assert {s["id"]: s["drawn"] for s in listed.json()} == {
        sample.pk: sample.items.count() for sample in BudgetSample.objects.all()
    }
    assert {s["campaign"] for s in listed.json()} == {"budget-cli"}


def test_the_page_the_api_and_the_command_read_a_budget_alike(campaign, client):
    # given: an organizer on the page and on the API
    organizer = OrganizerFactory(username="olga")
    client.force_login(organizer)
    api = APIClient()
    api.force_authenticate(organizer)
    draw = {"campaign": "budget-cli", "llm": LLM, "design": "uniform", "seed": "1"}

    # when: "50%" and "12" from each path
    client.post("/metrics/budget/", {**draw, "budget": "50%"})
    api.post("/api/budget/samples/", {**draw, "budget": "50%"}, format="json")
    _call("budget_draw", "budget-cli", "--llm", LLM, "--budget", "50%", "--seed", "1")
    client.post("/metrics/budget/", {**draw, "budget": "12"})
    api.post("/api/budget/samples/", {**draw, "budget": "12"}, format="json")
    _call("budget_draw", "budget-cli", "--llm", LLM, "--budget", "12", "--seed", "1")

    # then: three shares of 0.5 and three budgets of 12 pairs, the same draw each time
    budgets = list(BudgetSample.objects.order_by("pk").values_list("budget_share", "budget_pairs"))
    assert budgets == [(0.5, None)] * 3 + [(None, 12)] * 3
    drawn = [sorted(s.items.values_list("pair_id", flat=True)) for s in BudgetSample.objects.order_by("pk")]
    assert drawn[0] == drawn[1] == drawn[2]


def test_a_bad_budget_is_the_same_error_on_the_page_and_the_api(campaign, client):
    organizer = OrganizerFactory(username="olga")
    client.force_login(organizer)
    api = APIClient()
    api.force_authenticate(organizer)
    draw = {"campaign": "budget-cli", "llm": LLM, "budget": "lots"}

    page = client.post("/metrics/budget/", draw)
    answer = api.post("/api/budget/samples/", draw, format="json")
    both = api.post("/api/budget/samples/", {**draw, "budget": "10%", "share": 0.1}, format="json")

    message = "&#x27;lots&#x27; is not a budget: write a number of pairs (300) or a share (10% or 0.1)"
    assert page.status_code == 200
    assert message in page.content.decode()
    assert answer.status_code == 400
    assert answer.json() == {
        "budget": ["'lots' is not a budget: write a number of pairs (300) or a share (10% or 0.1)"]
    }
    assert both.status_code == 400
    assert list(both.json()) == ["budget"]
    assert not BudgetSample.objects.exists()


def test_the_api_and_the_command_draw_an_active_sample_and_refuse_one_without_reference(campaign):
    client = APIClient()
    client.force_authenticate(OrganizerFactory(username="olga"))
    draw = {"campaign": "budget-cli", "llm": LLM, "share": 0.5, "design": "active"}

    refused = client.post("/api/budget/samples/", draw, format="json")
    made = client.post("/api/budget/samples/", {**draw, "reference": "nist-cli/from_scratch"}, format="json")
    printed = _call(
        "budget_draw", "budget-cli", "--llm", LLM, "--budget", "50%", "--design", "active",
        "--reference", "nist-cli/from_scratch",
    )  # fmt: skip
    plan = _call("budget_plan", "--llm", LLM, "--human", "nist-cli", "--campaign", "budget-cli")

    assert refused.status_code == 400
    assert "learn the LLM's errors" in refused.json()["detail"]
    assert made.status_code == 201
    assert made.json()["design"] == "active"
    assert made.json()["reference"] == "nist-cli/from_scratch"
    assert "design active" in printed
    assert "uniform pairs for P width" in plan
    with pytest.raises(CommandError, match="learn the LLM's errors"):
        _call("budget_draw", "budget-cli", "--llm", LLM, "--budget", "50%", "--design", "active")
