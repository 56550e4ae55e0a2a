"""Starting and stopping pre-label jobs, as an organizer asks (page, API, command): create one and hand it to
the workers after commit, cancel one, resume one, or retry the calls of one that failed."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from django.db import transaction
from django.utils import timezone

from core.background import run_in_background
from judging.kinds import kind_of
from judging.llm import batch, tasks
from judging.llm.client import ProviderNotConfigured, provider_check
from judging.llm.meter import meter_clear
from judging.llm.models import PrelabelJob, PrelabelMode, PrelabelStatus
from judging.llm.selectors import kind_prelabel, pairs_held, pairs_to_call, retryable_errors
from judging.llm.services import JOB_OPEN, PrelabelError, campaign_pair_ids, llm_config
from judging.models import Campaign, Judge


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
    prelabel = kind_prelabel(campaign)  # None: support's pairs; else the campaign's kind's units
    if prelabel is None and not campaign_pair_ids(campaign):
        raise PrelabelError(f"campaign {campaign.name!r} has no pairs yet: build it first")
    if prelabel is not None:
        _kind_job_check(campaign, prelabel, mode)
    # Its total is what it will call: none when every pair has a result (the job then ends at once).
    pair_ids = pairs_to_call(campaign=campaign, judge=judge, retry_errors=retry_errors)
    now = timezone.now()
    with transaction.atomic():
        job = PrelabelJob.objects.create(
            campaign=campaign,
            judge=judge,
            prompt_version=llm.prompt_version if prelabel is None else prelabel.version,
            mode=mode,
            retry_errors=retry_errors,
            total=len(pair_ids),
            created_by=created_by,
            # Nothing to call: done at once, with nothing for a worker to do.
            **({"status": PrelabelStatus.DONE, "started_at": now, "finished_at": now} if not pair_ids else {}),
        )
        meter_clear(job.pk)
        if enqueue and pair_ids:
            prelabel_job_enqueue(job_id=job.pk)
    return job


def _kind_job_check(campaign: Campaign, prelabel: Any, mode: str) -> None:
    if mode == PrelabelMode.BATCH:
        raise PrelabelError("the Batch API pre-labels support campaigns only: run this kind's job live")
    if not prelabel.units(campaign):
        unit = kind_of(campaign).unit
        raise PrelabelError(f"campaign {campaign.name!r} has no {unit}s yet: build it first")


def nothing_to_call_message(*, campaign: Campaign, judge: Judge, retry_errors: bool) -> str:
    """Why a job has no pair to call, for the organizer."""
    if retry_errors:
        return f"no pair of {campaign.name!r} has an error from {judge.name}: nothing to retry"
    errors = retryable_errors(campaign=campaign, judge=judge)
    retry = f"; {errors} ended in an error: retry them" if errors else ""
    return f"every pair of {campaign.name!r} already has a result from {judge.name}{retry}"


def prelabel_job_enqueue(*, job_id: int) -> None:
    """Once committed, hand the job to the Celery workers (in a thread of this process only in the embedded
    default): `core.background` decides."""
    run_in_background(tasks.prelabel_job_run, job_id)


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
        batch.batch_cancel(job=job)
    return job


def prelabel_job_resume(*, job: PrelabelJob, created_by: User | None = None) -> PrelabelJob:
    """A new job over the same campaign, judge and mode: it calls only the pairs still without a result.

    Refused while calls of the ended job are still in flight: they are paid for and will be stored, and
    the new job would otherwise find their pairs held and wait for their claims to go stale."""
    job.refresh_from_db()
    if job.status in JOB_OPEN:
        raise PrelabelError(f"job #{job.pk} is still {job.get_status_display().lower()}")
    held = pairs_held(job)
    if held:
        raise PrelabelError(
            f"job #{job.pk} still holds {held} pair{'s' if held != 1 else ''} while its last calls finish; "
            "resume once they have ended (a few seconds)"
        )
    return prelabel_job_create(
        campaign=job.campaign, judge=job.judge, mode=job.mode, retry_errors=job.retry_errors, created_by=created_by
    )


def prelabel_retry_errors(*, job: PrelabelJob, created_by: User | None = None) -> PrelabelJob:
    """A new job over the same campaign and judge that calls again only the pairs whose call failed."""
    return prelabel_job_create(
        campaign=job.campaign, judge=job.judge, mode=job.mode, retry_errors=True, created_by=created_by
    )
