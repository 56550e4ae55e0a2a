"""Requests- and tokens-per-minute limits shared by every worker, through the `limits` library.

The storage is Redis when REDIS_URL is set (so all workers and machines draw from one budget), memory
otherwise (the embedded, single-process default). A per-minute budget is also enforced per second
(one sixtieth of it, rounded up), as providers do, so that a job does not spend a minute's budget in
its first second and then stall.
"""

from __future__ import annotations

import math
import random
import threading
import time
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from functools import cache
from typing import Any

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


def limiter() -> MovingWindowRateLimiter:
    uri = getattr(settings, "LLM_RATE_LIMIT_STORAGE", "") or getattr(settings, "REDIS_URL", "") or "memory://"
    return _limiter(uri)


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

_ACQUIRE_SLOT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) + tonumber(t[2]) / 1000000
redis.call('ZREMRANGEBYSCORE', KEYS[1], '-inf', now)
if redis.call('ZCARD', KEYS[1]) < tonumber(ARGV[1]) then
  redis.call('ZADD', KEYS[1], now + tonumber(ARGV[2]), ARGV[3])
  redis.call('EXPIRE', KEYS[1], math.ceil(tonumber(ARGV[2])) + 5)
  return 1
end
return 0
"""


@cache
def _redis(url: str) -> Any:
    import redis

    return redis.Redis.from_url(url)


@cache
def _slot_script(url: str) -> Any:
    return _redis(url).register_script(_ACQUIRE_SLOT)


_local_slots: dict[tuple[str, int], threading.BoundedSemaphore] = {}
_local_lock = threading.Lock()


def _slot_storage() -> str:
    uri = getattr(settings, "LLM_RATE_LIMIT_STORAGE", "") or getattr(settings, "REDIS_URL", "") or "memory://"
    return uri if uri.startswith(("redis://", "rediss://")) else ""


@contextmanager
def concurrency_slot(
    key: str, limit: int, *, lease_seconds: float, stop: threading.Event | None = None
) -> Iterator[None]:
    """Hold one of `limit` slots of `key` (across all workers with Redis, this process otherwise)."""
    url = _slot_storage()
    if not url:
        with _local_lock:
            semaphore = _local_slots.setdefault((key, limit), threading.BoundedSemaphore(limit))
        while not semaphore.acquire(timeout=0.5):
            if stop is not None and stop.is_set():
                raise InterruptedError("stopped while waiting for a concurrency slot")
        try:
            yield
        finally:
            semaphore.release()
        return
    client = _redis(url)
    name = f"llm:slots:{key}"
    token = uuid.uuid4().hex
    script = _slot_script(url)
    while not script(keys=[name], args=[limit, lease_seconds, token]):
        if stop is not None and stop.is_set():
            raise InterruptedError("stopped while waiting for a concurrency slot")
        time.sleep(random.uniform(0.005, 0.03))
    try:
        yield
    finally:
        client.zrem(name, token)


def concurrency_reset(key: str) -> None:
    url = _slot_storage()
    if url:
        _redis(url).delete(f"llm:slots:{key}")
