from __future__ import annotations

from typing import Any, TextIO, cast

from django.core.management.base import BaseCommand, CommandError

from assess import demo as assess_demo
from assess.data import DataDirError, data_dir
from judging import demo as judging_demo
from metrics import demo as metrics_demo
from metrics.study import demo as study_demo


class Command(BaseCommand):
    help = "Load the demo set (real TREC 2024 RAG files) and the demo accounts (organizer, assessors)."

    def handle(self, *args: Any, **options: Any) -> None:
        out = cast(TextIO, self.stdout)  # the demos only write lines to it
        try:
            data_dir()
        except DataDirError as error:
            raise CommandError(str(error)) from None
        # Each part builds on the one before: material and accounts, the campaign, the labels, the study.
        assess_demo.load(out)
        judging_demo.load(out)
        metrics_demo.load(out)
        study_demo.load(out)
        self.stdout.write(self.style.SUCCESS("demo ready"))
        accounts = [
            ("organizer", assess_demo.ORGANIZER),
            ("from scratch", assess_demo.ASSESSOR),
            ("post-edit", assess_demo.EDITOR),
            ("adjudication", assess_demo.ADJUDICATOR),
        ]
        for role, (username, password) in accounts:
            self.stdout.write(f"  {role + ':':14}{username} / {password}")
