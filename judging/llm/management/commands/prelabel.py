"""python manage.py prelabel CAMPAIGN --judge NAME [--wait] [--batch] [--retry-errors]

Ctrl-C while it waits: with Celery workers it stops watching (the job goes on; `prelabel_cancel JOB`
cancels it); without a broker, where this process runs the job, it cancels the job.
"""

from __future__ import annotations

import threading
import time
from typing import Any

from celery import current_app
from django.core.management.base import BaseCommand, CommandError, CommandParser
from tqdm import tqdm

from judging.llm import chunks, jobs, services
from judging.llm.models import PrelabelJob, PrelabelMode
from judging.llm.selectors import prelabel_progress
from judging.models import Campaign, Judge


class Command(BaseCommand):
    help = "Pre-label a campaign's pairs with an LLM judge (on the Celery workers, or in process without a broker)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign name (or id)")
        parser.add_argument("--judge", required=True, help="LLM judge name")
        parser.add_argument("--wait", action="store_true", help="show a progress bar until the job ends")
        parser.add_argument("--batch", action="store_true", help="use the OpenAI Batch API (half the price)")
        parser.add_argument("--retry-errors", action="store_true", help="call again the pairs whose call failed")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None and options["campaign"].isdigit():
            campaign = Campaign.objects.filter(pk=int(options["campaign"])).first()
        if campaign is None:
            raise CommandError(f"no campaign {options['campaign']!r}")
        judge = Judge.objects.filter(name=options["judge"]).first()
        if judge is None:
            raise CommandError(f"no judge {options['judge']!r}; create one with llm_judge_create")
        in_process = bool(current_app.conf.task_always_eager)
        try:
            job = jobs.prelabel_job_create(
                campaign=campaign,
                judge=judge,
                mode=PrelabelMode.BATCH if options["batch"] else PrelabelMode.LIVE,
                retry_errors=options["retry_errors"],
                enqueue=not in_process,
            )
        except services.PrelabelError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"prelabel job #{job.pk}: {job.total} pairs of {campaign.name} with {judge.name}")
        worker: threading.Thread | None = None
        if in_process:
            worker = threading.Thread(target=chunks.prelabel_job_execute_by_id, args=(job.pk,), daemon=True)
            worker.start()
        if options["wait"] or in_process:
            try:
                self._watch(job, show_bar=options["wait"] and options["verbosity"] > 0)
            except KeyboardInterrupt:
                if worker is None:
                    self.stdout.write(
                        f"\nstopped watching; job #{job.pk} goes on on the workers "
                        f"(`python manage.py prelabel_cancel {job.pk}` cancels it)"
                    )
                    return
                # This process runs the job: Ctrl-C cancels it, and the calls in flight are still stored.
                self.stdout.write(f"\ncancelling job #{job.pk}; the calls in flight finish and are kept")
                jobs.prelabel_job_cancel(job=job)
        if worker is not None:
            worker.join()
        job.refresh_from_db()
        progress = prelabel_progress(job)
        self.stdout.write(
            f"{job.status}: {progress.labelled} labelled, {progress.parse_errors} parse errors, "
            f"{progress.errors} errors, {progress.remaining} remaining, cost {progress.cost:.4f}"
            + (f" ({job.message})" if job.message else "")
        )
        if job.status == "failed":
            raise CommandError(job.message or "the job failed")

    def _watch(self, job: PrelabelJob, *, show_bar: bool) -> None:
        bar = tqdm(total=job.total, unit="pair", desc=f"prelabel #{job.pk}", disable=not show_bar)
        try:
            while True:
                job.refresh_from_db()
                progress = prelabel_progress(job)
                bar.n = progress.done
                bar.set_postfix(
                    errors=progress.errors, per_min=f"{progress.calls_per_minute:.0f}", cost=f"{progress.cost:.4f}"
                )
                if progress.finished:
                    break
                time.sleep(0.5)
        finally:
            bar.close()
