"""A budget sample end to end in Chromium (issue 16): the organizer draws the sample and assigns it on the budget
pages, the assessor judges a few drawn pairs with the keyboard (from scratch, blind), and the organizer's
estimates change; screenshots at 1366x768."""

from __future__ import annotations

import pytest

from judging.models import Judgment
from metrics.budget.models import BudgetSample
from tests.conftest import browser_login
from tests.factories import OrganizerFactory, UserFactory, study_campaign_build, study_labels_seed

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

LLM = "gpt-budget-ui"
SHOTS = "/tmp"


def _token(page) -> str:
    return page.get_attribute("#pair-card", "data-token") or ""


def _press_and_wait(page, key: str) -> None:
    before = _token(page)
    page.wait_for_selector("body[data-judge=ready]", state="attached")
    page.keyboard.press(key)
    page.wait_for_function(
        "t => { const c = document.getElementById('pair-card'); return c && c.dataset.token !== t; }", arg=before
    )


def _cell(page, metric: str, run_id: str, column: str) -> str:
    return page.inner_text(f"#budget-{metric} tr[data-run='{run_id}'] td.{column}")


def test_an_organizer_draws_and_assigns_a_sample_an_assessor_judges_it_and_the_estimates_move(live_server, page):
    # given a built campaign (two topics, two runs) with LLM labels on every pair, an organizer and an assessor
    campaign = study_campaign_build(pairs_per_topic=(24, 12), runs=2, name="budget-ui")
    study_labels_seed(campaign, human="nist-ui", llm=LLM)
    OrganizerFactory(username="olga")
    UserFactory(username="alice")
    page.set_viewport_size({"width": 1366, "height": 768})
    browser_login(page, live_server, "olga")

    # when the organizer draws 50% uniformly with seed 3 ...
    page.goto(f"{live_server.url}/metrics/budget/?campaign={campaign.name}")
    page.select_option("select[name=llm]", f"{LLM}/none")
    page.fill("input[name=budget]", "50%")
    page.fill("input[name=seed]", "3")
    page.screenshot(path=f"{SHOTS}/budget-list.png")
    with page.expect_navigation():
        page.click("#budget-draw button[type=submit]")
    sample = BudgetSample.objects.get()
    assert sample.seed == 3
    assert sample.budget_share == 0.5
    assert page.inner_text("#budget-drawn") == str(sample.items.count())
    assert page.inner_text("#budget-judged") == "0"
    run_id = campaign.runs.order_by("run_id").first().run_id
    assert _cell(page, "precision", run_id, "ppi") == "—"

    # ... and assigns it to alice
    page.select_option("#budget-assign select[name=assessor]", "alice")
    with page.expect_navigation():
        page.click("#budget-assign button[type=submit]")
    assert "2 from-scratch assignment(s) for alice" in page.content()

    # then alice judges the first three pairs of her first topic with the keyboard, blind
    page.context.clear_cookies()
    browser_login(page, live_server, "alice")
    page.wait_for_selector("#start:focus")
    with page.expect_navigation():
        page.keyboard.press("Enter")
    page.wait_for_selector("#pair-card[data-state=pair]")
    first_topic = sample.assignments.order_by("order").first().topic
    drawn = list(sample.items.filter(topic=first_topic).order_by("order").values_list("pair_id", flat=True))
    served = []
    for key in ("1", "1", "1"):
        assert LLM not in page.content()
        assert page.locator(".llm-label").count() == 0
        served.append(int(page.get_attribute("input[name=pair_id]", "value")))
        _press_and_wait(page, key)
    page.screenshot(path=f"{SHOTS}/budget-judge.png")
    assert served == drawn[:3]
    assert Judgment.objects.filter(judge__user__username="alice", condition="from_scratch").count() == 3

    # and the organizer's page counts them and shows estimates where a run has two judged pairs
    page.context.clear_cookies()
    browser_login(page, live_server, "olga")
    page.goto(f"{live_server.url}/metrics/budget/{sample.pk}/")
    assert page.inner_text("#budget-judged") == "3"
    assert _cell(page, "precision", run_id, "ppi") != "—"
    page.screenshot(path=f"{SHOTS}/budget-sample.png", full_page=False)
    page.screenshot(path=f"{SHOTS}/budget-sample-full.png", full_page=True)


@pytest.mark.parametrize("width", [1366, 1024])
def test_the_sample_page_and_the_plan_page_fit_the_screen(live_server, page, width):
    # given a sample with judged pairs (rank sets, τ) and human labels to plan from (the designs compared)
    from tests.metrics.budget.test_budget_figures import overdrawn_sample_judged

    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-fit")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    sample = overdrawn_sample_judged(campaign)
    OrganizerFactory(username="olga")
    page.set_viewport_size({"width": width, "height": 768})
    browser_login(page, live_server, "olga")
    plan = "plan_human=nist/from_scratch&plan_llm=gpt-budget/none"

    for name, url in (
        ("sample", f"/metrics/budget/{sample.pk}/?{plan}"),
        ("plan", f"/metrics/budget/?campaign={campaign.name}&{plan}"),
    ):
        # when
        page.goto(f"{live_server.url}{url}")

        # then: the rank sets, τ and the design comparison are there, and nothing runs off the side
        assert page.locator("#budget-designs tbody tr").count() == 9
        if name == "sample":
            assert page.locator("td.rank-set").count() == 4
            assert "Kendall's τ" in page.inner_text("body")
        assert page.evaluate("document.documentElement.scrollWidth <= window.innerWidth")
        page.screenshot(path=f"{SHOTS}/budget-{name}-{width}.png", full_page=True)
