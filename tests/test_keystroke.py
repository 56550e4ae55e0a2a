"""The judging keystroke's fast path (judging/keystroke.py, the PostgreSQL function of migration judging/0006):
the same judgments and the same card as Django's view, and every case it is not sure of handed to that view."""

from __future__ import annotations

import asyncio
import re
import threading
import uuid
from typing import Any
from urllib.parse import urlencode

import pytest
from django.core.cache import cache
from django.test import Client
from django.urls import reverse

from assess.models import Passage
from config.asgi import django_application
from judging import keystroke, selectors, services
from judging.models import AssignmentStatus, CampaignPair, Condition, Judge, JudgeKind, Judgment
from judging.tokens import submission_token
from tests.conftest import PASSWORD, browser_login
from tests.factories import UserFactory, judging_campaign_build

pytestmark = pytest.mark.django_db(transaction=True)

CSRF_VALUE = re.compile(r'(name="csrfmiddlewaretoken" value=")[^"]+')


class Asgi:
    """An ASGI application called as a server calls it, in an event loop of its own thread (the test's thread
    may have Playwright's loop running)."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coro: Any) -> Any:
        return asyncio.run_coroutine_threadsafe(coro, self.loop).result(timeout=60)

    def post(self, path: str, form: dict[str, str], headers: dict[str, str]) -> tuple[int, dict[str, str], str]:
        return self.run(self.call("POST", path, urlencode(form).encode(), headers))

    async def call(
        self, method: str, path: str, body: bytes, headers: dict[str, str], *, chunk: int = 0
    ) -> tuple[int, dict[str, str], str]:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": method,
            "scheme": "http",
            "path": path,
            "raw_path": path.encode(),
            "query_string": b"",
            "root_path": "",
            "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()],
            "client": ("127.0.0.1", 50000),
            "server": ("testserver", 80),
        }
        parts = [body[i : i + chunk] for i in range(0, len(body), chunk)] if chunk else [body]
        messages = [{"type": "http.request", "body": p, "more_body": i < len(parts) - 1} for i, p in enumerate(parts)]
        sent: list[dict[str, Any]] = []

        async def receive() -> dict[str, Any]:
            if messages:
                return messages.pop(0)
            await asyncio.sleep(3600)
            return {"type": "http.disconnect"}

        async def send(message: dict[str, Any]) -> None:
            sent.append(message)

        await self.app(scope, receive, send)
        start = next(m for m in sent if m["type"] == "http.response.start")
        body_out = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
        return start["status"], {k.decode().lower(): v.decode() for k, v in start["headers"]}, body_out.decode()

    def close(self) -> None:
        if isinstance(self.app, keystroke.KeystrokeApp) and self.app._store is not None:
            self.run(self.app._store.close())
        self.loop.call_soon_threadsafe(self.loop.stop)
        self.thread.join(timeout=10)
        self.loop.close()


@pytest.fixture
def fast() -> Any:
    app = Asgi(keystroke.KeystrokeApp(django_application))
    assert app.app.on, "the fast path is off: the tests run on PostgreSQL with Redis"
    keystroke.handed_over.clear()
    yield app
    app.close()


@pytest.fixture
def plain() -> Any:
    app = Asgi(django_application)
    yield app
    app.close()


class Assessor:
    """A logged-in assessor's cookies and headers, as the judging page sends them."""

    def __init__(self, username: str) -> None:
        self.user = UserFactory(username=username)
        self.client = Client()
        assert self.client.login(username=username, password=PASSWORD)

    def card(self, assignment_id: int) -> str:
        return self.client.get(f"/judge/{assignment_id}/", headers={"HX-Request": "true"}).content.decode()

    def headers(self, **extra: str) -> dict[str, str]:
        if "csrftoken" not in self.client.cookies:
            self.client.get("/judge/")
        cookies = "; ".join(f"{k}={v.value}" for k, v in self.client.cookies.items())
        return {
            "host": "testserver",
            "cookie": cookies,
            "content-type": "application/x-www-form-urlencoded",
            "hx-request": "true",
            "x-csrftoken": self.client.cookies["csrftoken"].value,
            "origin": "http://testserver",
            **extra,
        }


def _form(card_html: str, label: str, **extra: str) -> dict[str, str]:
    pair = re.search(r'name="pair_id" value="(\d+)"', card_html)
    token = re.search(r'name="token" value="([0-9a-f-]{36})"', card_html)
    assert pair, card_html[:300]
    assert token, card_html[:300]
    return {"pair_id": pair.group(1), "token": token.group(1), "label": label, "seconds": "4.5", **extra}


def _normal(html: str) -> str:
    return CSRF_VALUE.sub(r"\1-", html)


def _assign(campaign: Any, user: Any, condition: str = Condition.FROM_SCRATCH) -> Any:
    return services.assignments_create(
        campaign=campaign, assessor=user, topics=list(campaign.topics.all()), condition=condition
    )[0]


def _llm_labels(campaign: Any, *, skip_last: int = 0) -> Judge:
    """An LLM judge whose labels the campaign's post-edit shows: Partial on every pair but the last `skip_last`."""
    judge = Judge.objects.create(name="llm-keystroke", kind=JudgeKind.LLM)
    campaign.post_edit_judge = judge
    campaign.save()
    pairs = list(CampaignPair.objects.filter(campaign=campaign).order_by("position"))
    for cp in pairs[: len(pairs) - skip_last]:
        Judgment.objects.create(judge=judge, pair_id=cp.pair_id, label="PS")
    return judge


def _submit_url(assignment: Any) -> str:
    return reverse("judging:submit", args=[assignment.pk])


# --- the same work as Django's view -----------------------------------------------------------------


def test_the_submit_path_it_serves_is_the_views(fast):
    assert keystroke.SUBMIT_PATH.match(reverse("judging:submit", args=[123]))


def test_it_stores_the_judgment_and_returns_the_card_djangos_view_renders(fast, plain):
    # given
    campaign = judging_campaign_build(n_sentences=8, passages_per_topic=3)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)
    card = alice.card(assignment.pk)

    # when: six keystrokes through the fast path
    labels = ["FS", "PS", "NS", "FS", "NS", "PS"]
    for label in labels:
        form = _form(card, label, flagged="on" if label == "NS" else "", comment="  odd  " if label == "NS" else "")
        if label == "PS":
            form["seconds"] = ""  # the page sends no time when it has none
        status, _headers, body = fast.post(_submit_url(assignment), form, alice.headers())
        # then: the card the view renders for the same state, byte for byte (but the masked CSRF token)
        assert status == 200
        assert _normal(body) == _normal(alice.card(assignment.pk))
        card = body

    # then: all served here, stored as the service stores them
    assert keystroke.served >= len(labels)
    assert not keystroke.handed_over
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk"))
    assert [j.label for j in rows] == labels
    first = rows[0]
    assert first.judge == services.assessor_judge(user=alice.user)
    assert first.condition == Condition.FROM_SCRATCH
    assert first.shown_label == ""
    assert first.label_changed is None
    assert first.seconds == 4.5
    assert rows[1].seconds is None
    assert first.citation_id is not None
    assert first.created_at is not None
    assert (rows[2].flagged, rows[2].comment) == (True, "odd")
    assert (rows[0].flagged, rows[0].comment) == (False, "")
    assert [cp.pair_id for cp in selectors.assignment_pending(assignment=assignment)][:1] != [rows[0].pair_id]
    assert selectors.topic_progress(assignment=assignment).done == len(labels)

    # and its response headers are the view's
    other = Assessor("bob")
    bobs = _assign(campaign, other.user)
    _, view_headers, _ = plain.post(_submit_url(bobs), _form(other.card(bobs.pk), "FS"), other.headers())
    _, fast_headers, _ = fast.post(_submit_url(assignment), _form(card, "FS"), alice.headers())
    assert f"csrftoken={alice.client.cookies['csrftoken'].value};" in fast_headers["set-cookie"]

    def same(headers: dict[str, str]) -> dict[str, str]:
        return {k: re.sub("csrftoken=[^;]+", "csrftoken=-", v) for k, v in headers.items() if k != "content-length"}

    assert same(fast_headers) == same(view_headers)


def test_post_edit_shows_and_records_the_llm_label_and_counts_held_back_pairs(fast):
    # given: an LLM label on every pair but the last two
    campaign = judging_campaign_build(n_sentences=8, passages_per_topic=8)
    _llm_labels(campaign, skip_last=2)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user, Condition.POST_EDIT)
    card = alice.card(assignment.pk)
    assert "2 pairs held back" in card

    # when: keep the label, then change it
    status, _, body = fast.post(_submit_url(assignment), _form(card, "PS"), alice.headers())
    assert status == 200
    assert _normal(body) == _normal(alice.card(assignment.pk))
    status, _, body = fast.post(_submit_url(assignment), _form(body, "FS"), alice.headers())

    # then
    assert status == 200
    assert not keystroke.handed_over
    assert 'LLM label: <b class="label-PS">' in body
    assert "2 pairs held back" in body
    kept, changed = Judgment.objects.filter(assignment=assignment).order_by("pk")
    assert (kept.shown_label, kept.label_changed, kept.condition) == ("PS", False, Condition.POST_EDIT)
    assert (changed.shown_label, changed.label_changed) == ("PS", True)


def test_a_from_scratch_card_it_serves_carries_no_llm_label(fast):
    # given: LLM labels on every pair
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=2)
    _llm_labels(campaign)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)

    # when
    status, _, body = fast.post(_submit_url(assignment), _form(alice.card(assignment.pk), "FS"), alice.headers())

    # then
    assert status == 200
    assert keystroke.served
    assert not keystroke.handed_over
    assert "LLM label" not in body
    assert "label-PS" not in body
    assert "llm-keystroke" not in body
    assert Judgment.objects.get(assignment=assignment).shown_label == ""


def test_the_evidence_highlight_is_the_views(fast):
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=2)
    campaign.highlight_evidence = True
    campaign.save()
    Passage.objects.update(text="Evidence: a claim about the topic, and more.")
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)

    status, _, body = fast.post(_submit_url(assignment), _form(alice.card(assignment.pk), "FS"), alice.headers())

    assert status == 200
    assert not keystroke.handed_over
    assert "<mark" in body
    assert _normal(body) == _normal(alice.card(assignment.pk))


def test_concurrent_submits_of_one_token_store_one_judgment_and_return_the_same_card(fast):
    # given
    campaign = judging_campaign_build(n_sentences=6, passages_per_topic=3)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)
    form, headers = _form(alice.card(assignment.pk), "PS"), alice.headers()
    body = urlencode(form).encode()

    # when: eight at once in the server's event loop
    async def eight() -> list[tuple[int, dict[str, str], str]]:
        return await asyncio.gather(*(fast.call("POST", _submit_url(assignment), body, headers) for _ in range(8)))

    results = fast.run(eight())

    # then
    assert Judgment.objects.filter(assignment=assignment).count() == 1
    assert {status for status, _, _ in results} == {200}
    assert len({_normal(html) for _, _, html in results}) == 1
    assert selectors.topic_progress(assignment=assignment).done == 1


# --- what it hands to Django's view ----------------------------------------------------------------


def test_the_last_pair_is_stored_here_and_the_topic_end_rendered_by_the_view(fast):
    campaign = judging_campaign_build(n_sentences=2, passages_per_topic=2)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)
    card = alice.card(assignment.pk)

    for _ in range(2):
        status, _, card = fast.post(_submit_url(assignment), _form(card, "FS"), alice.headers())
        assert status == 200

    assert f"Topic {assignment.topic.topic_id} finished" in card
    assert 'data-state="finished"' in card
    assert keystroke.handed_over == {"finished": 1}
    assignment.refresh_from_db()
    assert assignment.status == AssignmentStatus.DONE
    assert Judgment.objects.filter(assignment=assignment).count() == 2


@pytest.mark.parametrize(
    ("case", "reason", "status"),
    [
        ("another person's assignment", "assignment", 404),
        ("no CSRF token", "csrf", 403),
        ("a wrong CSRF token", "csrf", 403),
        ("another origin", "csrf", 403),
        ("no session", "session", 302),
        ("not htmx", "not htmx", 302),
        ("an unknown label", "form", 400),
        ("a forged token", "token", 409),
        ("a pair outside the pool", "pool", 409),
        ("a changed password", "user", 302),
        ("an inactive user", "user", 302),
        ("a repeated token", "duplicate", 200),
        ("counts not cached", "counts", 200),
    ],
)
def test_what_it_is_not_sure_of_goes_to_the_view_unchanged(fast, plain, case, reason, status):
    # given
    campaign = judging_campaign_build(n_sentences=6, passages_per_topic=3)
    alice, bob = Assessor("alice"), Assessor("bob")
    assignment = _assign(campaign, alice.user)
    bobs = _assign(campaign, bob.user)
    card = alice.card(assignment.pk)
    path, form, headers = _submit_url(assignment), _form(card, "FS"), alice.headers()
    if case == "another person's assignment":
        path = _submit_url(bobs)
        form["token"] = str(submission_token(assignment_id=bobs.pk, pair_id=int(form["pair_id"]), nth=0))
    elif case == "no CSRF token":
        del headers["x-csrftoken"]
    elif case == "a wrong CSRF token":
        headers["x-csrftoken"] = "x" * 32
    elif case == "another origin":
        headers["origin"] = "http://evil.example"
    elif case == "no session":
        headers["cookie"] = f"csrftoken={alice.client.cookies['csrftoken'].value}"
    elif case == "not htmx":
        del headers["hx-request"]
    elif case == "an unknown label":
        form["label"] = "XX"
    elif case == "a forged token":
        form["token"] = str(uuid.uuid4())
    elif case == "a pair outside the pool":
        outside = CampaignPair.objects.order_by("-pair_id").first().pair_id + 1000
        form["pair_id"] = str(outside)
        form["token"] = str(submission_token(assignment_id=assignment.pk, pair_id=outside, nth=0))
    elif case == "a changed password":
        alice.user.set_password("another-password-1")
        alice.user.save()
    elif case == "an inactive user":
        alice.user.is_active = False
        alice.user.save()
    elif case == "a repeated token":
        assert fast.post(path, form, headers)[0] == 200
        keystroke.handed_over.clear()
    elif case == "counts not cached":
        cache.delete_many(list(selectors.counts_keys(assignment.pk, assignment.created_at)))
    stored_before = Judgment.objects.count()

    # when
    got, _, body = fast.post(path, form, headers)

    # then: Django's view answered, as it answers without the fast path
    assert keystroke.handed_over == {reason: 1}
    assert got == status, body[:300]
    stored = Judgment.objects.count() - stored_before
    assert stored == (1 if case in ("counts not cached", "not htmx") else 0)
    if case == "a repeated token":
        assert _normal(body) == _normal(alice.card(assignment.pk))
    if case == "counts not cached":
        assert _normal(body) == _normal(alice.card(assignment.pk))
        assert selectors.topic_progress(assignment=assignment).done == 1


def test_a_large_body_in_several_messages_goes_to_the_view_whole(fast):
    # given: the form's fields after 40 KB of padding, sent in 8 KB messages
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=2)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)
    form = {"padding": "x" * 40_000, **_form(alice.card(assignment.pk), "PS")}
    body = urlencode(form).encode()

    # when
    status, _, html = fast.run(fast.call("POST", _submit_url(assignment), body, alice.headers(), chunk=8192))

    # then: the view read all of it (the fields come last) and stored the judgment
    assert keystroke.handed_over == {"body": 1}
    assert status == 200
    assert Judgment.objects.get(assignment=assignment).label == "PS"
    assert _normal(html) == _normal(alice.card(assignment.pk))


def test_changing_an_earlier_judgment_goes_to_the_view_and_keeps_both_rows(fast):
    campaign = judging_campaign_build(n_sentences=4, passages_per_topic=2)
    alice = Assessor("alice")
    assignment = _assign(campaign, alice.user)
    status, _, _ = fast.post(_submit_url(assignment), _form(alice.card(assignment.pk), "FS"), alice.headers())
    back = alice.client.get(reverse("judging:back", args=[assignment.pk]), headers={"HX-Request": "true"})

    status, _, body = fast.post(_submit_url(assignment), _form(back.content.decode(), "NS"), alice.headers())

    assert status == 200
    assert keystroke.handed_over == {"token": 1}
    assert list(Judgment.objects.filter(assignment=assignment).values_list("label", flat=True)) == ["FS", "NS"]
    assert _normal(body) == _normal(alice.card(assignment.pk))


# --- a person, in Chromium, through the ASGI server ----------------------------------------------------


@pytest.fixture
def asgi_server() -> Any:
    """The platform's ASGI application under uvicorn, in a thread, on the test database."""
    import socket
    import time

    import uvicorn

    from config.asgi import application

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    server = uvicorn.Server(uvicorn.Config(application, host="127.0.0.1", port=port, log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 20
    while not server.started and time.monotonic() < deadline:
        time.sleep(0.05)
    assert server.started

    class Live:
        url = f"http://127.0.0.1:{port}"

    keystroke.handed_over.clear()
    yield Live
    server.should_exit = True
    thread.join(timeout=20)


@pytest.mark.browser
def test_an_assessor_judges_by_keyboard_through_the_asgi_server(asgi_server, page):
    # given
    campaign = judging_campaign_build(n_sentences=8, passages_per_topic=3)
    alice = UserFactory(username="alice")
    assignment = _assign(campaign, alice)
    served_before = keystroke.served
    browser_login(page, asgi_server, "alice")

    # when: judge five pairs by keyboard, go back and change one, reload
    page.goto(f"{asgi_server.url}/judge/{assignment.pk}/")
    for key in ["1", "2", "3", "f", "n"]:
        page.wait_for_selector("body[data-judge=ready]", state="attached")
        before = page.get_attribute("#pair-card", "data-token")
        page.keyboard.press(key)
        page.wait_for_function(
            "t => { const c = document.getElementById('pair-card'); return c && c.dataset.token !== t; }", arg=before
        )
    page.wait_for_selector("body[data-judge=ready]", state="attached")
    page.keyboard.press("u")
    page.wait_for_selector(".back-note")
    page.wait_for_selector("body[data-judge=ready]", state="attached")
    page.keyboard.press("1")
    page.wait_for_function("() => !document.querySelector('.back-note')")
    page.reload()

    # then: stored, five of them here, the change by the view, and the page resumes at the sixth pair
    labels = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("label", flat=True))
    assert labels == ["FS", "PS", "NS", "FS", "NS", "FS"]
    assert keystroke.served - served_before == 5
    assert keystroke.handed_over == {"token": 1}
    assert page.inner_text("#topic-progress") == "5 / 8"
