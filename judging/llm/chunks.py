"""A job's work, in chunks: its pairs still to do split into chunks, each chunk's calls made on this
process's event loop (`aio`) and written as they arrive, and a whole job run in this process.

On the Celery workers each chunk is a task (`tasks`); without a broker (the CLI, the embedded default,
the benchmark) `prelabel_job_execute` runs the chunks, or the batch, one after the other here.
"""

from __future__ import annotations

import asyncio
import collections
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from django.conf import settings
from django.db import connection
from django.utils import timezone

from judging.llm import aio, batch, ratelimit
from judging.llm.calls import SUPPORT_REPLIES, Caller, CallOutcome, CallRequest, ReplyParser, RetryPolicy
from judging.llm.client import ProviderNotConfigured, async_client_for, provider_check, request_timeout
from judging.llm.meter import CallMeter, meter_publish
from judging.llm.models import LLMJudge, LLMResultStatus, PrelabelJob, PrelabelMode, PrelabelStatus
from judging.llm.selectors import pairs_to_call
from judging.llm.services import (
    JOB_OPEN,
    PrelabelError,
    job_cancelled,
    llm_config,
    prelabel_job_fail,
    prelabel_job_refresh,
)
from judging.llm.units import ResultStore, results_store

logger = logging.getLogger(__name__)


def chunk_size_for(llm: LLMJudge) -> int:
    if settings.LLM_CHUNK_SIZE:
        return int(settings.LLM_CHUNK_SIZE)
    size = max(100, llm.max_concurrency * 16)
    if llm.requests_per_minute:
        # About five minutes of the budget, well inside a chunk task's time limit.
        size = min(size, max(10, llm.requests_per_minute * 5))
    return size


def pairs_to_do(*, job: PrelabelJob) -> list[int]:
    return pairs_to_call(
        campaign=job.campaign, judge=job.judge, retry_errors=job.retry_errors, prompt_version=job.prompt_version
    )


def prelabel_job_start(*, job: PrelabelJob, chunk_size: int | None = None) -> list[list[int]]:
    """Mark an open job running and split its pairs still to do into chunks (a batch job is then submitted as
    one batch). Returns the chunks: none when the job has ended, was cancelled meanwhile, or has nothing to do
    (it is then done)."""
    if job.status not in JOB_OPEN:
        return []
    llm = llm_config(job.judge)
    todo = pairs_to_do(job=job)
    now = timezone.now()
    open_job = PrelabelJob.objects.filter(pk=job.pk, status__in=JOB_OPEN)
    if not todo:
        open_job.update(status=PrelabelStatus.DONE, started_at=job.started_at or now, finished_at=now, chunks=0)
        job.refresh_from_db()
        return []
    size = chunk_size or chunk_size_for(llm)
    chunks = [todo[i : i + size] for i in range(0, len(todo), size)]
    # A conditional update, so that a job cancelled meanwhile stays cancelled.
    started = open_job.update(
        status=PrelabelStatus.RUNNING,
        # Its first start counts what is left to call; a redelivered start of a running job keeps its total.
        **({"total": len(todo)} if job.status == PrelabelStatus.PENDING else {}),
        started_at=job.started_at or now,
        chunks=1 if job.mode == PrelabelMode.BATCH else len(chunks),
    )
    job.refresh_from_db()
    if not started:
        return []
    return chunks


def retry_policy() -> RetryPolicy:
    return RetryPolicy(
        max_attempts=int(settings.LLM_MAX_ATTEMPTS),
        backoff_base=float(settings.LLM_BACKOFF_BASE_SECONDS),
        backoff_cap=float(settings.LLM_BACKOFF_CAP_SECONDS),
    )


@dataclass
class ChunkSummary:
    claimed: int = 0
    held_elsewhere: int = 0
    written: int = 0


class _Dispatch:
    """A chunk's calls on the event loop: up to `limit` workers, each taking the next request, a
    concurrency slot, and making the call. A worker goes on to its next call as soon as one ends,
    reusing the slot it held, so that no slot waits for a hand-over between tasks."""

    def __init__(self, caller: Caller, limit: int, finish: Callable[[CallOutcome | None], None], *, parts: int) -> None:
        self.caller = caller
        self.limit = limit
        self.finish = finish
        self.parts = parts
        self.pending: collections.deque[CallRequest] = collections.deque()
        self.workers: set[asyncio.Task[None]] = set()

    async def add(self, requests: list[CallRequest]) -> None:
        """Add one part of the chunk's requests; the last part to be added lets the slots drain."""
        self.pending.extend(requests)
        self.parts -= 1
        while len(self.workers) < min(self.limit, len(self.workers) + len(self.pending)):
            worker = asyncio.create_task(self._work())
            self.workers.add(worker)
            worker.add_done_callback(self.workers.discard)
        if not self.parts and not self.pending and not self.workers:
            await self.caller.slots_drain()

    async def _work(self) -> None:
        while self.pending:
            request = self.pending.popleft()
            self.finish(await self._call(request))
        if not self.parts:
            await self.caller.slots_drain()

    async def _call(self, request: CallRequest) -> CallOutcome | None:
        """The outcome of one call; None leaves its pair pending (stopped: a later run reclaims it)."""
        if self.caller.stop.is_set():
            return None
        try:
            slot = await self.caller.slot_acquire()
            return await self.caller.call(request, slot=slot)
        except InterruptedError:
            return None
        except Exception as error:  # a bug must not leave the pair pending forever
            logger.exception("judge call failed for pair %s", request.pair_id)
            return CallOutcome(request.pair_id, LLMResultStatus.ERROR, error=_error_text(error))


def _error_text(error: Exception) -> str:
    return f"{type(error).__name__}: {error}"[:2000]


async def _caller_build(
    llm: LLMJudge, *, key: str, stop: threading.Event, meter: CallMeter, parser: ReplyParser = SUPPORT_REPLIES
) -> Caller:
    return Caller(
        parser=parser,
        client=async_client_for(llm),
        model=llm.model,
        temperature=llm.temperature,
        budget=ratelimit.Budget(
            key=key,
            requests_per_minute=llm.requests_per_minute,
            tokens_per_minute=llm.tokens_per_minute,
            max_concurrency=llm.max_concurrency,
        ),
        policy=retry_policy(),
        stop=stop,
        lease_seconds=request_timeout() + 30,
        meter=meter,
    )


class _Outcomes:
    """Where the event loop hands over each claimed pair exactly once: its outcome, or None for a pair left
    pending (the chunk was stopped, or the pair was deleted meanwhile)."""

    def __init__(self, expected: int) -> None:
        self.expected = expected
        self.received = 0
        self.all_done = threading.Event()
        self._queue: queue.SimpleQueue[CallOutcome | None] = queue.SimpleQueue()
        self._remaining = expected
        self._lock = threading.Lock()

    def finish(self, outcome: CallOutcome | None) -> None:
        self._queue.put(outcome)
        with self._lock:
            self._remaining -= 1
            if not self._remaining:
                self.all_done.set()

    def take(self) -> list[CallOutcome]:
        """The outcomes that arrived since the last take (the pairs left pending are counted, not returned)."""
        taken: list[CallOutcome] = []
        while True:
            try:
                item = self._queue.get_nowait()
            except queue.Empty:
                return taken
            self.received += 1
            if item is not None:
                taken.append(item)


def prelabel_chunk_run(*, job: PrelabelJob, pair_ids: Sequence[int], flush_every: float = 1.0) -> ChunkSummary:
    """Claim the chunk's pairs and call the judge for them, `max_concurrency` calls at a time.

    The calls run on this process's event loop (judging.llm.aio); this thread builds the prompts and
    writes the outcomes in small batches as they arrive.
    """
    llm = llm_config(job.judge)
    try:
        provider_check(llm)
    except ProviderNotConfigured as error:
        # The web process had the key, this worker has not: say so rather than leave the job running.
        prelabel_job_fail(job=job, message=f"on the worker: {error}")
        return ChunkSummary()
    claim = uuid.uuid4()
    store = results_store(job)  # the campaign's pairs, or its kind's units (judging/llm/units.py)
    claimed, held = store.claim(pair_ids, claim)
    summary = ChunkSummary(claimed=len(claimed), held_elsewhere=held)
    if claimed:
        summary.written = _calls_make(
            job=job, llm=llm, store=store, claimed=claimed, claim=claim, flush_every=flush_every
        )
    prelabel_job_refresh(job=job)
    return summary


def _calls_make(
    *, job: PrelabelJob, llm: LLMJudge, store: ResultStore, claimed: list[int], claim: uuid.UUID, flush_every: float
) -> int:
    """Call the judge for the claimed pairs (or units) and write the outcomes as they arrive. Returns how many
    were written."""
    stop = threading.Event()
    outcomes = _Outcomes(len(claimed))
    meter = CallMeter()
    buffer: list[CallOutcome] = []
    written = 0
    try:
        caller = aio.submit(
            _caller_build(llm, key=job.judge.name, stop=stop, meter=meter, parser=store.parser)
        ).result()
        # The first calls start while the rest of the prompts are built.
        head = max(2 * llm.max_concurrency, 20)
        parts = (claimed[:head], claimed[head:])
        dispatch = _Dispatch(caller, max(1, llm.max_concurrency), outcomes.finish, parts=len(parts))
        for part in parts:
            built = store.requests(part) if part else []
            for _ in range(len(part) - len(built)):
                outcomes.finish(None)  # a pair deleted meanwhile
            aio.submit(dispatch.add(built))
        while outcomes.received < outcomes.expected:
            # Wake once a second (or when all is done) and write everything that arrived, rather than once per
            # outcome: fewer, larger statements, and this thread competes for the interpreter with the loop.
            outcomes.all_done.wait(flush_every)
            if not stop.is_set() and job_cancelled(job.pk):
                stop.set()  # no new call starts; the calls in flight end and are written below
            buffer = outcomes.take()
            meter_publish(job_id=job.pk, chunk=claim.hex, meter=meter)
            if buffer:
                written += store.write(llm, claim, buffer)
                buffer = []
        # Every claimed pair has ended here; those left pending (stopped) are free for a later job at once.
        store.release(claim)
    finally:
        stop.set()
        if buffer:
            written += store.write(llm, claim, buffer)
        meter_publish(job_id=job.pk, chunk=claim.hex, meter=meter, closing=True)
    return written


def prelabel_job_execute(*, job: PrelabelJob, poll_seconds: float | None = None) -> PrelabelJob:
    """Run a whole job in this process (the CLI without a broker, the benchmark): no Celery involved."""
    try:
        chunks = prelabel_job_start(job=job)
        if job.mode == PrelabelMode.BATCH and chunks:
            if batch.batch_submit(job=job, pair_ids=[pid for chunk in chunks for pid in chunk]):
                interval = poll_seconds if poll_seconds is not None else batch.poll_interval()
                while not batch.batch_poll(job=job):
                    time.sleep(interval)
        else:
            for chunk in chunks:
                if job_cancelled(job.pk):
                    break
                prelabel_chunk_run(job=job, pair_ids=chunk)
    except PrelabelError as error:
        prelabel_job_fail(job=job, message=str(error))
    job.refresh_from_db()
    return job


def prelabel_job_execute_by_id(job_id: int) -> None:
    """`prelabel_job_execute` in a thread of its own (the embedded default): it closes its connection."""
    try:
        job = PrelabelJob.objects.select_related("judge", "campaign").filter(pk=job_id).first()
        if job is not None:
            prelabel_job_execute(job=job)
    except Exception:
        logger.exception("prelabel job %s failed in its thread", job_id)
        prelabel_job_fail(job=PrelabelJob(pk=job_id), message="the job failed; see the server log")
    finally:
        connection.close()
