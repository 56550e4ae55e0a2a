"""Celery tasks for LLM pre-labelling: thin, idempotent, acknowledged late, retried on transient errors.

A job's task splits it (`chunks.prelabel_job_start`) and enqueues a task per chunk, or one batch submit;
`jobs` enqueues the job's task once the job is committed."""

from __future__ import annotations

import time
from typing import Any

import openai
import redis.exceptions
from celery import current_app, shared_task
from celery.exceptions import SoftTimeLimitExceeded
from django.db import InterfaceError, OperationalError

from judging.llm import batch, chunks, services
from judging.llm.models import PrelabelJob, PrelabelMode, PrelabelStatus
from judging.llm.selectors import stale_after

# Infrastructure hiccups worth another try; the judge's own transient errors are retried per call.
TRANSIENT = (OperationalError, InterfaceError, redis.exceptions.ConnectionError, redis.exceptions.TimeoutError)
BATCH_TRANSIENT = (*TRANSIENT, openai.APIConnectionError, openai.RateLimitError, openai.InternalServerError)


def _job(job_id: int) -> PrelabelJob | None:
    return PrelabelJob.objects.select_related("judge", "campaign").filter(pk=job_id).first()


@shared_task(
    autoretry_for=TRANSIENT,
    soft_time_limit=300,
    time_limit=360,
    acks_late=True,
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
)
def prelabel_job_run(job_id: int) -> int:
    job = _job(job_id)
    if job is None:
        return 0
    try:
        return len(prelabel_job_dispatch(job=job))
    except services.PrelabelError as error:
        services.prelabel_job_fail(job=job, message=str(error))
        return 0
    except TRANSIENT:
        raise
    except Exception:
        # Not worth a retry: say so on the job rather than leave it running.
        services.prelabel_job_fail(job=job, message="the job failed; see the worker's log")
        raise


def prelabel_job_dispatch(*, job: PrelabelJob, chunk_size: int | None = None) -> list[list[int]]:
    """Start the job and enqueue its chunks (or, for batch mode, the submit of its batch). Returns the chunks."""
    pieces = chunks.prelabel_job_start(job=job, chunk_size=chunk_size)
    if not pieces:
        return []
    if job.mode == PrelabelMode.BATCH:
        prelabel_batch_submit.delay(job.pk)
    else:
        for chunk in pieces:
            prelabel_chunk.delay(job.pk, chunk)
    return pieces


@shared_task(
    autoretry_for=TRANSIENT,
    soft_time_limit=1800,
    time_limit=1900,
    acks_late=True,
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
)
def prelabel_chunk(job_id: int, pair_ids: list[int], round: int = 0) -> int:
    job = _job(job_id)
    if job is None or job.status != PrelabelStatus.RUNNING:
        return 0
    try:
        summary = chunks.prelabel_chunk_run(job=job, pair_ids=pair_ids)
    except SoftTimeLimitExceeded:
        # What was written stays; the pairs still in flight are taken over once their claim is stale.
        prelabel_chunk.apply_async((job_id, pair_ids, round + 1), countdown=stale_after().total_seconds() + 5)
        return 0
    if summary.held_elsewhere and round < 3 and not current_app.conf.task_always_eager:
        # Another execution holds some pairs (a duplicate delivery, or a worker that died): look again
        # once its claim would be stale, so that a dead worker's pairs are not left pending.
        countdown = stale_after().total_seconds() + 5
        prelabel_chunk.apply_async((job_id, pair_ids, round + 1), countdown=countdown)
    return summary.written


# The Batch API tasks: a submit or a poll is short, and its failures (network, 5xx) are worth a few retries.
BATCH_TASK_OPTIONS: dict[str, Any] = {
    "autoretry_for": BATCH_TRANSIENT,
    "soft_time_limit": 600,
    "time_limit": 660,
    "acks_late": True,
    "retry_backoff": True,
    "retry_jitter": True,
    "max_retries": 5,
}


@shared_task(**BATCH_TASK_OPTIONS)
def prelabel_batch_submit(job_id: int) -> str:
    job = _job(job_id)
    if job is None or job.status != PrelabelStatus.RUNNING:
        return ""
    batch_id = batch.batch_submit(job=job, pair_ids=chunks.pairs_to_do(job=job))
    if batch_id:
        prelabel_batch_poll.apply_async((job_id,), countdown=batch.poll_interval())
    return batch_id


@shared_task(**BATCH_TASK_OPTIONS)
def prelabel_batch_poll(job_id: int) -> bool:
    job = _job(job_id)
    if job is None or not batch.polling(job):
        return True
    if current_app.conf.task_always_eager:
        # In process there is no later delivery to wait for: poll here until the batch ends.
        while not batch.batch_poll(job=job):
            time.sleep(batch.poll_interval())
        return True
    if not batch.batch_poll(job=job):
        prelabel_batch_poll.apply_async((job_id,), countdown=batch.poll_interval())
        return False
    return True
