"""Requests- and tokens-per-minute budgets (memory storage here; Redis across workers in test_llm_workers)."""

from __future__ import annotations

import time
import uuid

from judging.llm import ratelimit


def budget(**limits):
    return ratelimit.Budget(key=f"test-{uuid.uuid4().hex[:8]}", **limits)


def timed(fn, times):
    started = time.monotonic()
    for _ in range(times):
        fn()
    return time.monotonic() - started


def test_a_budget_without_limits_never_waits(llm_fast):
    b = budget()
    assert timed(lambda: ratelimit.acquire(b, tokens=10_000), 50) < 0.5


def test_requests_per_minute_are_spread_over_the_seconds(llm_fast):
    # given 120 requests a minute: 2 a second
    b = budget(requests_per_minute=120)
    # when 5 requests go
    elapsed = timed(lambda: ratelimit.acquire(b), 5)
    # then the 5th waited for the third second
    assert 1.9 <= elapsed < 3.5


def test_tokens_per_minute_hold_back_large_requests(llm_fast):
    # given 1200 tokens a minute (20 a second), and requests of 20 tokens
    b = budget(tokens_per_minute=1200)
    elapsed = timed(lambda: ratelimit.acquire(b, tokens=20), 3)
    assert 1.9 <= elapsed < 3.5


def test_budgets_of_two_judges_are_separate(llm_fast):
    first, second = budget(requests_per_minute=60), budget(requests_per_minute=60)
    ratelimit.acquire(first)
    assert timed(lambda: ratelimit.acquire(second), 1) < 0.2
