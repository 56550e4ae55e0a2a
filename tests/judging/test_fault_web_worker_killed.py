"""Faults (issue 17, point 6): a web worker SIGKILLed in the middle of a burst of submits from real sessions.

Real processes throughout: gunicorn with the deployed settings (config/gunicorn.py) on a free port, against this
test's PostgreSQL database and Redis; assessors who log in through the login page and submit as the judging page
does (bench/judge.py's helpers). Every submit the server acknowledged (HTTP 200) must be stored exactly once, and
no pair judged twice by one assessor, whatever the kill cut short."""

from __future__ import annotations

import http.client
import os
import signal
import socket
import threading
import time
from collections import Counter
from dataclasses import dataclass, field

import pytest
from django.conf import settings

from bench import judge as bench
from judging.models import Judgment

ASSESSORS = 3
BURST_SECONDS = 6.0
KILL_AT_SECONDS = (2.0, 4.0)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def database_url_of_this_test() -> str:
    db = settings.DATABASES["default"]
    return f"postgres://{db['USER']}@{db['HOST']}:{db['PORT'] or 5432}/{db['NAME']}"


def server_environment_of_this_test(monkeypatch) -> None:
    """gunicorn's environment: production settings on this test's database."""
    for name, value in {
        "DATABASE_URL": database_url_of_this_test(),
        "DJANGO_SETTINGS_MODULE": "config.settings",
        "DEBUG": "false",
        "SECRET_KEY": "fault-test-key-not-secret",
        "ALLOWED_HOSTS": "127.0.0.1,localhost",
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "LOG_LEVEL": "ERROR",
    }.items():
        monkeypatch.setenv(name, value)


def workers_killed(master: int, *, burst_start: float) -> list[tuple[int, float]]:
    """At each of KILL_AT_SECONDS into the burst, the first worker of gunicorn SIGKILLed: (pid, when)."""
    victims = []
    for at in KILL_AT_SECONDS:
        time.sleep(max(0.0, burst_start + at - time.time()))
        victim = sorted(set(bench.children(master)))[0]
        os.kill(victim, signal.SIGKILL)
        victims.append((victim, time.time()))
    return victims


@dataclass
class Session:
    username: str
    acknowledged: list[tuple[str, float]] = field(default_factory=list)
    failures: list[str] = field(default_factory=list)


def judge_until(session: Session, port: int, ready: threading.Barrier, stop_at: list[float]) -> None:
    """One assessor: log in, open the judging page, wait for the others, then submit card after card until the
    burst ends. A submit that fails (its worker was killed, its connection reset) is not acknowledged: the
    assessor reloads the page and goes on from there."""
    b = bench.Browser("127.0.0.1", port)
    bench.login(b, session.username)
    card = bench.first_card_page(b)
    labels = iter(bench.LABELS * 10_000)
    ready.wait()
    while card is not None and time.time() < stop_at[0]:
        try:
            status, nxt = bench.submit_page(b, card, next(labels))
        except (OSError, http.client.HTTPException) as error:
            session.failures.append(type(error).__name__)
            b.conn = None
            card = bench.card_page(b, card.assignment)
            continue
        if status != 200:
            session.failures.append(f"HTTP {status}")
            card = bench.card_page(b, card.assignment)
            continue
        session.acknowledged.append((card.token, time.time()))
        card = nxt


@pytest.mark.faults
@pytest.mark.django_db(transaction=True)
def test_every_acknowledged_submit_is_stored_once_when_a_web_worker_is_killed_mid_burst(monkeypatch):
    if not settings.DATABASES["default"]["ENGINE"].endswith("postgresql"):
        pytest.skip("runs against PostgreSQL (make test sets DATABASE_URL)")
    # given: a campaign of real topics and passages, assessors with assignments, gunicorn serving it
    made = bench.populate(2, [ASSESSORS])
    accounts = made["accounts"][ASSESSORS]
    server_environment_of_this_test(monkeypatch)
    port = free_port()
    server = bench.gunicorn_start(port, 2, "wsgi", "sync", 1)
    try:
        sessions = [Session(name) for name in accounts]
        stop_at = [0.0]
        # Logging in costs a password hash each; the burst starts once every assessor has their first card.
        ready = threading.Barrier(ASSESSORS + 1, action=lambda: stop_at.__setitem__(0, time.time() + BURST_SECONDS))
        threads = [threading.Thread(target=judge_until, args=(s, port, ready, stop_at)) for s in sessions]
        for t in threads:
            t.start()
        ready.wait(timeout=120)

        # when: a web worker is SIGKILLed in the middle of the burst, and again a little later (its replacement
        # or the other one): each kill cuts short whatever request that worker was serving
        victims = workers_killed(server.pid, burst_start=stop_at[0] - BURST_SECONDS)
        killed_at = victims[0][1]
        for t in threads:
            t.join(timeout=60)
        workers_after = set(bench.children(server.pid))
    finally:
        server.terminate()
        server.wait(timeout=30)

    # then: the worker died and gunicorn replaced it; submits were acknowledged before and after the kill
    assert not {pid for pid, _ in victims} & workers_after
    assert len(workers_after) == 2
    acknowledged = [token for s in sessions for token, _ in s.acknowledged]
    after_kill = [token for s in sessions for token, at in s.acknowledged if at > killed_at]
    assert len(acknowledged) > len(after_kill) > 0

    # and every acknowledged submit is stored exactly once; no assessor has a pair judged twice
    mine = Judgment.objects.filter(judge__user__username__in=accounts)
    stored = Counter(str(t) for t in mine.values_list("submission_token", flat=True))
    assert len(set(acknowledged)) == len(acknowledged)
    assert [t for t in acknowledged if stored[t] != 1] == []
    per_pair = Counter(mine.values_list("judge_id", "pair_id"))
    assert [key for key, n in per_pair.items() if n > 1] == []
    # stored but never acknowledged: at most the submits in flight in the killed worker (one per assessor)
    unacknowledged = len(set(stored) - set(acknowledged))
    assert unacknowledged <= ASSESSORS
    failures = [f for s in sessions for f in s.failures]
    print(
        f"\n{len(victims)} workers killed, {len(acknowledged)} acknowledged ({len(after_kill)} after the first kill), {sum(stored.values())} stored, "
        f"0 missing, 0 doubled, {unacknowledged} stored unacknowledged, failed submits: {failures}"
    )
