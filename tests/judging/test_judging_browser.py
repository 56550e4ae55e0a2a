"""An assessor in Chromium: keyboard judging, going back, reload and resume, retries, active time. The outbox
(failures, reloads, logouts, stale cards, DEBUG on and off) is in test_judging_outbox.py."""

from __future__ import annotations

import pytest

from judging import services
from judging.models import Condition, Judgment
from tests.conftest import browser_login
from tests.factories import UserFactory, judging_campaign_build

pytestmark = [pytest.mark.browser, pytest.mark.django_db(transaction=True)]

KEY_LABELS = [("1", "FS"), ("2", "PS"), ("3", "NS"), ("f", "FS"), ("p", "PS"), ("n", "NS")] * 2


def _setup(n_sentences=12):
    campaign = judging_campaign_build(n_sentences=n_sentences, passages_per_topic=4)
    alice = UserFactory(username="alice")
    return services.assignments_create(
        campaign=campaign, assessor=alice, topics=list(campaign.topics.all()), condition=Condition.FROM_SCRATCH
    )[0]


def _token(page) -> str:
    return page.get_attribute("#pair-card", "data-token") or ""


def _ready(page) -> None:
    """Wait until nothing waits: every answer acknowledged by the server, no key queued."""
    page.wait_for_selector("body[data-judge=ready]", state="attached")


def _press_and_wait(page, key: str) -> None:
    _ready(page)
    before = _token(page)
    page.keyboard.press(key)
    page.wait_for_function(
        "t => { const c = document.getElementById('pair-card'); return c && c.dataset.token !== t; }", arg=before
    )
    _ready(page)


def test_it_lets_an_assessor_judge_by_keyboard_go_back_and_resume_after_a_reload(live_server, page):
    # given
    assignment = _setup()
    browser_login(page, live_server, "alice")
    assert page.url.endswith("/judge/")

    # when: open the first topic and judge ten pairs with the keyboard only
    page.keyboard.press("Enter")
    page.wait_for_selector("#pair-card[data-state=pair]")
    judged_pairs = []
    for key, _ in KEY_LABELS[:10]:
        judged_pairs.append(int(page.get_attribute("input[name=pair_id]", "value")))
        _press_and_wait(page, key)
    assert page.inner_text("#topic-progress") == "10 / 12"

    # ... go back to the tenth and change it
    _press_and_wait(page, "u")
    assert int(page.get_attribute("input[name=pair_id]", "value")) == judged_pairs[-1]
    assert "you said Full support" in page.inner_text(".back-note")
    _press_and_wait(page, "3")

    # ... reload mid-topic
    page.reload()
    page.wait_for_selector("#pair-card[data-state=pair]")

    # then
    assert page.inner_text("#topic-progress") == "10 / 12"
    current = int(page.get_attribute("input[name=pair_id]", "value"))
    assert current not in judged_pairs
    rows = list(Judgment.objects.filter(assignment=assignment).order_by("pk").values_list("pair_id", "label"))
    assert len(rows) == 11
    assert [p for p, _ in rows[:10]] == judged_pairs
    assert [label for _, label in rows[:10]] == [label for _, label in KEY_LABELS[:10]]
    assert rows[10] == (judged_pairs[-1], "NS")
    seconds = list(Judgment.objects.order_by("pk").values_list("seconds", flat=True))
    assert all(s is not None and s >= 0 for s in seconds), seconds


def test_it_retries_a_failed_submit_and_stores_it_once(live_server, page):
    # given the first submit request fails at the network level
    assignment = _setup(n_sentences=3)
    browser_login(page, live_server, "alice")
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    calls = {"n": 0}

    def flaky(route):
        calls["n"] += 1
        if calls["n"] == 1:
            route.abort()
        else:
            route.continue_()

    page.route("**/submit/", flaky)

    # when
    _press_and_wait(page, "2")

    # then
    assert calls["n"] == 2
    assert Judgment.objects.filter(assignment=assignment).count() == 1
    assert page.inner_text("#topic-progress") == "1 / 3"


def test_it_does_not_count_idle_time_beyond_a_minute(live_server, page):
    # given
    assignment = _setup(n_sentences=3)
    browser_login(page, live_server, "alice")
    page.clock.install()
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("#pair-card[data-state=pair]")

    # when the assessor stays idle for five minutes, then judges
    page.clock.run_for(5 * 60 * 1000)
    _press_and_wait(page, "1")

    # then
    seconds = Judgment.objects.get().seconds
    assert 55 <= seconds <= 62


def test_it_stores_a_flag_and_comment_typed_on_the_page(live_server, page):
    assignment = _setup(n_sentences=3)
    browser_login(page, live_server, "alice")
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("#pair-card[data-state=pair]")

    _ready(page)
    page.keyboard.press("x")
    page.keyboard.type("the passage is cut off")
    page.keyboard.press("Escape")
    _press_and_wait(page, "n")

    judgment = Judgment.objects.get()
    assert judgment.flagged
    assert judgment.comment == "the passage is cut off"
    assert judgment.label == "NS"


def test_it_does_not_count_time_while_the_tab_is_hidden(live_server, page):
    # given
    assignment = _setup(n_sentences=3)
    browser_login(page, live_server, "alice")
    page.clock.install()
    page.goto(f"{live_server.url}/judge/{assignment.pk}/")
    page.wait_for_selector("#pair-card[data-state=pair]")
    set_hidden = """h => {
        Object.defineProperty(document, 'hidden', {value: h, configurable: true});
        document.dispatchEvent(new Event('visibilitychange'));
    }"""

    # when: 5 s visible, 40 s hidden, 5 s visible again
    page.clock.run_for(5_000)
    page.evaluate(set_hidden, True)
    page.clock.run_for(40_000)
    page.evaluate(set_hidden, False)
    page.clock.run_for(5_000)
    _press_and_wait(page, "2")

    # then
    seconds = Judgment.objects.get().seconds
    assert 9 <= seconds <= 11.5
