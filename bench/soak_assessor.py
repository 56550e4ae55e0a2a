"""bench/soak.py's simulated assessors: each logs in through the login page and judges on the judging page at a
human pace (one judgment every 5 to 20 seconds, now and then a burst of fast keys, a reload of the page before
about one judgment in five), sending a failed submit again until it is answered, as the page does."""

from __future__ import annotations

import functools
import http.client
import os
import random
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from typing import Any

import judge as load  # bench/judge.py: the assessor's HTTP (the caller has bench/ on sys.path)

PACE_SECONDS = (5.0, 20.0)
BURST_PROBABILITY = 0.08
BURST_LENGTH = (3, 8)
BURST_GAP_SECONDS = (0.25, 0.5)
PAGE_LOAD_PROBABILITY = 0.2
GIVE_UP_SECONDS = 120.0  # a card unanswered this long is given up (not acknowledged; counted)


# --- the simulated assessor -------------------------------------------------------------------------


@dataclass
class Outcome:
    submit_ms: list[float] = field(default_factory=list)
    next_ms: list[float] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    given_up: int = 0
    ran_out: int = 0
    errors: list[str] = field(default_factory=list)

    @classmethod
    def total(cls, outcomes: list[Outcome]) -> Outcome:
        """Several assessors' outcomes as one."""
        total = cls()
        for o in outcomes:
            total.submit_ms += o.submit_ms
            total.next_ms += o.next_ms
            total.acknowledged += o.acknowledged
            total.statuses.update(o.statuses)
            total.given_up += o.given_up
            total.ran_out += o.ran_out
            total.errors += o.errors
        return total


def answered(statuses: Counter[str], send: Any) -> tuple[int, Any]:
    """Send until the platform answers 200 (the judging page's own retry): a 503 or a dropped connection is counted
    and sent again after a short wait. Returns the status and what `send` returned."""
    first = time.time()
    wait = 0.5
    while True:
        try:
            status, value = send()
            statuses[str(status)] += 1
        except (OSError, http.client.HTTPException, RuntimeError) as exc:
            # A dropped connection (a worker killed mid-request), or a page that failed on the way (RuntimeError).
            statuses[type(exc).__name__] += 1
            status, value = 0, None
        if status == 200 or (status not in (0, 502, 503, 504)):
            return status, value
        if time.time() - first > GIVE_UP_SECONDS:
            return status, value
        time.sleep(wait)
        wait = min(wait * 1.5, 3.0)


def reload_card(b: load.Browser, assignment: int) -> tuple[int, load.Card | None]:
    """The judging page, as a reload shows it: its status, and the card on it."""
    status, body, _ = b.request("GET", f"/judge/{assignment}/")
    return status, (load.parse_page(body, assignment, b) if status == 200 else None)


def signed_in(username: str, url: str) -> tuple[load.Browser, load.Card | None]:
    """Log in through the login page and open the queue's first card, before the clock starts (fifty password
    hashes at once on a busy machine take minutes: not measured). A timeout or a refusal is tried again."""
    u = urllib.parse.urlsplit(url)
    for attempt in range(10):
        b = load.Browser(u.hostname or "127.0.0.1", u.port or 80)
        try:
            load.login(b, username)
            return b, load.first_card_page(b)
        except (OSError, http.client.HTTPException, RuntimeError, SystemExit):
            time.sleep(1.0 + attempt)
    raise RuntimeError(f"{username} could not log in")


def one_assessor(
    username: str, b: load.Browser, card: load.Card | None, start_at: float, stop_at: float, out: Outcome
) -> None:
    """Judge at a human pace until the end: the judging page's htmx submit, whose response is the next card, and
    now and then a reload of the judging page."""
    rng = random.Random(username)
    # Assessors do not start in step: the first judgment comes some seconds after the common start.
    due = start_at + rng.uniform(0.0, min(PACE_SECONDS[1], (stop_at - start_at) / 4))
    burst = 0
    while card is not None:
        if due >= stop_at:
            break
        time.sleep(max(0.0, due - time.time()))
        if rng.random() < PAGE_LOAD_PROBABILITY and burst == 0:
            sent = time.time()
            status, reloaded = answered(out.statuses, functools.partial(reload_card, b, card.assignment))
            if status == 200:
                out.next_ms.append((time.time() - sent) * 1000)
                card = reloaded
                if card is None:
                    break
        sent = time.time()
        this = card
        status, nxt = answered(out.statuses, functools.partial(load.submit_page, b, this, rng.choice(load.LABELS)))
        if status != 200:
            out.given_up += 1
            out.errors.append(f"{username}: submit answered {status}")
            break
        out.submit_ms.append((time.time() - sent) * 1000)
        out.acknowledged.append(this.token)
        card = nxt
        if burst:
            burst -= 1
        elif rng.random() < BURST_PROBABILITY:
            burst = rng.randint(*BURST_LENGTH)
        gap = rng.uniform(*BURST_GAP_SECONDS) if burst else rng.uniform(*PACE_SECONDS)
        due = time.time() + gap
    if card is None:
        out.ran_out += 1


def assessor_group(usernames: list[str], url: str, start: Any, seconds: float, ready: Any, out: Any) -> None:
    """One process of several assessors, a thread each (at a human pace one process carries ten easily)."""
    outcomes = [Outcome() for _ in usernames]
    sessions: list[tuple[load.Browser, load.Card | None] | None] = [None] * len(usernames)

    def sign_in(k: int) -> None:
        try:
            sessions[k] = signed_in(usernames[k], url)
        except RuntimeError as exc:
            outcomes[k].errors.append(str(exc))

    for k in range(len(usernames)):  # one at a time in each process: a queue of logins would time out
        sign_in(k)
    ready.put(os.getpid())
    while not start.value:
        time.sleep(0.01)

    def run(k: int) -> None:
        session = sessions[k]
        if session is None:
            return
        try:
            one_assessor(usernames[k], *session, start.value, start.value + seconds, outcomes[k])
        except Exception as exc:  # reported, not hidden: the run fails on it
            outcomes[k].errors.append(f"{usernames[k]}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(usernames))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    out.put(Outcome.total(outcomes))
