from __future__ import annotations

import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from core.writable import Writable
from judging.exchange.export import ExportFormat, judgments_export
from judging.exchange.qrels import QRELS_LEVEL_HELP, QrelsLevel
from judging.exchange.selectors import NistKeyChoice
from judging.management.arguments import LABEL_SET_HELP, add_scope_arguments, label_set_from, scope_from
from judging.scope import EVERY_CITATION


class Command(BaseCommand):
    help = (
        "Export labels: the exchange file (csv or jsonl: each label set's label of each citation, with the set "
        "named in each row), NIST-style JSONL (one label set) or trec_eval qrels `qid 0 docid grade` (one label "
        "set, no header; see --qrels-level). OUT `-` writes to standard output; a failed export leaves no file. "
        "Importing the exchange or NIST file back gives the same scores."
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
        parser.add_argument(
            "--qrels-level", choices=QrelsLevel.CHOICES, default=QrelsLevel.SENTENCE, help=QRELS_LEVEL_HELP
        )
        parser.add_argument(
            "--nist-keys",
            choices=NistKeyChoice.CHOICES,
            default=NistKeyChoice.SOURCE,
            help="nist: the key spelling; `source` (default) writes each answer as the NIST file its labels came "
            "from (sentenceId/citationId elsewhere); sentenceId = the Webassess file's (citationId indexes the "
            "references); sentenceID = the 2024-10-25 files' (citationID is the citation's position)",
        )
        add_scope_arguments(parser, depth_default="every citation")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["depth"] is None:
            options["depth"] = EVERY_CITATION
        scope = scope_from(options)
        sets = [label_set_from(spec) for spec in options["labels"] or []]

        def export(out: Writable) -> int:
            return judgments_export(
                out,
                fmt=options["format"],
                scope=scope,
                label_sets=sets,
                qrels_level=options["qrels_level"],
                nist_keys=options["nist_keys"],
            )

        try:
            if options["out"] == "-":
                n = export(sys.stdout)
            else:
                # Written beside OUT and moved into place when complete: a failed export leaves no file.
                partial = f"{options['out']}.partial"
                try:
                    with open(partial, "w", encoding="utf-8", newline="") as out:
                        n = export(out)
                    os.replace(partial, options["out"])
                finally:
                    if os.path.exists(partial):
                        os.remove(partial)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        unit = {ExportFormat.NIST: "answers", ExportFormat.QRELS: "qrels lines"}.get(options["format"], "rows")
        self.stderr.write(f"wrote {n} {unit}")
