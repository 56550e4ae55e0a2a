from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assess.importers.report import ImportRejected
from assess.management.base import run_import
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import, run_map_load
from judging.models import Condition, JudgeKind


class Command(BaseCommand):
    help = (
        "Import support labels as judgments: NIST's support-judgment JSONL (--format nist; the answers it names "
        "are created when not loaded) or the judgments exchange file, CSV or JSONL (--format exchange). "
        "All or nothing. NIST labels are placed on the citation of their sentence that cites their passage; "
        "a label that cannot be placed refuses the import (listed with file, line and reason) unless "
        "--skip-unplaced is given."
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
        parser.add_argument(
            "--run-map",
            help="a two-column file: the labels file's run id, the loaded run id it stands for (docs/formats.md); "
            "NIST answers of a mapped run are not created, its labels go onto the loaded run's answers",
        )
        parser.add_argument(
            "--skip-unplaced",
            action="store_true",
            help="import the labels that can be placed and list the others as warnings (default: refuse)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        run_map = None
        if options["run_map"]:
            try:
                run_map = run_map_load(options["run_map"])
            except ImportRejected as exc:
                raise CommandError("\n".join(f"error: {e}" for e in exc.report.errors)) from exc
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
                run_map=run_map,
                skip_unplaced=options["skip_unplaced"],
            ),
            verbosity=options["verbosity"],
        )
