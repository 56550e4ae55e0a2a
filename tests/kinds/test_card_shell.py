"""The kind card shell (templates/kinds/_card_page.html, static/js/kind-card.js) in Chromium, without a kind: the
real template renders a two-step card of the convention (docs/kinds.md), Playwright serves it and a stub submit
endpoint that holds each request until the test releases it. Keys pressed while a submit is in flight are kept
and replayed, in order, on the next card; Backspace undoes a step; the header's bar moves with the response."""

from __future__ import annotations

import json
import mimetypes
from pathlib import Path
from types import SimpleNamespace
from typing import Any
from urllib.parse import parse_qs

import pytest
from django.contrib.auth.models import AnonymousUser
from django.contrib.staticfiles import finders
from django.template import engines
from django.template.loader import render_to_string
from django.test import RequestFactory

from judging.progress import Share

pytestmark = [pytest.mark.browser]

ORIGIN = "http://kind.test"
TOTAL = 3

PAGE = """{% extends "kinds/_card_page.html" %}{% block card %}{% include "card" %}{% endblock %}"""
CARD = """<form id="kind-card" hx-post="/submit/" hx-target="#kind-card" hx-swap="outerHTML" data-step="1">
  <input type="hidden" name="token" value="{{ token }}">
  <input type="hidden" name="seconds" value="" data-max="3600">
  <p id="sentence">Sentence {{ n }}: {{ text }}</p>
  <fieldset data-step="1"><legend>Does it need a citation?</legend>
    <button type="button" data-key="y" data-field="worthy" data-value="1" data-next="2">Yes <kbd>y</kbd></button>
    <button type="button" data-key="n" data-field="worthy" data-value="0" data-submit>No <kbd>n</kbd></button>
  </fieldset>
  <fieldset data-step="2" hidden><legend>Do its passages support it together?</legend>
    <button type="button" data-key="1" data-field="label" data-value="NS" data-submit>No <kbd>1</kbd></button>
    <button type="button" data-key="2" data-field="label" data-value="PS" data-submit>Partly <kbd>2</kbd></button>
    <button type="button" data-key="3 f" data-field="label" data-value="FS" data-submit
      {% if preselected %}data-preselected{% endif %}>Fully <kbd>3</kbd></button>
  </fieldset>
</form>"""
DONE = """<section id="kind-card"><h2 id="done">Topic finished</h2>
  <a id="next" href="/queue/" data-key="Enter">My assignments <kbd>Enter</kbd></a></section>"""


def _render(template: str, context: dict[str, Any], request: Any = None) -> str:
    return engines["django"].from_string(template).render(context, request)


def _card(n: int, preselected: bool = False) -> str:
    context = {"token": f"token-{n}", "n": n, "text": "The moon is made of rock. " * 6, "preselected": preselected}
    return _render(CARD, context)


def _progress(done: int) -> str:
    return render_to_string("kinds/_card_progress.html", {"share": Share(done, TOTAL), "oob": True})


def _page() -> str:
    request = RequestFactory().get("/kinds/test/judge/1/")
    request.user = AnonymousUser()
    topic = SimpleNamespace(topic_id="2024-1", text="what is the moon made of")
    assignment = SimpleNamespace(pk=1, topic=topic, get_condition_display=lambda: "From scratch")
    kind = SimpleNamespace(name="test", title="Sentence support (test)")
    context: dict[str, Any] = {"assignment": assignment, "campaign": SimpleNamespace(name="c1"), "kind": kind}
    context["progress"] = Share(0, TOTAL)
    return _render(PAGE.replace('{% include "card" %}', _card(1)), context, request)


class Stub:
    """The page, its static files, and a submit endpoint that holds each request until `release`."""

    def __init__(self, page: Any) -> None:
        self.page = page
        self.held: list[Any] = []
        self.posted: list[dict[str, str]] = []
        page.route(f"{ORIGIN}/**", self.handle)

    def handle(self, route: Any) -> None:
        url = route.request.url.removeprefix(ORIGIN)
        if url.startswith("/static/"):
            found = finders.find(url.removeprefix("/static/"))
            assert found, url
            kind = mimetypes.guess_type(str(found))[0] or "text/plain"
            route.fulfill(status=200, body=Path(str(found)).read_bytes(), content_type=kind)
        elif url.startswith("/submit/"):
            form = {k: v[0] for k, v in parse_qs(route.request.post_data or "").items()}
            self.posted.append(form)
            self.held.append(route)
        else:
            route.fulfill(status=200, body=_page(), content_type="text/html")

    def release(self, body: str) -> None:
        route = self.held.pop(0)
        route.fulfill(status=200, body=body, content_type="text/html")

    def wait_held(self, count: int) -> None:
        for _ in range(200):
            if len(self.posted) >= count:
                return
            self.page.wait_for_timeout(25)
        raise AssertionError(f"{count} submits expected, {len(self.posted)} came: {json.dumps(self.posted)}")


def _ready(page: Any) -> None:
    page.wait_for_function("() => document.body.getAttribute('data-kind-card') === 'ready'")


def test_keys_pressed_during_a_submit_are_replayed_on_the_next_card_and_none_is_lost(page: Any) -> None:
    # given: the shell's page with a two-step card, the submit endpoint holding every request
    page.set_viewport_size({"width": 1366, "height": 768})
    stub = Stub(page)
    page.goto(f"{ORIGIN}/kinds/test/judge/1/")
    page.wait_for_function("() => window.htmx && document.body.getAttribute('data-kind-card') === 'ready'")
    assert page.is_hidden("fieldset[data-step='2']")

    # when: y then Backspace (one step back), then y and 3: the first card is submitted
    page.keyboard.press("y")
    assert page.is_visible("fieldset[data-step='2']")
    page.keyboard.press("Backspace")
    assert page.is_visible("fieldset[data-step='1']")
    assert page.is_hidden("fieldset[data-step='2']")
    assert page.input_value("input[name=worthy]") == ""
    page.keyboard.press("y")
    page.keyboard.press("3")
    stub.wait_held(1)
    # ... and while it is in flight the next two cards' keys are pressed: n (card 2), y 2 (card 3)
    for key in ("n", "y", "2"):
        page.keyboard.press(key)
    assert page.get_attribute("body", "data-queued") == "3"

    # then: each card answers as its keys said, once the previous one came back
    stub.release(_card(2) + _progress(1))
    stub.wait_held(2)
    stub.release(_card(3) + _progress(2))
    stub.wait_held(3)
    assert page.inner_text("#kind-progress").startswith("This topic: 2 / 3")
    stub.release(DONE + _progress(3))
    page.wait_for_selector("#done")
    _ready(page)
    answers = [{k: v for k, v in p.items() if k != "seconds"} for p in stub.posted]
    assert answers == [
        {"token": "token-1", "worthy": "1", "label": "FS"},
        {"token": "token-2", "worthy": "0"},
        {"token": "token-3", "worthy": "1", "label": "PS"},
    ]
    assert all(0 <= float(p["seconds"]) < 60 for p in stub.posted)
    assert "3 / 3" in page.inner_text("#kind-progress")
    assert "100.0%" in page.inner_text("#kind-progress")
    assert "Backspace" in page.inner_text("#kind-keys")


def test_enter_keeps_the_preselected_answer_and_the_card_fits_the_window(page: Any, tmp_path: Path) -> None:
    page.set_viewport_size({"width": 1366, "height": 768})
    stub = Stub(page)
    page.goto(f"{ORIGIN}/kinds/test/judge/1/")
    _ready(page)
    page.keyboard.press("y")
    page.keyboard.press("3")
    stub.wait_held(1)
    stub.release(_card(2, preselected=True) + _progress(1))
    page.wait_for_function("() => document.querySelector('input[name=token]').value === 'token-2'")
    _ready(page)
    page.keyboard.press("y")
    page.screenshot(path=str(tmp_path / "kind-card.png"))
    overflow = page.evaluate("() => [document.documentElement.scrollWidth, document.documentElement.scrollHeight]")
    assert overflow[0] <= 1366, overflow
    assert overflow[1] <= 768, overflow
    page.keyboard.press("Enter")
    stub.wait_held(2)
    assert stub.posted[1]["label"] == "FS"
    assert stub.posted[1]["worthy"] == "1"


def test_a_refused_submit_says_why_and_the_card_can_be_answered_again(page: Any) -> None:
    stub = Stub(page)
    page.goto(f"{ORIGIN}/kinds/test/judge/1/")
    _ready(page)
    page.keyboard.press("n")
    stub.wait_held(1)
    page.keyboard.press("y")
    route = stub.held.pop(0)
    route.fulfill(status=400, body="label: 'XX' is not one of NS, PS, FS", content_type="text/plain")
    page.wait_for_selector("#kind-status:not([hidden])")
    _ready(page)
    text = page.inner_text("#kind-status")
    assert "Not saved: label: 'XX' is not one of NS, PS, FS" in text
    assert "1 key pressed meanwhile" in text
    page.keyboard.press("n")
    stub.wait_held(2)
    assert stub.posted[1]["token"] == "token-1"
    assert stub.posted[1]["worthy"] == "0"
