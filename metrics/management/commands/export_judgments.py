from __future__ import annotations

import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.exports import ExportFormat, judgments_export
from metrics.management.commands._common import add_scope_arguments, scope_from
from metrics.selectors import EVERY_CITATION, UnknownJudge


class Command(BaseCommand):
    help = (
        "Export judgments: the exchange file (csv or jsonl: each judge's label of each citation) or NIST-style "
        "JSONL (one judge). OUT `-` writes to standard output. Importing the file back gives the same scores."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out")
        parser.add_argument("--format", choices=ExportFormat.CHOICES, default=ExportFormat.CSV)
        parser.add_argument("--judge", action="append", help="a judge to export (repeatable; default: all)")
        add_scope_arguments(parser, depth_default="every citation")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["depth"] is None:
            options["depth"] = EVERY_CITATION
        scope = scope_from(options)
        try:
            if options["out"] == "-":
                n = judgments_export(sys.stdout, fmt=options["format"], scope=scope, judges=options["judge"])
            else:
                with open(options["out"], "w", encoding="utf-8", newline="") as out:
                    n = judgments_export(out, fmt=options["format"], scope=scope, judges=options["judge"])
        except (ValueError, UnknownJudge) as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"wrote {n} {'answers' if options['format'] == ExportFormat.NIST else 'rows'}")
