from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.exports import ExportFormat, judgments_export
from metrics.management.commands._common import LABEL_SET_HELP, add_scope_arguments, label_set_from, scope_from
from metrics.selectors import EVERY_CITATION


class Command(BaseCommand):
    help = (
        "Export labels: the exchange file (csv or jsonl: each label set's label of each citation, with the set "
        "named in each row) or NIST-style JSONL (one label set). OUT `-` writes to standard output. Importing "
        "the file back gives the same scores."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out")
        parser.add_argument("--format", choices=ExportFormat.CHOICES, default=ExportFormat.CSV)
        parser.add_argument(
            "--labels",
            "--judge",
            dest="labels",
            action="append",
            help=LABEL_SET_HELP + " (repeatable; default: every one-judge set)",
        )
        add_scope_arguments(parser, depth_default="every citation")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["depth"] is None:
            options["depth"] = EVERY_CITATION
        scope = scope_from(options)
        sets = [label_set_from(spec) for spec in options["labels"] or []]
        try:
            if options["out"] == "-":
                n = judgments_export(sys.stdout, fmt=options["format"], scope=scope, label_sets=sets)
            else:
                with open(options["out"], "w", encoding="utf-8", newline="") as out:
                    n = judgments_export(out, fmt=options["format"], scope=scope, label_sets=sets)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"wrote {n} {'answers' if options['format'] == ExportFormat.NIST else 'rows'}")
