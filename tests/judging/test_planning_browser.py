"""An organizer in Chromium: the assignment plan previewed then confirmed, and the lifecycle buttons (issue 23)."""

from __future__ import annotations

import re

import pytest
from django.contrib.auth.models import User

from judging.models import Assignment, Campaign
from tests.conftest import browser_login
from tests.factories import OrganizerFactory, campaign_of_sizes_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


@pytest.fixture
def page(page):
    # The live server's first pages are slow on a machine shared by many test runs.
    page.set_default_timeout(60_000)
    return page


def test_the_plan_is_previewed_without_writing_then_confirmed(live_server, page):
    # given
    campaign = campaign_of_sizes_build(sizes=(9, 7, 5, 3), name="planned")
    for name in ("p1", "p2", "p3"):
        User.objects.create(username=name)
    OrganizerFactory(username="org")
    browser_login(page, live_server, "org")

    # when: the preview
    page.goto(f"{live_server.url}/organize/campaigns/{campaign.pk}/")
    page.click("#assign-by-plan")
    for name in ("p1", "p2", "p3"):
        page.get_by_label(name, exact=True).check()
    page.select_option("select[name=condition]", "from_scratch")
    page.fill("input[name=overlap]", "2")
    page.click("#plan-preview")
    page.wait_for_selector("#plan-loads")

    # then: the loads are shown and nothing is written
    assert page.locator("#plan-loads tbody tr").count() == 3
    assert "Preview: nothing written yet" in page.inner_text("#plan")
    assert not Assignment.objects.exists()

    # when: confirmed
    page.click("#plan-confirm")
    page.wait_for_url(re.compile(rf"/organize/campaigns/{campaign.pk}/$"))

    # then
    assert "8 new assignment(s)" in page.inner_text("main")
    assert Assignment.objects.filter(campaign=campaign).count() == 8


def test_the_lifecycle_buttons_clone_archive_restore_and_delete(live_server, page):
    # given
    campaign = campaign_of_sizes_build(sizes=(4, 2), name="cycled")
    OrganizerFactory(username="org")
    browser_login(page, live_server, "org")
    page.goto(f"{live_server.url}/organize/campaigns/{campaign.pk}/")

    # when / then: clone
    page.fill("#lifecycle input[name=name]", "cycled-2")
    page.click("#clone-button")
    page.wait_for_selector("text=a copy of cycled")
    clone = Campaign.objects.get(name="cycled-2")
    assert clone.campaign_pairs.count() == 6

    # archive and restore the clone
    page.click("#archive-button")
    page.wait_for_selector("#archived-banner")
    assert Campaign.objects.get(pk=clone.pk).archived_at is not None
    page.click("#restore-button")
    page.wait_for_selector("#archive-button")
    assert Campaign.objects.get(pk=clone.pk).archived_at is None

    # delete it, typing its name
    page.click("#delete-link")
    assert "6 pairs in its pool" in page.inner_text("#delete-losses")
    page.fill("input[name=confirm]", "cycled-2")
    page.click("#delete-confirm")
    page.wait_for_url(re.compile(r"/organize/campaigns/$"))
    assert not Campaign.objects.filter(name="cycled-2").exists()
    assert Campaign.objects.filter(name="cycled").exists()
