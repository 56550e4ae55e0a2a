"""python manage.py study_prelabel STUDY --judge NAME: a second LLM judge on the study's sampled pairs only."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.llm.selectors import prelabel_progress
from judging.models import Judge
from metrics.study import services as study_services
from metrics.study.models import Study


class Command(BaseCommand):
    help = "Run a second LLM judge (same prompt, any provider) on a study's sampled pairs only, in this process."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int, help="study id")
        parser.add_argument("--judge", required=True, help="LLM judge name (create one with llm_judge_create)")

    def handle(self, *args: Any, **options: Any) -> None:
        study = Study.objects.select_related("campaign").filter(pk=options["study"]).first()
        if study is None:
            raise CommandError(f"no study #{options['study']}")
        judge = Judge.objects.filter(name=options["judge"]).first()
        if judge is None:
            raise CommandError(f"no judge {options['judge']!r}; create one with llm_judge_create")
        try:
            job = study_services.study_second_judge_job(study=study, judge=judge)
        except study_services.StudyError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"prelabel job #{job.pk}: {job.total} sampled pairs of study #{study.pk} with {judge.name}")
        job = study_services.study_second_judge_run(study=study, job=job)
        progress = prelabel_progress(job)
        self.stdout.write(
            f"{job.status}: {progress.labelled} labelled, {progress.parse_errors} parse errors, "
            f"{progress.errors} errors, cost {progress.cost:.4f}"
        )
        if job.status == "failed":
            raise CommandError(job.message or "the job failed")
