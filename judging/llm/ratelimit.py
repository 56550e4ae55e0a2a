"""Requests- and tokens-per-minute limits shared by every worker, through the `limits` library.

The storage is Redis when REDIS_URL is set (so all workers and machines draw from one budget), memory
otherwise (the embedded, single-process default). A per-minute budget is also enforced per second
(one sixtieth of it, rounded up), as providers do, so that a job does not spend a minute's budget in
its first second and then stall.
"""

from __future__ import annotations

import asyncio
import contextlib
import math
import random
import threading
import time
import uuid
import weakref
from dataclasses import dataclass
from functools import cache
from typing import Any

import redis
import redis.asyncio
from django.conf import settings
from limits import RateLimitItem, RateLimitItemPerMinute, RateLimitItemPerSecond
from limits.storage import Storage, storage_from_string
from limits.strategies import MovingWindowRateLimiter


@cache
def _limiter(uri: str) -> MovingWindowRateLimiter:
    storage = storage_from_string(uri)
    if not isinstance(storage, Storage):
        raise TypeError(f"{uri!r} names an asynchronous storage")
    return MovingWindowRateLimiter(storage)


def storage_uri() -> str:
    """Where the limits and slots live: LLM_RATE_LIMIT_STORAGE, else REDIS_URL, else this process's memory."""
    return settings.LLM_RATE_LIMIT_STORAGE or settings.REDIS_URL or "memory://"


def limiter() -> MovingWindowRateLimiter:
    return _limiter(storage_uri())


@dataclass(frozen=True)
class Budget:
    """The limits of one judge; `key` names the shared budget (the judge's name)."""

    key: str
    requests_per_minute: int | None = None
    tokens_per_minute: int | None = None
    max_concurrency: int | None = None

    def items(self, tokens: int) -> list[tuple[RateLimitItem, str, int]]:
        out: list[tuple[RateLimitItem, str, int]] = []
        if self.requests_per_minute:
            rpm = self.requests_per_minute
            out.append((RateLimitItemPerSecond(math.ceil(rpm / 60)), "rps", 1))
            out.append((RateLimitItemPerMinute(rpm), "rpm", 1))
        if self.tokens_per_minute:
            tpm = self.tokens_per_minute
            cost = min(tokens, tpm)
            out.append((RateLimitItemPerSecond(max(math.ceil(tpm / 60), cost)), "tps", cost))
            out.append((RateLimitItemPerMinute(tpm), "tpm", cost))
        return out


def acquire(budget: Budget, *, tokens: int = 0, stop: threading.Event | None = None) -> float:
    """Block until one request of `tokens` tokens fits in the budget; return the seconds waited."""
    started = time.monotonic()
    items = budget.items(tokens)
    if not items:
        return 0.0
    rate = limiter()
    for item, name, cost in items:
        while not rate.hit(item, "llm", budget.key, name, cost=cost):
            if stop is not None and stop.is_set():
                raise InterruptedError("stopped while waiting for the rate limit")
            stats = rate.get_window_stats(item, "llm", budget.key, name)
            wait = max(0.005, stats.reset_time - time.time())
            # A little jitter so that waiting threads do not all wake at the same instant.
            time.sleep(min(wait, 1.0) + random.uniform(0, 0.02))
    return time.monotonic() - started


def reset(budget: Budget) -> None:
    rate = limiter()
    for item, name, _ in budget.items(1):
        rate.clear(item, "llm", budget.key, name)


# -- concurrency ----------------------------------------------------------------------------------
#
# A judge's `max_concurrency` bounds its requests in flight across all workers: each call holds a slot,
# a member of a Redis sorted set scored by when its lease ends (so a dead worker's slots free themselves).
# `limits` counts events in windows and has no such primitive; this is the one piece written here.
# A caller that finds no free slot blocks on a wake-up list that every release pushes to, rather than
# polling Redis. The chunks running for a judge (a second sorted set, of chunks with a short lease)
# share its slots evenly: a chunk is granted a slot only while it holds fewer than limit / chunks, so
# that one worker process does not take every slot while another one's calls wait.

_ACQUIRE_SLOT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
local limit, lease, token, chunk = tonumber(ARGV[1]), tonumber(ARGV[2]), ARGV[3], ARGV[4]
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
redis.call('ZREMRANGEBYSCORE', KEYS[2], '-inf', now)
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[5]), chunk)
redis.call('EXPIRE', KEYS[2], math.ceil(tonumber(ARGV[5])) + 5)
if redis.call('ZCARD', KEYS[1]) >= limit then
  return 0
end
local share = math.ceil(limit / redis.call('ZCARD', KEYS[2]))
local mine = 0
for _, member in ipairs(redis.call('ZRANGE', KEYS[1], 0, -1)) do
  if string.sub(member, 1, #chunk + 1) == chunk .. ':' then
    mine = mine + 1
  end
end
if mine >= share then
  return 0
end
redis.call('ZADD', KEYS[1], now + lease, token)
redis.call('EXPIRE', KEYS[1], math.ceil(lease) + 5)
return 1
"""

_RELEASE_SLOT = """
if redis.call('ZREM', KEYS[1], ARGV[1]) == 1 then
  redis.call('LPUSH', KEYS[2], 1)
  redis.call('LTRIM', KEYS[2], 0, tonumber(ARGV[2]) - 1)
  redis.call('EXPIRE', KEYS[2], 60)
end
return 0
"""

# How long a waiter blocks before it looks again by itself: the safety net for a lease that expired
# (its worker died) and so pushed no wake-up.
SLOT_WAIT_SECONDS = 0.25
SLOT_POLL_SECONDS = 0.02
# A chunk counts in the share while it has asked for a slot this recently.
CHUNK_LEASE_SECONDS = 30


@cache
def _redis(url: str) -> Any:
    return redis.Redis.from_url(url)


# The asynchronous clients, scripts and semaphores belong to the loop they were made on (judging.llm.aio).
_per_loop: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, dict[Any, Any]] = weakref.WeakKeyDictionary()


def _loop_state() -> dict[Any, Any]:
    return _per_loop.setdefault(asyncio.get_running_loop(), {})


def _async_scripts(url: str) -> tuple[Any, Any, Any]:
    state = _loop_state()
    found = state.get(url)
    if found is None:
        client = redis.asyncio.Redis.from_url(url)
        found = state[url] = (
            client,
            client.register_script(_ACQUIRE_SLOT),
            client.register_script(_RELEASE_SLOT),
        )
    return found


def _slot_storage() -> str:
    uri = storage_uri()
    return uri if uri.startswith(("redis://", "rediss://")) else ""


def _cancel_requested() -> bool:
    """Whether this task was asked to stop: redis-py sends each command through asyncio.wait_for,
    which on Python 3.11 swallows a cancellation that arrives just as the send completes, so a
    cancelled waiter would otherwise go on waiting for a slot forever."""
    task = asyncio.current_task()
    return task is not None and task.cancelling() > 0


class ConcurrencySlots:
    """The `limit` slots of `key`, across all workers with Redis, in this process otherwise.

    Used by one chunk on the calls' event loop: `acquire` waits for a slot and returns its token,
    `release` gives it back. A released slot is kept for the chunk's next call, up to `REUSE` calls
    while its lease is young, which saves most of the three Redis round trips a call would cost and
    lets the caller go straight on to its next call; then it goes back, where the other workers
    waiting for slots can take it. `drain` gives back what is kept once the chunk has no call left to
    start, and leaves the share. One caller of the chunk at a time waits for a new slot: while the
    chunk holds slots it waits for one of them, looking again each time one comes back or every
    20 ms; while it holds none it blocks on the wake-up list.
    """

    REUSE = 4

    def __init__(self, key: str, limit: int, *, lease_seconds: float) -> None:
        self.key = key
        self.limit = limit
        self.lease_seconds = lease_seconds
        self.url = _slot_storage()
        self.name = f"llm:slots:{key}"
        self.chunk = uuid.uuid4().hex[:16]
        self._held: dict[str, tuple[float, int]] = {}  # token: (acquired at, calls made with it)
        self._kept: list[str] = []
        self._keep = True
        self._returned: asyncio.Event | None = None
        self._lock: asyncio.Lock | None = None

    async def acquire(self, *, stop: threading.Event | None = None) -> str:
        if self._kept:
            return self._reuse()
        if self._lock is None or self._returned is None:
            self._lock, self._returned = asyncio.Lock(), asyncio.Event()
        async with self._lock:
            while True:
                if self._kept:
                    return self._reuse()
                token = await self._take()
                if token is not None and _cancel_requested():
                    await self._give_back(token)
                if _cancel_requested():
                    raise asyncio.CancelledError
                if token is not None:
                    self._held[token] = (time.monotonic(), 1)
                    return token
                if stop is not None and stop.is_set():
                    raise InterruptedError("stopped while waiting for a concurrency slot")
                if self._held or not self.url:
                    self._returned.clear()
                    # asyncio.timeout, not wait_for: wait_for can swallow a cancellation (see above).
                    with contextlib.suppress(TimeoutError):
                        async with asyncio.timeout(SLOT_POLL_SECONDS):
                            await self._returned.wait()
                else:
                    client, _, _ = _async_scripts(self.url)
                    await client.blpop([f"{self.name}:free"], timeout=SLOT_WAIT_SECONDS)

    async def release(self, token: str) -> None:
        acquired, uses = self._held[token]
        if self._keep and uses < self.REUSE and time.monotonic() - acquired < self.lease_seconds / 2:
            self._kept.append(token)
        else:
            del self._held[token]
            await self._give_back(token)
        if self._returned is not None:
            self._returned.set()

    async def drain(self) -> None:
        """Give back the kept slots, and from now on each slot as soon as it is released."""
        self._keep = False
        kept, self._kept = self._kept, []
        for token in kept:
            del self._held[token]
            await self._give_back(token)
        if self.url:
            client, _, _ = _async_scripts(self.url)
            await client.zrem(f"{self.name}:chunks", self.chunk)

    def _reuse(self) -> str:
        token = self._kept.pop()
        acquired, uses = self._held[token]
        self._held[token] = (acquired, uses + 1)
        return token

    async def _take(self) -> str | None:
        """A new slot if one is free (and, with Redis, within this chunk's share), else None."""
        token = f"{self.chunk}:{uuid.uuid4().hex}"
        if not self.url:
            semaphore = self._local()
            if semaphore.locked():
                return None
            await semaphore.acquire()
            return token
        _, acquire_script, _ = _async_scripts(self.url)
        args = [self.limit, self.lease_seconds, token, self.chunk, CHUNK_LEASE_SECONDS]
        return token if await acquire_script(keys=[self.name, f"{self.name}:chunks"], args=args) else None

    async def _give_back(self, token: str) -> None:
        if not self.url:
            self._local().release()
            return
        _, _, release_script = _async_scripts(self.url)
        await release_script(keys=[self.name, f"{self.name}:free"], args=[token, self.limit])

    def _local(self) -> asyncio.Semaphore:
        state = _loop_state()
        semaphore = state.get((self.key, self.limit))
        if semaphore is None:
            semaphore = state[(self.key, self.limit)] = asyncio.Semaphore(self.limit)
        return semaphore  # type: ignore[no-any-return]


def concurrency_reset(key: str) -> None:
    url = _slot_storage()
    if url:
        _redis(url).delete(f"llm:slots:{key}", f"llm:slots:{key}:free", f"llm:slots:{key}:chunks")
