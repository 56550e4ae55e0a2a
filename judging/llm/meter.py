"""What a job's calls are doing now: the calls under way and the calls answered in the last minute.

These are HTTP requests to the judge (retries included), not pairs: a chunk claims many pairs at once,
but only `max_concurrency` of them are being called. The event loop counts each request in a
`CallMeter`; the chunk's writing thread publishes the counts once a flush (about a second) to the
shared store, Redis when there is one (the workers and the web process are different processes),
this process's memory otherwise (the embedded default, where the job runs in a thread of the web
process). Results are counted from the database; only these two figures need a store of their own.
"""

from __future__ import annotations

import collections
import logging
import threading
import time
from collections import Counter
from functools import cache
from typing import Any

import redis

from judging.llm.ratelimit import storage_uri

logger = logging.getLogger(__name__)

WINDOW_SECONDS = 60
# A chunk that has not published for this long is taken for dead: its calls are no longer counted.
STALE_SECONDS = 15
KEEP_SECONDS = 3600


class CallMeter:
    """Counts one chunk's requests on the event loop; the writing thread reads it with `take`."""

    def __init__(self) -> None:
        self.under_way = 0
        self._answered: collections.deque[float] = collections.deque()

    def started(self) -> None:
        self.under_way += 1

    def ended(self) -> None:
        self.under_way -= 1
        self._answered.append(time.time())

    def take(self) -> list[float]:
        """When each request answered since the last take ended (deque pops are thread-safe)."""
        taken = []
        while self._answered:
            taken.append(self._answered.popleft())
        return taken


def _flight_key(job_id: int) -> str:
    return f"llm:meter:{job_id}:flight"


def _calls_key(job_id: int, minute: int) -> str:
    """The answered calls of one minute, per second: the last minute spans this one and the one before."""
    return f"llm:meter:{job_id}:calls:{minute}"


@cache
def _redis(url: str) -> Any:
    return redis.Redis.from_url(url)


def _store() -> Any:
    uri = storage_uri()
    return _redis(uri) if uri.startswith(("redis://", "rediss://")) else None


# The process-memory store: {key: {field: value}}, as the Redis hashes.
_memory: dict[str, dict[str, str]] = collections.defaultdict(dict)
_lock = threading.Lock()


def meter_publish(*, job_id: int, chunk: str, meter: CallMeter, closing: bool = False) -> None:
    """Publish a chunk's calls under way (none once `closing`) and its answered calls, per second."""
    flight_key = _flight_key(job_id)
    now = time.time()
    per_second = Counter(int(t) for t in meter.take())
    store = _store()
    if store is None:
        with _lock:
            if closing:
                _memory[flight_key].pop(chunk, None)
            else:
                _memory[flight_key][chunk] = f"{meter.under_way}:{now}"
            for second, count in per_second.items():
                calls = _memory[_calls_key(job_id, second // 60)]
                calls[str(second)] = str(int(calls.get(str(second), "0")) + count)
            _memory.pop(_calls_key(job_id, int(now) // 60 - 2), None)
        return
    pipe = store.pipeline(transaction=False)
    if closing:
        pipe.hdel(flight_key, chunk)
    else:
        pipe.hset(flight_key, chunk, f"{meter.under_way}:{now}")
    pipe.expire(flight_key, KEEP_SECONDS)
    for second, count in per_second.items():
        calls_key = _calls_key(job_id, second // 60)
        pipe.hincrby(calls_key, str(second), count)
        pipe.expire(calls_key, 3 * WINDOW_SECONDS)
    try:
        pipe.execute()
    except redis.exceptions.RedisError:
        # A figure on a page is not worth failing the calls for: the results are still written.
        logger.warning("could not publish the calls of job %s", job_id, exc_info=True)


def meter_read(job_id: int) -> tuple[int, int]:
    """(calls under way, calls answered in the last minute) for a job, over all its chunks."""
    now = time.time()
    flight_key = _flight_key(job_id)
    minute_keys = [_calls_key(job_id, int(now) // 60 - 1), _calls_key(job_id, int(now) // 60)]
    store = _store()
    calls: dict[str, str] = {}
    if store is None:
        with _lock:
            flight = dict(_memory.get(flight_key, {}))
            for key in minute_keys:
                calls.update(_memory.get(key, {}))
    else:
        pipe = store.pipeline(transaction=False)
        for key in [flight_key, *minute_keys]:
            pipe.hgetall(key)
        raw_flight, *raw_minutes = pipe.execute()
        flight = {k.decode(): v.decode() for k, v in raw_flight.items()}
        for raw in raw_minutes:
            calls.update({k.decode(): v.decode() for k, v in raw.items()})
    under_way = 0
    for value in flight.values():
        count, _, at = value.partition(":")
        if now - float(at) < STALE_SECONDS:
            under_way += int(count)
    # The window holds the current second and the 59 before it: the requests answered in the last minute.
    since = int(now) - WINDOW_SECONDS + 1
    answered = sum(int(count) for second, count in calls.items() if int(second) >= since)
    return under_way, answered


def meter_clear(job_id: int) -> None:
    """Forget what a store kept under this job id (a database made anew reuses ids)."""
    prefix = f"llm:meter:{job_id}:"
    store = _store()
    if store is None:
        with _lock:
            for key in [k for k in _memory if k.startswith(prefix)]:
                del _memory[key]
        return
    keys = list(store.scan_iter(match=f"{prefix}*", count=100))
    if keys:
        store.delete(*keys)
