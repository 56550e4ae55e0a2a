"""Writes for LLM pre-labelling: judges, jobs, claims and results (issue 4).

A result is keyed by (judge, prompt version, pair). A worker first *claims* the pairs of its chunk
(inserting `pending` rows, or taking over stale ones), calls only for what it claimed, and writes each
outcome under that claim. So a re-run, a duplicate delivery or a restarted worker never pays twice
for a pair: finished rows are never claimed again (errors only when asked to retry them).
"""

from __future__ import annotations

import asyncio
import collections
import logging
import queue
import threading
import time
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from decimal import Decimal
from typing import Any

from django.conf import settings
from django.contrib.auth.models import User
from django.db import connection, transaction
from django.db.models import F, Q
from django.utils import timezone

from judging.llm import aio, ratelimit
from judging.llm.calls import Caller, CallOutcome, CallRequest, RetryPolicy
from judging.llm.client import ProviderNotConfigured, async_client_for, provider_check, request_timeout
from judging.llm.prompt import CURRENT_VERSION, PROMPTS, citation_text, messages_for
from judging.llm.selectors import calls_in_flight, stale_after
from judging.models import (
    Campaign,
    CampaignPair,
    Judge,
    JudgeKind,
    Judgment,
    LLMJudge,
    LLMResult,
    LLMResultStatus,
    Pair,
    PrelabelJob,
    PrelabelMode,
    PrelabelStatus,
    Provider,
)

logger = logging.getLogger(__name__)

FINAL = (LLMResultStatus.LABELLED, LLMResultStatus.PARSE_ERROR)
# A job still to run or running; done, failed and cancelled jobs have ended.
JOB_OPEN = (PrelabelStatus.PENDING, PrelabelStatus.RUNNING)
BATCH_PRICE_FACTOR = Decimal("0.5")


class PrelabelError(ValueError):
    """A request an organizer can correct (unknown judge, imported label source, missing key)."""


# -- judges ---------------------------------------------------------------------------------------


@transaction.atomic
def llm_judge_create(
    *,
    name: str,
    model: str,
    provider: str = Provider.OPENAI,
    base_url: str = "",
    prompt_version: str = CURRENT_VERSION,
    temperature: float = 0.0,
    max_concurrency: int = 8,
    requests_per_minute: int | None = None,
    tokens_per_minute: int | None = None,
    price_input_per_million: Decimal | float | str = 0,
    price_output_per_million: Decimal | float | str = 0,
) -> LLMJudge:
    """A judge that can be called. An imported LLM label source of the same name gets this configuration."""
    name = name.strip()
    if not name or not model.strip():
        raise PrelabelError("an LLM judge needs a name and a model")
    if provider not in Provider.values:
        raise PrelabelError(f"unknown provider {provider!r}; one of {', '.join(Provider.values)}")
    if prompt_version not in PROMPTS:
        raise PrelabelError(f"unknown prompt version {prompt_version!r}; known: {', '.join(PROMPTS)}")
    if max_concurrency < 1:
        raise PrelabelError("maximum concurrency must be at least 1")
    judge, _ = Judge.objects.get_or_create(name=name, defaults={"kind": JudgeKind.LLM})
    if judge.kind != JudgeKind.LLM:
        raise PrelabelError(f"{name!r} is a human judge")
    if LLMJudge.objects.filter(judge=judge).exists():
        raise PrelabelError(f"the LLM judge {name!r} already exists")
    return LLMJudge.objects.create(
        judge=judge,
        provider=provider,
        base_url=base_url.strip(),
        model=model.strip(),
        prompt_version=prompt_version,
        temperature=temperature,
        max_concurrency=max_concurrency,
        requests_per_minute=requests_per_minute or None,
        tokens_per_minute=tokens_per_minute or None,
        price_input_per_million=Decimal(str(price_input_per_million)),
        price_output_per_million=Decimal(str(price_output_per_million)),
    )


def campaign_post_edit_judge_set(*, campaign: Campaign, judge: Judge) -> Campaign:
    if judge.kind != JudgeKind.LLM:
        raise PrelabelError("post-editing shows an LLM judge's labels")
    campaign.post_edit_judge = judge
    campaign.save(update_fields=["post_edit_judge"])
    return campaign


# -- jobs -----------------------------------------------------------------------------------------


def campaign_pair_ids(campaign: Campaign) -> list[int]:
    return list(
        CampaignPair.objects.filter(campaign=campaign).order_by("pair_id").values_list("pair_id", flat=True).distinct()
    )


def llm_config(judge: Judge) -> LLMJudge:
    try:
        return judge.llm
    except LLMJudge.DoesNotExist:
        raise PrelabelError(
            f"{judge.name!r} is an imported label source with no call configuration; there is nothing to call"
        ) from None


def prelabel_job_create(
    *,
    campaign: Campaign,
    judge: Judge,
    mode: str = PrelabelMode.LIVE,
    retry_errors: bool = False,
    created_by: User | None = None,
    enqueue: bool = True,
) -> PrelabelJob:
    """Record a job and, after commit, start it on a worker (in process in the embedded default)."""
    llm = llm_config(judge)
    try:
        provider_check(llm)
    except ProviderNotConfigured as error:
        raise PrelabelError(str(error)) from None
    if mode not in PrelabelMode.values:
        raise PrelabelError(f"unknown mode {mode!r}")
    pair_ids = campaign_pair_ids(campaign)
    if not pair_ids:
        raise PrelabelError(f"campaign {campaign.name!r} has no pairs yet: build it first")
    with transaction.atomic():
        job = PrelabelJob.objects.create(
            campaign=campaign,
            judge=judge,
            prompt_version=llm.prompt_version,
            mode=mode,
            retry_errors=retry_errors,
            total=len(pair_ids),
            created_by=created_by,
        )
        if enqueue:
            job_id = job.pk
            transaction.on_commit(lambda: prelabel_job_enqueue(job_id=job_id))
    return job


def prelabel_job_cancel(*, job: PrelabelJob, by: User | None = None) -> PrelabelJob:
    """Stop a job that has not ended. Its queued chunks do not start; its running chunks start no new
    call and store what the calls in flight return; the pairs left go back to be done by a later job
    (a resume is a new job: it calls only what has no result). A batch is cancelled at the provider,
    and what it finished before the cancel is still stored when it ends."""
    who = f" by {by.get_username()}" if by is not None else ""
    cancelled = PrelabelJob.objects.filter(pk=job.pk, status__in=JOB_OPEN).update(
        status=PrelabelStatus.CANCELLED, message=f"cancelled{who}", finished_at=timezone.now()
    )
    job.refresh_from_db()
    if not cancelled:
        raise PrelabelError(f"job #{job.pk} has already ended: {job.get_status_display().lower()}")
    if job.mode == PrelabelMode.BATCH and job.batch_id:
        from judging.llm import batch

        batch.batch_cancel(job=job)
    return job


def prelabel_job_resume(*, job: PrelabelJob, created_by: User | None = None) -> PrelabelJob:
    """A new job over the same campaign, judge and mode: it calls only the pairs still without a result.

    Refused while calls of the ended job are still in flight: they are paid for and will be stored, and
    the new job would otherwise find their pairs held and wait for their claims to go stale."""
    job.refresh_from_db()
    if job.status in JOB_OPEN:
        raise PrelabelError(f"job #{job.pk} is still {job.get_status_display().lower()}")
    in_flight = calls_in_flight(job)
    if in_flight:
        raise PrelabelError(
            f"{in_flight} call{'s' if in_flight != 1 else ''} of job #{job.pk} still in flight; "
            "resume once they have ended (a few seconds)"
        )
    return prelabel_job_create(
        campaign=job.campaign, judge=job.judge, mode=job.mode, retry_errors=job.retry_errors, created_by=created_by
    )


def job_cancelled(job_id: int) -> bool:
    return PrelabelJob.objects.filter(pk=job_id, status=PrelabelStatus.CANCELLED).exists()


def prelabel_job_enqueue(*, job_id: int) -> None:
    """Hand the job to the Celery workers; in the embedded default (eager, no broker) run it in a thread,
    so that the organizer's request returns at once and the page shows the progress."""
    from judging.tasks import prelabel_job_run as run_task

    if run_task.app.conf.task_always_eager and getattr(settings, "LLM_TASKS_IN_THREAD", True):
        threading.Thread(
            target=prelabel_job_execute_by_id, args=(job_id,), name=f"prelabel-{job_id}", daemon=True
        ).start()
    else:
        run_task.delay(job_id)


def prelabel_job_execute_by_id(job_id: int) -> None:
    try:
        job = PrelabelJob.objects.select_related("judge", "campaign").filter(pk=job_id).first()
        if job is not None:
            prelabel_job_execute(job=job)
    except Exception:
        logger.exception("prelabel job %s failed in its thread", job_id)
        prelabel_job_fail(job=PrelabelJob(pk=job_id), message="the job failed; see the server log")
    finally:
        connection.close()


def prelabel_retry_errors(*, job: PrelabelJob, created_by: User | None = None) -> PrelabelJob:
    """A new job over the same campaign and judge that calls again only the pairs whose call failed."""
    return prelabel_job_create(
        campaign=job.campaign, judge=job.judge, mode=job.mode, retry_errors=True, created_by=created_by
    )


def chunk_size_for(llm: LLMJudge) -> int:
    configured = getattr(settings, "LLM_CHUNK_SIZE", None)
    if configured:
        return int(configured)
    size = max(100, llm.max_concurrency * 16)
    if llm.requests_per_minute:
        # About five minutes of the budget, well inside a chunk task's time limit.
        size = min(size, max(10, llm.requests_per_minute * 5))
    return size


def pairs_to_do(*, job: PrelabelJob) -> list[int]:
    """Pairs of the campaign without a finished result for this judge and prompt version."""
    done = Q(status__in=FINAL)
    if not job.retry_errors:
        done |= Q(status=LLMResultStatus.ERROR)
    finished = set(
        LLMResult.objects.filter(
            done,
            judge=job.judge,
            prompt_version=job.prompt_version,
            pair_id__in=CampaignPair.objects.filter(campaign=job.campaign_id).values("pair_id"),
        ).values_list("pair_id", flat=True)
    )
    return [pid for pid in campaign_pair_ids(job.campaign) if pid not in finished]


def prelabel_job_run(*, job: PrelabelJob, chunk_size: int | None = None, dispatch: bool = True) -> list[list[int]]:
    """Split the job into chunks and enqueue them (or, for batch mode, submit the batch). Returns the chunks."""
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
        started_at=job.started_at or now,
        chunks=1 if job.mode == PrelabelMode.BATCH else len(chunks),
    )
    job.refresh_from_db()
    if not started:
        return []
    if not dispatch:
        return chunks
    from judging.tasks import prelabel_batch_submit, prelabel_chunk

    if job.mode == PrelabelMode.BATCH:
        prelabel_batch_submit.delay(job.pk)
    else:
        for chunk in chunks:
            prelabel_chunk.delay(job.pk, chunk)
    return chunks


def prelabel_job_fail(*, job: PrelabelJob, message: str) -> None:
    PrelabelJob.objects.filter(pk=job.pk).exclude(status=PrelabelStatus.CANCELLED).update(
        status=PrelabelStatus.FAILED, message=message[:4000], finished_at=timezone.now()
    )


def prelabel_job_refresh(*, job: PrelabelJob) -> PrelabelJob:
    """Mark a live job done once none of its pairs is left unprocessed or in flight."""
    job.refresh_from_db()
    if job.status != PrelabelStatus.RUNNING or job.mode != PrelabelMode.LIVE:
        return job
    if not pairs_unfinished(job=job):
        PrelabelJob.objects.filter(pk=job.pk, status=PrelabelStatus.RUNNING).update(
            status=PrelabelStatus.DONE, finished_at=timezone.now()
        )
        job.refresh_from_db()
    return job


def pairs_unfinished(*, job: PrelabelJob) -> int:
    settled = LLMResult.objects.filter(
        judge=job.judge,
        prompt_version=job.prompt_version,
        pair_id__in=CampaignPair.objects.filter(campaign=job.campaign).values("pair_id"),
        status__in=(*FINAL, LLMResultStatus.ERROR),
    ).count()
    if job.retry_errors:
        # Errors older than the job are still to be retried.
        settled -= LLMResult.objects.filter(
            judge=job.judge,
            prompt_version=job.prompt_version,
            pair_id__in=CampaignPair.objects.filter(campaign=job.campaign).values("pair_id"),
            status=LLMResultStatus.ERROR,
            updated_at__lt=job.created_at,
        ).count()
    return max(0, job.total - settled)


# -- claims and results ---------------------------------------------------------------------------


def results_claim(
    *, judge: Judge, prompt_version: str, pair_ids: Sequence[int], claim: uuid.UUID, retry_errors: bool = False
) -> tuple[list[int], int]:
    """Claim the pairs that nobody finished or holds; return (claimed pair ids, pairs held by a live claim)."""
    now = timezone.now()
    if connection.vendor == "postgresql":
        _results_insert_pending_postgresql(
            judge=judge, prompt_version=prompt_version, pair_ids=pair_ids, claim=claim, now=now
        )
    else:
        LLMResult.objects.bulk_create(
            [
                LLMResult(
                    judge=judge,
                    prompt_version=prompt_version,
                    pair_id=pid,
                    status=LLMResultStatus.PENDING,
                    claim=claim,
                    attempts=0,
                )
                for pid in pair_ids
            ],
            ignore_conflicts=True,
            batch_size=1000,
        )
    # Pending rows nobody holds: released by a cancelled chunk, or held by a claim gone stale.
    claimable = Q(status=LLMResultStatus.PENDING) & (Q(claim__isnull=True) | Q(updated_at__lt=now - stale_after()))
    if retry_errors:
        claimable |= Q(status=LLMResultStatus.ERROR)
    mine = LLMResult.objects.filter(judge=judge, prompt_version=prompt_version, pair_id__in=pair_ids)
    mine.filter(claimable).exclude(claim=claim).update(status=LLMResultStatus.PENDING, claim=claim, updated_at=now)
    claimed = list(mine.filter(status=LLMResultStatus.PENDING, claim=claim).values_list("pair_id", flat=True))
    held = mine.filter(status=LLMResultStatus.PENDING).exclude(claim=claim).count()
    return claimed, held


def results_release(*, judge: Judge, prompt_version: str, claim: uuid.UUID) -> int:
    """Give back the pending pairs of a claim that will not call them (its job was cancelled)."""
    return LLMResult.objects.filter(
        judge=judge, prompt_version=prompt_version, status=LLMResultStatus.PENDING, claim=claim
    ).update(claim=None, updated_at=timezone.now())


def _results_insert_pending_postgresql(
    *, judge: Judge, prompt_version: str, pair_ids: Sequence[int], claim: uuid.UUID, now: object
) -> None:
    """The pending rows of a chunk in one statement (an ORM bulk_create costs more CPU than the calls'
    own bookkeeping at high concurrency)."""
    table = LLMResult._meta.db_table
    sql = (
        f"INSERT INTO {table} (judge_id, prompt_version, pair_id, status, label, raw_output, error, latency_ms, "
        "input_tokens, output_tokens, cost, attempts, claim, created_at, updated_at) "
        "SELECT %s, %s, pair_id, %s, '', '', '', NULL, 0, 0, 0, 0, %s, %s, %s FROM unnest(%s::bigint[]) AS pair_id "
        "ON CONFLICT (judge_id, prompt_version, pair_id) DO NOTHING"
    )
    params: list[Any] = [judge.pk, prompt_version, LLMResultStatus.PENDING.value, claim, now, now, list(pair_ids)]
    with connection.cursor() as cursor:
        cursor.execute(sql, params)


def cost_of(llm: LLMJudge, *, input_tokens: int, output_tokens: int, batch: bool = False) -> Decimal:
    cost = (
        Decimal(input_tokens) * llm.price_input_per_million + Decimal(output_tokens) * llm.price_output_per_million
    ) / Decimal(1_000_000)
    if batch:
        cost *= BATCH_PRICE_FACTOR
    return cost.quantize(Decimal("0.000001"))


@transaction.atomic
def results_write(
    *, llm: LLMJudge, prompt_version: str, claim: uuid.UUID, outcomes: Iterable[CallOutcome], batch: bool = False
) -> int:
    """Store outcomes under their claim; a labelled one also becomes a Judgment of the LLM judge.

    An outcome whose claim was lost (a stale claim taken over) is dropped: the new owner writes it.
    """
    outcomes = list(outcomes)
    if not outcomes:
        return 0
    now = timezone.now()
    costs = [cost_of(llm, input_tokens=o.input_tokens, output_tokens=o.output_tokens, batch=batch) for o in outcomes]
    if connection.vendor == "postgresql":
        written = _results_update_postgresql(
            llm=llm, prompt_version=prompt_version, claim=claim, outcomes=outcomes, costs=costs, now=now
        )
    else:
        written = set()
        for outcome, cost in zip(outcomes, costs, strict=True):
            if LLMResult.objects.filter(
                judge_id=llm.judge_id,
                prompt_version=prompt_version,
                pair_id=outcome.pair_id,
                status=LLMResultStatus.PENDING,
                claim=claim,
            ).update(
                status=outcome.status,
                label=outcome.label,
                raw_output=outcome.raw_output[:20000],
                error=outcome.error,
                latency_ms=outcome.latency_ms,
                input_tokens=outcome.input_tokens,
                output_tokens=outcome.output_tokens,
                cost=cost,
                attempts=F("attempts") + outcome.attempts,
                claim=None,
                updated_at=now,
            ):
                written.add(outcome.pair_id)
    Judgment.objects.bulk_create(
        [
            Judgment(judge_id=llm.judge_id, pair_id=o.pair_id, label=o.label, condition="")
            for o in outcomes
            if o.pair_id in written and o.status == LLMResultStatus.LABELLED
        ],
        batch_size=1000,
    )
    return len(written)


def _results_update_postgresql(
    *,
    llm: LLMJudge,
    prompt_version: str,
    claim: uuid.UUID,
    outcomes: list[CallOutcome],
    costs: list[Decimal],
    now: object,
) -> set[int]:
    """One UPDATE ... FROM unnest(arrays) for all outcomes: the worker's one writing thread keeps up with
    hundreds of calls a second, where a statement per outcome would not (and ten array parameters
    cost the driver less than ten per outcome)."""
    table = LLMResult._meta.db_table
    rows = [
        (
            o.pair_id,
            o.status,
            o.label,
            o.raw_output[:20000],
            o.error,
            o.latency_ms,
            o.input_tokens,
            o.output_tokens,
            cost,
            o.attempts,
        )
        for o, cost in zip(outcomes, costs, strict=True)
    ]
    columns = zip(*rows, strict=True)
    params: list[Any] = [now, *(list(column) for column in columns)]
    params += [llm.judge_id, prompt_version, LLMResultStatus.PENDING.value, claim]
    sql = (
        f"UPDATE {table} AS r SET status = v.status, label = v.label, raw_output = v.raw_output, error = v.error, "
        "latency_ms = v.latency_ms, input_tokens = v.input_tokens, output_tokens = v.output_tokens, cost = v.cost, "
        "attempts = r.attempts + v.attempts, claim = NULL, updated_at = %s "
        "FROM unnest(%s::bigint[], %s::varchar[], %s::varchar[], %s::text[], %s::text[], %s::integer[], "
        "%s::integer[], %s::integer[], %s::numeric[], %s::integer[]) "
        "AS v(pair_id, status, label, raw_output, error, latency_ms, input_tokens, output_tokens, cost, attempts) "
        "WHERE r.pair_id = v.pair_id AND r.judge_id = %s AND r.prompt_version = %s AND r.status = %s AND r.claim = %s "
        "RETURNING r.pair_id"
    )
    with connection.cursor() as cursor:
        cursor.execute(sql, params)
        return {pair_id for (pair_id,) in cursor.fetchall()}


def call_requests(*, prompt_version: str, pair_ids: Sequence[int]) -> list[CallRequest]:
    requests = []
    for pair in Pair.objects.filter(pk__in=pair_ids).select_related("passage").order_by("pk"):
        messages = messages_for(version=prompt_version, statement=pair.text, citation=citation_text(pair.passage))
        # About four characters a token, plus room for the short reply: what the TPM budget is charged.
        estimated = sum(len(m["content"]) for m in messages) // 4 + 16
        requests.append(CallRequest(pair_id=pair.pk, messages=messages, estimated_tokens=estimated))
    return requests


def retry_policy() -> RetryPolicy:
    return RetryPolicy(
        max_attempts=int(getattr(settings, "LLM_MAX_ATTEMPTS", 5)),
        backoff_base=float(getattr(settings, "LLM_BACKOFF_BASE_SECONDS", 1.0)),
        backoff_cap=float(getattr(settings, "LLM_BACKOFF_CAP_SECONDS", 60.0)),
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


async def _caller_build(llm: LLMJudge, *, key: str, stop: threading.Event) -> Caller:
    return Caller(
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
    )


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
    claimed, held = results_claim(
        judge=job.judge,
        prompt_version=job.prompt_version,
        pair_ids=pair_ids,
        claim=claim,
        retry_errors=job.retry_errors,
    )
    summary = ChunkSummary(claimed=len(claimed), held_elsewhere=held)
    if not claimed:
        prelabel_job_refresh(job=job)
        return summary
    stop = threading.Event()
    done: queue.SimpleQueue[CallOutcome | None] = queue.SimpleQueue()
    all_done = threading.Event()
    remaining = [len(claimed)]
    counter = threading.Lock()

    def finish(outcome: CallOutcome | None) -> None:
        """Each claimed pair ends here exactly once: an outcome, or None for a pair left pending."""
        done.put(outcome)
        with counter:
            remaining[0] -= 1
            if not remaining[0]:
                all_done.set()

    buffer: list[CallOutcome] = []
    received = 0
    try:
        caller = aio.submit(_caller_build(llm, key=job.judge.name, stop=stop)).result()
        # The first calls start while the rest of the prompts are built.
        head = max(2 * llm.max_concurrency, 20)
        parts = (claimed[:head], claimed[head:])
        dispatch = _Dispatch(caller, max(1, llm.max_concurrency), finish, parts=len(parts))
        for part in parts:
            built = call_requests(prompt_version=job.prompt_version, pair_ids=part) if part else []
            for _ in range(len(part) - len(built)):
                finish(None)  # a pair deleted meanwhile
            aio.submit(dispatch.add(built))
        while received < len(claimed):
            # Wake once a second (or when all is done) and write everything that arrived, rather than once per
            # outcome: fewer, larger statements, and this thread competes for the interpreter with the loop.
            all_done.wait(flush_every)
            if not stop.is_set() and job_cancelled(job.pk):
                stop.set()  # no new call starts; the calls in flight end and are written below
            while True:
                try:
                    item = done.get_nowait()
                except queue.Empty:
                    break
                received += 1
                if item is not None:
                    buffer.append(item)
            if buffer:
                summary.written += results_write(
                    llm=llm, prompt_version=job.prompt_version, claim=claim, outcomes=buffer
                )
                buffer = []
        # Every claimed pair has ended here; those left pending (stopped) are free for a later job at once.
        results_release(judge=job.judge, prompt_version=job.prompt_version, claim=claim)
    finally:
        stop.set()
        if buffer:
            summary.written += results_write(llm=llm, prompt_version=job.prompt_version, claim=claim, outcomes=buffer)
    prelabel_job_refresh(job=job)
    return summary


def prelabel_job_execute(*, job: PrelabelJob, poll_seconds: float | None = None) -> PrelabelJob:
    """Run a whole job in this process (the CLI without a broker, the benchmark): no Celery involved."""
    from judging.llm import batch

    try:
        chunks = prelabel_job_run(job=job, dispatch=False)
        if job.mode == PrelabelMode.BATCH and chunks:
            if batch.batch_submit(job=job, pair_ids=[pid for chunk in chunks for pid in chunk]):
                interval = (
                    poll_seconds if poll_seconds is not None else float(getattr(settings, "LLM_BATCH_POLL_SECONDS", 30))
                )
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
