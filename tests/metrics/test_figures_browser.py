"""Issue 24 in Chromium at 1024x768 and 1366x768: the dashboard shows the demo's three baseline runs as not judged
by the Opus set (never 0.000) and fits the window; the budget page shows no estimate outside [0, 1] and fits.
Screenshots go to /tmp."""

from __future__ import annotations

import io

import pytest
from django.core.management import call_command

from tests.conftest import PASSWORD, browser_login
from tests.factories import OrganizerFactory, study_campaign_build, study_labels_seed
from tests.metrics.budget.test_budget_figures import overdrawn_sample_judged

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True), pytest.mark.usefixtures("fresh_cache")]

SIZES = [(1024, 768), (1366, 768)]
BASELINES = (
    "baseline_rag24.test_command-r-plus_top20",
    "baseline_rag24.test_gpt-4o_top20",
    "baseline_rag24.test_l31_70b_instruct_top20",
)
FITS = "() => document.documentElement.scrollWidth <= document.documentElement.clientWidth"


def _login(page, live_server):
    organizer = OrganizerFactory(username="org-fig")
    organizer.set_password(PASSWORD)
    organizer.save()
    browser_login(page, live_server, organizer.username)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_demo_dashboard_shows_the_baselines_not_judged_by_opus(live_server, page, width, height):
    # given: the demo (NIST's 45 runs on two topics, three organizer baselines, NIST's and Opus's labels)
    call_command("demo_load", stdout=io.StringIO())
    page.set_viewport_size({"width": width, "height": height})
    page.set_default_timeout(60_000)  # the first page of a fresh live server is slow on a loaded machine
    browser_login(page, live_server, "organizer", "organizer-demo")

    # when
    page.goto(f"{live_server.url}/metrics/?a=nist/from_scratch&b=opus-4.8-nist")
    page.locator("#score-coverage").scroll_into_view_if_needed()
    page.screenshot(path=f"/tmp/h24a-dashboard-{width}.png")
    page.locator("#tau-runs").scroll_into_view_if_needed()
    page.screenshot(path=f"/tmp/h24a-dashboard-tau-{width}.png")

    # then
    for run_id in BASELINES:
        row = page.locator(f"#run-scores tr[data-run='{run_id}']")
        assert row.locator("[data-score=b-not-judged]").inner_text() == "not judged"
        assert "B: not judged" in row.locator("[data-coverage]").inner_text()
        assert "0.000" not in row.inner_text()
    last = page.locator("#run-scores tbody tr").evaluate_all("rows => rows.slice(-3).map(r => r.dataset.run)")
    assert sorted(last) == sorted(BASELINES)
    tau_runs = page.inner_text("#tau-runs")
    assert all(run_id in tau_runs for run_id in BASELINES)  # named among the runs τ leaves out
    assert page.evaluate(FITS)


@pytest.fixture
def clipped_sample(transactional_db):
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-campaign")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    return overdrawn_sample_judged(campaign)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_budget_page_shows_every_estimate_inside_0_1_and_fits(clipped_sample, live_server, page, width, height):
    # given
    page.set_viewport_size({"width": width, "height": height})
    page.set_default_timeout(60_000)  # the first page of a fresh live server is slow on a loaded machine
    _login(page, live_server)

    # when
    page.goto(f"{live_server.url}/metrics/budget/{clipped_sample.pk}/")
    page.screenshot(path=f"/tmp/h24a-budget-{width}.png", full_page=True)

    # then: every figure shown as an estimate or an interval bound lies in [0, 1], and one was clipped
    shown = page.locator("#budget-precision, #budget-recall").locator("td[data-estimate], td.interval")
    texts = shown.all_inner_texts()
    figures = [float(part) for text in texts for part in text.replace("*", " ").strip("[]").replace(",", " ").split()]
    assert len(figures) > 20
    assert all(0 <= v <= 1 for v in figures), [v for v in figures if not 0 <= v <= 1]
    assert page.locator("td[data-estimate] sup").count() > 0
    assert page.evaluate(FITS)


@pytest.mark.parametrize(("width", "height"), SIZES)
def test_the_plan_curve_is_on_the_budget_page_before_any_draw(transactional_db, live_server, page, width, height):
    # given: a campaign with human and LLM labels, and no sample drawn
    campaign = study_campaign_build(pairs_per_topic=(30, 12), runs=2, name="budget-campaign")
    study_labels_seed(campaign, human="nist", llm="gpt-budget")
    page.set_viewport_size({"width": width, "height": height})
    page.set_default_timeout(60_000)  # the first page of a fresh live server is slow on a loaded machine
    _login(page, live_server)

    # when
    page.goto(f"{live_server.url}/metrics/budget/?campaign={campaign.name}")
    page.locator("#budget-plan").screenshot(path=f"/tmp/h24a-plan-{width}.png")

    # then
    assert page.locator("#budget-plan-plots svg").count() == 2
    assert "share of the pairs judged by people (%)" in page.inner_text("#budget-plan-plots")
    assert page.evaluate(FITS)
