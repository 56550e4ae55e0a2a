"""Starting a study's second judge, as an organizer asks (page, API): record its job, then run it on a worker."""

from __future__ import annotations

from django.contrib.auth.models import User

from core.background import run_in_background
from judging.llm.models import PrelabelJob
from judging.models import Judge
from metrics.study.models import Study
from metrics.study.services import study_second_judge_job
from metrics.study.tasks import study_second_judge


def study_second_judge_start(*, study: Study, judge: Judge, created_by: User | None = None) -> PrelabelJob:
    """Record the job and, once committed, run it on a Celery worker (in a thread of this process only in the
    embedded default: `core.background`); its progress is the pre-label job page's."""
    job = study_second_judge_job(study=study, judge=judge, created_by=created_by)
    run_in_background(study_second_judge, study.pk, job.pk)
    return job
