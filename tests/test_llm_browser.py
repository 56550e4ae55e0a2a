"""The organizer starts pre-labelling from the page and watches the htmx progress bar fill up."""

from __future__ import annotations

import pytest

from judging.llm import services
from judging.models import Judgment, Provider
from tests.conftest import browser_login
from tests.factories import llm_campaign_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def test_the_progress_bar_updates_live_until_the_job_is_done(page, live_server, organizer, fake_openai, llm_fast):
    # given a campaign, a judge answering in half a second, one call at a time, jobs run in a thread
    llm_fast.LLM_TASKS_IN_THREAD = True
    fake_openai.switches.latency = 0.5
    campaign = llm_campaign_build(statements=[f"Claim {i} [FS]." for i in range(8)])
    llm = services.llm_judge_create(
        name="slow-llm", model="m", provider=Provider.COMPATIBLE, base_url=fake_openai.base_url, max_concurrency=1
    )
    browser_login(page, live_server, organizer.username)
    page.goto(f"{live_server.url}/organize/campaigns/{campaign.pk}/prelabel/")
    # when the organizer presses the button
    page.click("text=Pre-label with slow-llm")
    # then the page shows the job still running, and then, without a reload, done
    first = int(page.locator(".js-done").inner_text())
    assert first < 8
    assert page.locator(".js-status").inner_text() in ("Running", "Pending")
    page.wait_for_function("document.querySelector('.js-done').textContent.trim() === '8'", timeout=20_000)
    page.wait_for_function("document.querySelector('.js-status').textContent.trim() === 'Done'", timeout=10_000)
    assert page.locator(".js-remaining").inner_text() == "0"
    assert page.locator(".js-errors").inner_text() == "0"
    assert Judgment.objects.filter(judge=llm.judge).count() == 8
