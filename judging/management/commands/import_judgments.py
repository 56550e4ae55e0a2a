from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from assess.management.base import run_import
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.models import Condition, JudgeKind


class Command(BaseCommand):
    help = (
        "Import support labels as judgments: NIST's support-judgment JSONL (--format nist; the answers it names "
        "are created when not loaded) or the judgments exchange file, CSV or JSONL (--format exchange). "
        "All or nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("files", nargs="+")
        parser.add_argument("--format", choices=[JudgmentFormat.NIST, JudgmentFormat.EXCHANGE], required=True)
        parser.add_argument("--judge", help="the judge of every label (required for nist; else the `judge` column)")
        parser.add_argument(
            "--kind", choices=JudgeKind.values, help="kind of a judge the import creates (default human)"
        )
        parser.add_argument("--condition", choices=Condition.values)
        parser.add_argument("--label-field", default="label", help="exchange: the column holding the label")
        parser.add_argument("--topics", help="import only labels for these topic ids (comma-separated)")

    def handle(self, *args: Any, **options: Any) -> None:
        topics = frozenset(t.strip() for t in options["topics"].split(",") if t.strip()) if options["topics"] else None
        run_import(
            self,
            judgments_import,
            files=options["files"],
            fmt=options["format"],
            options=JudgmentImportOptions(
                judge=options["judge"],
                kind=options["kind"],
                condition=options["condition"],
                label_field=options["label_field"],
                topics=topics,
            ),
            verbosity=options["verbosity"],
        )
