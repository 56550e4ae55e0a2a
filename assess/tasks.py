"""Celery tasks for the material: thin wrappers that take ids and call a service."""

from __future__ import annotations

from celery import shared_task
from django.db import InterfaceError, OperationalError

from assess.importers.job_run import import_job_execute


@shared_task(
    acks_late=True,
    reject_on_worker_lost=True,
    autoretry_for=(OperationalError, InterfaceError),
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 120,
)
def import_job_run(job_id: int) -> str | None:
    """Import an uploaded job's files; a job that has finished or is gone is left alone."""
    job = import_job_execute(job_id=job_id)
    return job.status if job is not None else None
