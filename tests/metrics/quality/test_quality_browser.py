"""The quality page in Chromium: an organizer goes from the campaign page to the quality page, reads a row per
assessor, the κ heat map and the speed plot, loads a gold file with the page's form and reads the gold accuracy;
the page fits 1366 and 1024 pixels wide."""

from __future__ import annotations

import pytest

from tests.conftest import browser_login
from tests.factories import OrganizerFactory
from tests.metrics.quality.conftest import known_campaign_build
from tests.metrics.quality.test_quality_gold import _gold_csv

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]


def _overflow(page) -> int:
    return page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")


def test_an_organizer_reads_the_quality_page_and_loads_gold(live_server, page, tmp_path):
    # given the known campaign and a gold file of two pairs
    known = known_campaign_build()
    OrganizerFactory(username="org")
    page.set_default_timeout(60_000)  # the shared machine is slow at times; nothing here waits on a timer
    gold = _gold_csv(tmp_path, known, [(0, "FS"), (1, "NS")])
    browser_login(page, live_server, "org")

    # when the organizer opens the campaign page and follows its quality link
    page.goto(f"{live_server.url}/organize/campaigns/{known.campaign.pk}/")
    page.click("#quality-link")

    # then a row per assessor, the heat map and the speed plot are there
    page.wait_for_selector("#quality-table")
    assert page.locator("#quality-table tbody tr").count() == 3
    assert page.locator("svg.kappa-heatmap g.cell").count() == 6
    assert page.locator("svg.speed-plot polyline").count() == 3
    assert page.inner_text("#quality-table tr[data-rater='alice/from_scratch'] td.gold") == "—"

    # when they load the gold file
    page.set_input_files("#gold-form input[type=file]", str(gold))
    with page.expect_navigation():
        page.click("#gold-form button[type=submit]")

    # then the page counts the gold pairs and shows each assessor's accuracy (alice: FS, PS on them: 1 of 2)
    assert page.inner_text("#gold-count") == "2"
    assert page.inner_text("#quality-table tr[data-rater='alice/from_scratch'] td.gold").startswith("50.0%")
    for width in (1366, 1024):
        page.set_viewport_size({"width": width, "height": 768})
        assert _overflow(page) <= 0, width
