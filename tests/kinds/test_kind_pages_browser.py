"""The organizer's pages with campaigns of every kind, in Chromium at 1366 and 1024 wide: the campaign list (its
Kind column), the new-campaign form (the kind select and relevance's pool options) and a relevance campaign's
page (what it judges, its rebuild options, its panel) fit the window."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from judging.kinds import kind_get
from judging.models import Campaign
from tests.conftest import browser_login
from tests.factories import OrganizerFactory, llm_campaign_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OVERFLOW = "[document.documentElement.scrollWidth, document.documentElement.clientWidth]"


@pytest.mark.parametrize("width", [1366, 1024])
def test_the_campaign_pages_of_each_kind_fit_the_window(
    live_server: Any, page: Any, width: int, tmp_path: Path
) -> None:
    # given: a support campaign, a sentence one and a relevance one
    OrganizerFactory(username="olga")
    llm_campaign_build(statements=["One [FS]."], name="support-campaign")
    Campaign.objects.create(name="sentence-campaign", kind="sentence")
    relevance = Campaign.objects.create(name="relevance-campaign", kind="relevance")
    page.set_viewport_size({"width": width, "height": 768})
    browser_login(page, live_server, "olga")
    measured = {}
    # when
    for name, path in {
        "campaigns": "/organize/campaigns/",
        "relevance": f"/organize/campaigns/{relevance.pk}/",
    }.items():
        assert page.goto(f"{live_server.url}{path}").status == 200
        page.wait_for_load_state("networkidle")
        measured[name] = page.evaluate(OVERFLOW)
        page.screenshot(path=str(tmp_path / f"{name}-{width}.png"), full_page=True)
        if name == "campaigns":
            assert page.inner_text("#campaign-list tbody").count("relevance") >= 1
            page.select_option("#id_kind", "relevance")
            assert page.is_visible("fieldset.kind-options[data-kind='relevance']")
        else:
            assert kind_get("relevance").title in page.inner_text("#campaign-kind")
            assert page.is_visible("#relevance-panel")
    # then
    assert {name: sw for name, (sw, cw) in measured.items() if sw > cw} == {}
