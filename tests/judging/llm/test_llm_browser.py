"""The organizer starts pre-labelling from the page and watches the htmx progress bar fill up."""

from __future__ import annotations

import pytest

from judging.llm import services
from judging.llm.models import Provider
from judging.models import Judgment
from tests.conftest import browser_login
from tests.factories import llm_campaign_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def slow_job_page(page, live_server, organizer, fake_openai, llm_fast, *, statements, latency):
    """The campaign's pre-label page, logged in as the organizer, with a judge answering one call at a time
    after `latency` seconds (jobs run in a thread of the live server); returns the judge."""
    llm_fast.BACKGROUND_IN_THREAD = True
    fake_openai.switches.latency = latency
    campaign = llm_campaign_build(statements=statements)
    llm = services.llm_judge_create(
        name="slow-llm", model="m", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url, max_concurrency=1
    )
    browser_login(page, live_server, organizer.username)
    page.goto(f"{live_server.url}/organize/campaigns/{campaign.pk}/prelabel/")
    return llm


def test_the_progress_bar_updates_live_until_the_job_is_done(
    page, live_server, organizer, fake_openai, llm_fast, tmp_path
):
    # given a campaign, a judge answering in half a second, one call at a time, jobs run in a thread
    page.set_viewport_size({"width": 1366, "height": 768})
    statements = [f"Claim {i} [FS]." for i in range(8)]
    llm = slow_job_page(page, live_server, organizer, fake_openai, llm_fast, statements=statements, latency=0.5)
    # when the organizer presses the button
    page.click("text=Pre-label with slow-llm")
    # then the page shows the job still running, and then, without a reload, done
    first = int(page.locator(".js-done").inner_text())
    assert first < 8
    assert page.locator(".js-status").inner_text() in ("Running", "Pending")
    page.wait_for_function("Number(document.querySelector('.js-done').textContent) >= 2", timeout=20_000)
    page.screenshot(path=str(tmp_path / "prelabel-running-1366x768.png"))
    page.wait_for_function("document.querySelector('.js-done').textContent.trim() === '8'", timeout=20_000)
    page.wait_for_function("document.querySelector('.js-status').textContent.trim() === 'Done'", timeout=10_000)
    assert page.locator(".js-remaining").inner_text() == "0"
    assert page.locator(".js-errors").inner_text() == "0"
    assert Judgment.objects.filter(judge=llm.judge).count() == 8
    # and the jobs table, too, shows the job done without a reload
    page.wait_for_selector('#prelabel-jobs .js-job-status[data-status="done"]', timeout=10_000)
    assert page.locator("#prelabel-jobs").get_attribute("hx-trigger") is None
    page.screenshot(path=str(tmp_path / "prelabel-done-1366x768.png"))


def test_the_organizer_tests_the_connection_and_sees_the_estimate(
    page, live_server, organizer, fake_openai, llm_fast, tmp_path
):
    # given the pre-label page of a 12-pair campaign at 1366x768
    page.set_viewport_size({"width": 1366, "height": 768})
    statements = [f"Claim {i} [NS]." for i in range(12)]
    slow_job_page(page, live_server, organizer, fake_openai, llm_fast, statements=statements, latency=0.0)
    # then the estimate is shown before anything starts
    assert page.locator(".js-estimate-pairs").inner_text() == "12"
    assert "An estimate" in page.locator(".prelabel-estimate").inner_text()
    # when the organizer tests the connection, then one call is made and its answer shown in place
    page.click(".js-check")
    page.wait_for_selector(".js-check-ok")
    assert "Partial Support" in page.locator(".js-check-ok").inner_text()
    assert fake_openai.chat_calls == 1
    page.screenshot(path=str(tmp_path / "prelabel-1366x768.png"), full_page=False)


def test_the_organizer_cancels_a_running_job_and_resumes_it(page, live_server, organizer, fake_openai, llm_fast):
    # given a slow job running from the page
    statements = [f"Claim {i} [PS]." for i in range(30)]
    llm = slow_job_page(page, live_server, organizer, fake_openai, llm_fast, statements=statements, latency=0.3)
    page.click("text=Pre-label with slow-llm")
    page.wait_for_function("Number(document.querySelector('.js-done').textContent) >= 1", timeout=20_000)
    # when the organizer cancels it and confirms
    page.once("dialog", lambda dialog: dialog.accept())
    page.click(".js-cancel")
    # then, without a reload, the job shows as cancelled, with the pairs left to resume
    page.wait_for_function("document.querySelector('.js-status').textContent.trim() === 'Cancelled'", timeout=10_000)
    assert page.locator(".js-cancel").count() == 0
    assert page.locator(".js-message").inner_text() == f"cancelled by {organizer.username}"
    # and, once the call in flight has ended and been kept, the pairs left to resume
    page.wait_for_selector(".js-resume", timeout=10_000)
    assert "Resume:" in page.locator(".js-resume").inner_text()
    # when the organizer resumes it, then the new job finishes the campaign, each pair called once
    fake_openai.switches.latency = 0.01
    page.click(".js-resume")
    page.wait_for_function("document.querySelector('.js-status').textContent.trim() === 'Done'", timeout=30_000)
    assert Judgment.objects.filter(judge=llm.judge).count() == 30
    assert fake_openai.chat_calls == 30
