"""Zero-wait judging and nothing lost, in Chromium (issue 14, point 2): the next card is held in advance and
shown at once, the judgment waits in an outbox (localStorage) until the server acknowledges it, failures are
retried, a reload keeps unsent judgments, a stale card held in advance is replaced, and a 403 or 500 never
replaces the judging page, with DEBUG on or off. The outbox sends every answer it holds in one request (issue
24): at a long round trip the keys typed meanwhile go together, and one the server refuses is said while the
others are stored."""

from __future__ import annotations

import time
from urllib.parse import parse_qs, urlencode

import pytest

from judging import queue, services
from judging.models import Judgment
from tests.conftest import browser_login
from tests.judging.judge_page import alice_assignment, open_judge_page, pair_on_screen, queue_order, wait_sent

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

OUTBOX_SIZE = "() => Object.keys(localStorage).filter(k => k.startsWith('judge-outbox:')).length"


def _setup(n_sentences=6):
    return alice_assignment(n_sentences=n_sentences, passages=3)


_queue_order = queue_order
_open = open_judge_page
_on_screen = pair_on_screen


def _saved(page, timeout: int = 30_000) -> None:
    wait_sent(page, timeout)


@pytest.mark.parametrize("failure", ["network", "server error"])
def test_a_submit_that_fails_three_times_waits_in_the_outbox_and_is_stored_once(live_server, page, failure):
    # given: the server cannot be reached (or answers 500) until the test lets requests through
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    network = {"down": True, "calls": 0}

    def flaky(route):
        network["calls"] += 1
        if not network["down"]:
            route.continue_()
        elif failure == "network":
            route.abort()
        else:
            route.fulfill(status=500, body="<h1>Server Error (500)</h1>", content_type="text/html")

    page.route("**/submit/", flaky)

    # when: a key answers the first pair
    page.keyboard.press("2")

    # then: the next card is there at once, and the judgment waits, said on the page, after three failures
    page.wait_for_function("() => document.getElementById('judge-status').textContent.includes('(try 3)')")
    assert _on_screen(page) == order[1]
    assert network["calls"] >= 3
    assert "Not saved yet" in page.inner_text("#judge-status")
    assert page.inner_text("#unsaved") == "1 unsaved"
    assert page.evaluate(OUTBOX_SIZE) == 1
    assert not Judgment.objects.exists()

    # when the network returns
    network["down"] = False
    _saved(page)

    # then: stored exactly once, the outbox empty, the page says so
    rows = list(Judgment.objects.filter(assignment=assignment).values_list("pair_id", "label"))
    assert rows == [(order[0], "PS")]
    assert page.evaluate(OUTBOX_SIZE) == 0
    assert page.is_hidden("#unsaved")
    assert "Saved" in page.inner_text("#judge-status")


def test_a_reload_keeps_unsent_judgments_and_sends_them(live_server, page):
    # given: two pairs answered while the server cannot be reached
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    page.route("**/submit/", lambda route: route.abort())
    page.keyboard.press("1")
    page.keyboard.press("3")
    page.wait_for_function("() => document.body.dataset.unsaved === '2'")
    dialogs = []

    def accept(dialog):
        dialogs.append(dialog.type)
        dialog.accept()

    page.on("dialog", accept)

    # when the assessor reloads the tab (and confirms leaving the page)
    page.reload()
    page.wait_for_selector("#pair-card")

    # then: the browser warned first, the two judgments are still waiting, nothing is stored yet
    assert dialogs == ["beforeunload"]
    page.wait_for_function("() => document.body.dataset.unsaved === '2'")
    assert not Judgment.objects.exists()

    # when the network returns
    page.unroute("**/submit/")
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _saved(page)

    # then: both are stored once, in order, and the page goes on with the third pair
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", "label"))
    assert rows == [(order[0], "FS"), (order[1], "NS")]
    assert _on_screen(page) == order[2]
    assert page.inner_text("#topic-progress") == f"2 / {len(order)}"


def test_a_card_held_in_advance_and_judged_elsewhere_is_replaced_and_nothing_doubles(live_server, page):
    # given: the page holds the second pair in advance, and the assessor judges that pair in another tab
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    second = queue.queue_state(assignment=assignment, following=True).following.card
    assert second.campaign_pair.pair_id == order[1]
    services.judgment_submit(assignment=assignment, pair_id=order[1], label="NS", token=second.token_uuid)
    # The first submit fails once, so that the assessor also answers the stale card before the server speaks.
    calls = {"n": 0}

    def first_fails(route):
        calls["n"] += 1
        route.abort() if calls["n"] == 1 else route.continue_()

    page.route("**/submit/", first_fails)

    # when: the assessor answers the first pair, and (at once) the stale second one
    page.keyboard.press("1")
    page.keyboard.press("2")
    _saved(page)

    # then: the page moved on to the third pair and said why; each pair has one judgment, the other tab's stands
    assert _on_screen(page) == order[2]
    assert calls["n"] == 2  # the failed one, then its retry carrying the stale card's answer too (issue 24)
    rows = sorted(Judgment.objects.filter(assignment=assignment).values_list("pair_id", "label"))
    assert rows == sorted([(order[0], "FS"), (order[1], "NS")])


def test_a_stale_card_on_screen_is_replaced_when_the_server_answers(live_server, page):
    # given: the page holds the second pair in advance; another tab judges it
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    second = queue.queue_state(assignment=assignment, following=True).following.card
    services.judgment_submit(assignment=assignment, pair_id=order[1], label="PS", token=second.token_uuid)

    # when: the assessor answers the first pair (the stale second card shows at once)
    page.keyboard.press("3")
    _saved(page)

    # then: the server's answer replaced it with the third pair, and the page says why
    assert _on_screen(page) == order[2]
    assert "already been judged" in page.inner_text("#judge-status")
    assert Judgment.objects.filter(assignment=assignment).count() == 2


@pytest.mark.parametrize("debug", [True, False], ids=["DEBUG on", "DEBUG off"])
def test_a_500_does_not_replace_the_judging_page_with_debug_on_or_off(live_server, page, settings, monkeypatch, debug):
    # given: the server fails (a real exception inside Django) on the first two submits
    settings.DEBUG = debug
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    real = services.judgment_submit_and_next
    calls = {"n": 0}

    def failing(**kwargs):
        calls["n"] += 1
        if calls["n"] <= 2:
            raise RuntimeError("the database went away")
        return real(**kwargs)

    monkeypatch.setattr(services, "judgment_submit_and_next", failing)

    # when
    page.keyboard.press("1")
    page.wait_for_function("() => document.getElementById('judge-status').textContent.includes('server error 500')")

    # then: still the judging page, with the banner, no error page
    assert page.locator("#pair-card").count() == 1
    assert "RuntimeError" not in page.content()
    assert "Not saved yet" in page.inner_text("#judge-status")
    _saved(page)
    assert list(Judgment.objects.filter(assignment=assignment).values_list("pair_id", "label")) == [(order[0], "FS")]


@pytest.mark.parametrize("debug", [True, False], ids=["DEBUG on", "DEBUG off"])
def test_a_403_keeps_the_judgment_and_says_what_to_do_with_debug_on_or_off(live_server, page, settings, debug):
    # given: the CSRF cookie is gone (Django refuses the submit with a real 403)
    settings.DEBUG = debug
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    csrf = [c for c in page.context.cookies() if c["name"] == "csrftoken"]
    session = [c for c in page.context.cookies() if c["name"] == "sessionid"]
    page.context.clear_cookies()
    page.context.add_cookies(session)

    # when
    page.keyboard.press("2")

    # then: the judging page stays, the judgment waits, the page says to log in again
    page.wait_for_selector("#judge-status.error")
    assert "logged out" in page.inner_text("#judge-status")
    assert page.locator("#judge-status a[target=_blank]").count() == 1
    assert page.locator("#pair-card").count() == 1
    assert "CSRF verification failed" not in page.content()
    assert page.evaluate(OUTBOX_SIZE) == 1
    assert not Judgment.objects.exists()

    # when the cookie is back (as after logging in again in another tab)
    page.context.add_cookies(csrf)
    page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    _saved(page)

    # then
    assert list(Judgment.objects.filter(assignment=assignment).values_list("pair_id", "label")) == [(order[0], "PS")]


def test_a_judgment_made_while_logged_out_is_sent_after_logging_in_again(live_server, page):
    # given: the session has ended
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    page.context.clear_cookies()

    # when: the assessor answers, then logs in again in another tab and comes back
    page.keyboard.press("3")
    page.wait_for_selector("#judge-status.error")
    assert "logged out" in page.inner_text("#judge-status")
    assert not Judgment.objects.exists()
    other = page.context.new_page()
    browser_login(other, live_server, "alice")
    other.close()
    page.bring_to_front()
    page.evaluate("() => window.dispatchEvent(new Event('focus'))")
    _saved(page)

    # then: stored once
    assert list(Judgment.objects.filter(assignment=assignment).values_list("pair_id", "label")) == [(order[0], "NS")]


def _answers_per_submit(page) -> list[int]:
    """How many answers each submit request carried, in the order sent (the outbox's batches)."""
    sizes: list[int] = []

    def seen(request):
        if request.method == "POST" and request.url.endswith("/submit/"):
            sizes.append(len(parse_qs(request.post_data or "", keep_blank_values=True).get("pair_id", [])))

    page.on("request", seen)
    return sizes


def test_at_a_400_ms_round_trip_keys_typed_during_a_request_go_together_in_the_next_and_none_is_lost(live_server, page):
    # given: a slow network (400 ms each way of a request is Chromium's emulated latency)
    assignment = _setup(n_sentences=16)
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    sizes = _answers_per_submit(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Network.enable")
    cdp.send(
        "Network.emulateNetworkConditions",
        {"offline": False, "latency": 400, "downloadThroughput": -1, "uploadThroughput": -1},
    )

    # when: ten keys, one every 150 ms
    start = time.monotonic()
    for k in range(10):
        time.sleep(max(0.0, start + 0.15 * k - time.monotonic()))
        page.keyboard.press("123"[k % 3])
    _saved(page, 60_000)

    # then: fewer requests than keys, several answers in one, each answer sent once; all ten stored once, in order
    assert len(sizes) < 10, sizes
    assert max(sizes) >= 2, sizes
    assert sum(sizes) == 10, sizes
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", flat=True))
    assert rows == order[:10]
    assert _on_screen(page) == order[10]
    assert page.evaluate(OUTBOX_SIZE) == 0


def test_an_answer_the_server_refuses_in_a_batch_is_said_and_the_others_are_stored(live_server, page):
    # given: three answers kept while the server cannot be reached; when it can, the second answer's token is
    # one the server never issued (as for a pair that left the assignment)
    assignment = _setup()
    order = _queue_order(assignment)
    _open(page, live_server, assignment)
    network = {"down": True}
    sizes: list[int] = []

    def forge_second(route):
        if network["down"]:
            route.abort()
            return
        body = parse_qs(route.request.post_data or "", keep_blank_values=True)
        sizes.append(len(body["pair_id"]))
        if len(body["token"]) > 1:
            body["token"][1] = "00000000-0000-4000-8000-000000000000"
        route.continue_(post_data=urlencode(body, doseq=True))

    page.route("**/submit/", forge_second)
    for key in "123":
        page.keyboard.press(key)
    page.wait_for_function("() => document.body.dataset.unsaved === '3'")

    # when the network returns
    network["down"] = False
    page.evaluate("() => window.dispatchEvent(new Event('online'))")
    _saved(page)

    # then: one request carried the three; the first and third are stored, the page says one was refused, and
    # the refused pair is back on screen (still to judge); nothing waits in the outbox
    assert sizes == [3]
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", "label"))
    assert rows == [(order[0], "FS"), (order[2], "NS")]
    assert "One answer was refused" in page.inner_text("#judge-status")
    assert "unknown submission token" in page.inner_text("#judge-status")
    assert _on_screen(page) == order[1]
    assert page.evaluate(OUTBOX_SIZE) == 0
