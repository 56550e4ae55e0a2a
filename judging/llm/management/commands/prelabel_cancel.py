"""python manage.py prelabel_cancel JOB"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.llm import jobs, services
from judging.llm.models import PrelabelJob


class Command(BaseCommand):
    help = (
        "Cancel a pre-label job: no new call starts, the calls in flight finish and are kept, and the pairs "
        "left are done by a later job (`prelabel` again calls only the pairs without a result)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("job", type=int, help="the job's number (#N on the pre-label page)")

    def handle(self, *args: Any, **options: Any) -> None:
        job = PrelabelJob.objects.select_related("judge", "campaign").filter(pk=options["job"]).first()
        if job is None:
            raise CommandError(f"no pre-label job #{options['job']}")
        try:
            job = jobs.prelabel_job_cancel(job=job)
        except services.PrelabelError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(f"job #{job.pk} cancelled ({job.campaign.name} with {job.judge.name})")
