"""Celery tasks for the disagreement study: thin, idempotent, acknowledged late, retried on transient errors."""

from __future__ import annotations

from celery import shared_task

from judging.llm.models import PrelabelJob
from judging.llm.services import JOB_OPEN, prelabel_job_fail
from judging.llm.tasks import TRANSIENT
from metrics.study.models import Study
from metrics.study.services import study_second_judge_run


@shared_task(
    autoretry_for=TRANSIENT,
    acks_late=True,
    reject_on_worker_lost=True,
    retry_backoff=True,
    retry_jitter=True,
    max_retries=5,
    soft_time_limit=3 * 3600,
    time_limit=3 * 3600 + 120,
)
def study_second_judge(study_id: int, job_id: int) -> str:
    """Run the study's second judge on its sampled pairs. Delivered again after a worker died, it calls only
    the pairs without a result (the claims of the dead worker's calls are taken over once stale)."""
    study = Study.objects.filter(pk=study_id).first()
    job = PrelabelJob.objects.select_related("judge", "campaign").filter(pk=job_id).first()
    if study is None or job is None or job.status not in JOB_OPEN:
        return ""
    try:
        return study_second_judge_run(study=study, job=job).status
    except TRANSIENT:
        raise
    except Exception:
        prelabel_job_fail(job=job, message="the job failed; see the worker's log")
        raise
