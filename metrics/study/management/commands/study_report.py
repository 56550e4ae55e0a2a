"""python manage.py study_report STUDY [--format json|csv]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.study import report
from metrics.study.selectors import study_get, study_table


class Command(BaseCommand):
    help = "The disagreement study's report: κ between every pair of judges, distributions (JSON), or the pairs (CSV)."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("study", type=int, help="study id")
        parser.add_argument("--format", choices=["json", "csv"], default="json")

    def handle(self, *args: Any, **options: Any) -> None:
        study = study_get(study_id=options["study"])
        if study is None:
            raise CommandError(f"no study #{options['study']}")
        table = study_table(study=study)
        if options["format"] == "csv":
            self.stdout.write(report.study_csv(table), ending="")
        else:
            self.stdout.write(json.dumps(report.study_report(table), indent=2))
