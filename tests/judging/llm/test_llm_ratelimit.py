"""Requests- and tokens-per-minute budgets (memory storage; Redis across workers in test_llm_workers), and the
concurrency slots in Redis."""

from __future__ import annotations

import asyncio
import os
import time
import uuid

import pytest

from judging.llm import aio, ratelimit


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


@pytest.fixture
def slots_key(settings):
    """A judge key whose concurrency slots live in the real Redis; its keys are deleted afterwards."""
    if not os.environ.get("REDIS_URL"):
        pytest.fail("this test needs REDIS_URL (a real Redis)")
    settings.LLM_RATE_LIMIT_STORAGE = os.environ["REDIS_URL"]
    key = f"test-{uuid.uuid4().hex[:8]}"
    yield key
    ratelimit.concurrency_reset(key)


def on_the_calls_loop(coroutine, timeout):
    # On the calls' own loop, in its thread (the browser tests keep a loop running in this one).
    return aio.submit(coroutine).result(timeout=timeout)


def test_concurrency_slots_are_reused_shared_between_chunks_and_given_back(slots_key):
    # given a judge's 4 slots in Redis, as the workers share them
    key = slots_key

    async def scenario():
        first = ratelimit.ConcurrencySlots(key, 4, lease_seconds=60)
        second = ratelimit.ConcurrencySlots(key, 4, lease_seconds=60)
        # when two chunks ask for slots in turn
        a1, b1, a2 = await first.acquire(), await second.acquire(), await first.acquire()
        # then a chunk holding its share (4 slots / 2 chunks) waits, though a slot is free
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(first.acquire(), timeout=0.3)
        b2 = await asyncio.wait_for(second.acquire(), timeout=1)
        # and a fifth call in flight waits: the judge allows four
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(second.acquire(), timeout=0.3)
        # and a slot a chunk releases is used again by that chunk, without going back to Redis
        await first.release(a1)
        assert await first.acquire() == a1
        # when the second chunk has nothing left to start and its calls end
        await second.drain()
        await second.release(b1)
        await second.release(b2)
        # then the first, alone now, may take every slot, and no more
        taken = [await asyncio.wait_for(first.acquire(), timeout=2) for _ in range(2)]
        assert len({a1, a2, *taken}) == 4
        with pytest.raises(TimeoutError):
            await asyncio.wait_for(first.acquire(), timeout=0.3)

    on_the_calls_loop(scenario(), timeout=60)


def test_a_chunk_waiting_for_a_slot_stops_when_cancelled_at_any_point(slots_key):
    # given a judge's only slot taken, in Redis
    key = slots_key

    async def scenario():
        holder = ratelimit.ConcurrencySlots(key, 1, lease_seconds=60)
        await holder.acquire()
        outcomes = []
        # when a waiter is cancelled after each number of loop turns, so at every await of its
        # Redis round trips (redis-py's sends can swallow a cancellation on Python 3.11)
        for turns in range(40):
            waiter = asyncio.ensure_future(ratelimit.ConcurrencySlots(key, 1, lease_seconds=60).acquire())
            for _ in range(turns):
                await asyncio.sleep(0)
            waiter.cancel()
            done, _ = await asyncio.wait({waiter}, timeout=2)
            outcomes.append("stopped" if done and waiter.cancelled() else "went on")
        return outcomes

    # then it stops every time, and takes no slot
    assert on_the_calls_loop(scenario(), timeout=120) == ["stopped"] * 40
    assert ratelimit._redis(os.environ["REDIS_URL"]).zcard(f"llm:slots:{key}") == 1
