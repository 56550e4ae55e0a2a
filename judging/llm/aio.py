"""One asyncio event loop per process, in a thread, where the judge calls of every chunk run.

Calls are asynchronous because a thread per call in flight costs the interpreter more than the call
itself: at 64 calls in flight the threads, not the network, bounded a worker. The loop outlives the
chunks so that the HTTP client and its open connections are kept between them, as a thread-safe
synchronous client was before. Django's ORM never runs here: the chunk's own thread does the writes.
"""

from __future__ import annotations

import asyncio
import os
import threading
from collections.abc import Coroutine
from concurrent.futures import Future
from typing import Any, TypeVar

T = TypeVar("T")

_loops: dict[int, asyncio.AbstractEventLoop] = {}
_lock = threading.Lock()


def loop() -> asyncio.AbstractEventLoop:
    """This process's loop (a forked worker process starts its own)."""
    pid = os.getpid()
    with _lock:
        current = _loops.get(pid)
        if current is None or current.is_closed():
            current = _loops[pid] = asyncio.new_event_loop()
            threading.Thread(target=current.run_forever, name="llm-loop", daemon=True).start()
        return current


def submit(coroutine: Coroutine[Any, Any, T]) -> Future[T]:
    """Run a coroutine on the loop; the returned future can be waited on from any thread."""
    return asyncio.run_coroutine_threadsafe(coroutine, loop())
