"""A reviewer in Chromium works the review queue by keys; an organizer downloads the deliverables zip from the
campaign page. Both pages fit 1366x768 and 1024x768 without horizontal overflow (with SCREENSHOTS=DIR set,
the screenshots are written there)."""

from __future__ import annotations

import io
import json
import os
import zipfile
from pathlib import Path
from typing import Any

import pytest

from judging.models import FinalLabel
from tests.conftest import browser_login
from tests.factories import OrganizerFactory
from tests.judging.review.conftest import review_world_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SIZES = [(1366, 768), (1024, 768)]


def _fits(page: Any, name: str) -> None:
    """No horizontal overflow at either size; screenshots kept when SCREENSHOTS names a directory."""
    shots = os.environ.get("SCREENSHOTS")
    for width, height in SIZES:
        page.set_viewport_size({"width": width, "height": height})
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{name} overflows by {overflow}px at {width}x{height}"
        if shots:
            Path(shots).mkdir(parents=True, exist_ok=True)
            page.screenshot(path=f"{shots}/{name}-{width}x{height}.png")


def _pair_on_screen(page: Any) -> int:
    return int(page.get_attribute("#review-item", "data-pair") or 0)


def _wait_for_pair_other_than(page: Any, pair: int) -> None:
    page.wait_for_function(
        "p => { const el = document.getElementById('review-item'); return el && el.dataset.pair !== String(p); }",
        arg=pair,
    )


def test_a_reviewer_sets_final_labels_by_keys(live_server: Any, page: Any) -> None:
    # given
    world = review_world_build()
    page.set_default_timeout(60_000)  # the machine is shared: the first page of a live server can be slow
    browser_login(page, live_server, world.reviewer.username)
    page.goto(f"{live_server.url}/review/{world.campaign.pk}/")
    page.wait_for_selector("#review-item[data-pair]")
    first = _pair_on_screen(page)
    assert first == world.pairs[2]

    # when: 2 (Partial), a reason, Enter
    page.keyboard.press("2")
    page.keyboard.type("the passage gives half of it")
    page.keyboard.press("Enter")
    _wait_for_pair_other_than(page, first)

    # then: stored with its reason, and the next open pair is on screen
    final = FinalLabel.objects.get()
    assert (final.pair_id, final.label, final.reason, final.reviewer_id) == (
        first,
        "PS",
        "the passage gives half of it",
        world.reviewer.pk,
    )
    assert _pair_on_screen(page) == world.pairs[3]

    # when: n goes on, p (and the left arrow) come back
    page.keyboard.press("n")
    _wait_for_pair_other_than(page, world.pairs[3])
    assert _pair_on_screen(page) == world.pairs[4]
    page.keyboard.press("ArrowLeft")
    _wait_for_pair_other_than(page, world.pairs[4])

    # then
    assert _pair_on_screen(page) == world.pairs[3]
    _fits(page, "review-queue")


def test_an_organizer_downloads_the_deliverables_from_the_campaign_page(live_server: Any, page: Any) -> None:
    # given
    world = review_world_build(name="shots")
    OrganizerFactory(username="boss")
    page.set_default_timeout(60_000)
    browser_login(page, live_server, "boss")
    page.goto(f"{live_server.url}/organize/campaigns/{world.campaign.pk}/")
    _fits(page, "campaign-deliverables")

    # when
    with page.expect_download(timeout=300_000) as download:  # the zip streams, but its figures take a while
        page.click("#deliverables-button", no_wait_after=True)
    data = Path(download.value.path()).read_bytes()

    # then
    made = zipfile.ZipFile(io.BytesIO(data))
    manifest = json.loads(made.read("manifest.json"))
    assert manifest["label_set"] == "final/shots"
    assert "qrels.txt" in {f["name"] for f in manifest["files"]}
