"""The sentence card in Chromium, by keys only, in both conditions (issue 26, "Done when"): what is stored is
what the keys said; the page fits 1366x768 and 1024x768 without horizontal overflow. Screenshots at 1366x768
are written to /tmp/shots/sentence-*.png (SCREENSHOTS=DIR writes them elsewhere)."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from assess.models import Passage
from kinds.sentence.models import SentenceJudgment
from tests.conftest import browser_login

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]
SHOTS = Path(os.environ.get("SCREENSHOTS", "/tmp/shots"))
LONG = (
    "Gaius Marius, elected consul in 107 BC, opened recruitment to the capite censi, citizens without property, "
    "and the state equipped them at its own expense. "
) * 9


def _fits(page: Any, name: str) -> None:
    for width, height in ((1024, 768), (1366, 768)):
        page.set_viewport_size({"width": width, "height": height})
        overflow = page.evaluate("document.documentElement.scrollWidth - document.documentElement.clientWidth")
        assert overflow <= 0, f"{name} overflows by {overflow}px at {width}x{height}"
    SHOTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(SHOTS / f"sentence-{name}.png"))


def _sentence(page: Any) -> str:
    return page.get_attribute('#kind-card input[name="sentence"]', "value") or ""


def _press_then_next(page: Any, *keys: str) -> None:
    before = _sentence(page)
    for key in keys:
        page.keyboard.press(key)
    page.wait_for_function(
        "s => { const el = document.querySelector('#kind-card input[name=sentence]'); "
        "return (!el || el.value !== s) && document.body.dataset.kindCard === 'ready'; }",
        arg=before,
    )


def _stored(assignment: Any) -> list[tuple[int, bool, str, bool | None]]:
    return [
        (j.sentence_id, j.worthy, j.combined, j.changed)
        for j in SentenceJudgment.objects.filter(assignment=assignment).order_by("pk")
    ]


def test_an_assessor_judges_sentences_by_keys_from_scratch(live_server: Any, page: Any, sentence_campaign: Any) -> None:
    # given: long passages, as the track's are
    c = sentence_campaign
    Passage.objects.update(text=LONG)
    page.set_default_timeout(60_000)
    browser_login(page, live_server, c.user.username)
    page.goto(f"{live_server.url}/kinds/sentence/judge/{c.scratch.pk}/")
    page.wait_for_selector("#kind-card fieldset[data-step='1']")
    _fits(page, "scratch-step1")

    # when: y 3 (two passages together fully); y 1 (one passage, none); y on the uncited (has none); n, n, n
    page.keyboard.press("y")
    page.wait_for_selector("#kind-card fieldset[data-step='2']:not([hidden])")
    _fits(page, "scratch-step2")
    _press_then_next(page, "3")
    _press_then_next(page, "y", "1")
    assert page.locator(".no-citation").is_visible()
    _fits(page, "scratch-uncited")
    _press_then_next(page, "y")
    for _ in range(3):
        _press_then_next(page, "n")

    # then
    s = [x.pk for x in c.sentences]
    assert _stored(c.scratch) == [
        (s[0], True, "FS", None),
        (s[1], True, "NS", None),
        (s[2], True, "", None),
        (s[3], False, "", None),
        (s[4], False, "", None),
        (s[5], False, "", None),
    ]
    assert page.locator("text=Every sentence of this topic is judged").is_visible()
    assert "6 / 6" in page.inner_text("#kind-progress")


def test_an_assessor_post_edits_the_llm_labels_by_keys(live_server: Any, page: Any, sentence_campaign: Any) -> None:
    # given: the LLM said (yes, PS), (yes, FS), (yes, none cited) of the first run's sentences
    c = sentence_campaign
    Passage.objects.update(text=LONG)
    page.set_default_timeout(60_000)
    browser_login(page, live_server, c.user.username)
    page.goto(f"{live_server.url}/kinds/sentence/judge/{c.post_edit.pk}/")
    page.wait_for_selector("#kind-card [data-preselected]")
    assert "LLM labels, pre-selected" in page.inner_text("#kind-card")
    _fits(page, "post-edit")

    # when: Enter Enter keeps both; y 1 changes FS to NS; n changes "needs a citation" to "needs none"
    _press_then_next(page, "Enter", "Enter")
    _press_then_next(page, "y", "1")
    _press_then_next(page, "n")

    # then
    s = [x.pk for x in c.sentences]
    assert _stored(c.post_edit) == [(s[0], True, "PS", False), (s[1], True, "NS", True), (s[2], False, "", True)]


def test_the_campaign_panel_fits_the_screen(live_server: Any, page: Any, sentence_campaign: Any) -> None:
    # given: alice judged every sentence from scratch
    import uuid

    from kinds.sentence.services import sentence_submit
    from tests.factories import OrganizerFactory

    c = sentence_campaign
    for s, worthy, combined in zip(c.sentences, [1, 1, 0, 0, 1, 1], ["PS", "NS", "", "", "NS", ""], strict=True):
        sentence_submit(
            assignment=c.scratch, sentence_id=s.pk, worthy=bool(worthy), combined=combined, token=uuid.uuid4()
        )
    organizer = OrganizerFactory(username="org")
    page.set_default_timeout(60_000)
    browser_login(page, live_server, organizer.username)

    # when
    page.goto(f"{live_server.url}/kinds/sentence/campaign/{c.campaign.pk}/")
    page.wait_for_selector(".sentence-agreement")

    # then
    assert "Combined support" in page.inner_text("#sentence-panel")
    _fits(page, "panel")
