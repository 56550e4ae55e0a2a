from __future__ import annotations

import os
import sys
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import LabelSetError
from kinds.relevance.exchange import label_set_qrels_write
from kinds.relevance.selectors import LABEL_SET_HELP


class Command(BaseCommand):
    help = (
        "Export a relevance label set as trec_eval qrels `topic_id ITER passage_id grade` (sorted, no header): an "
        "imported source keeps its file's second column. OUT `-` writes to standard output; a failed export "
        "leaves no file."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out")
        parser.add_argument("--labels", required=True, help=LABEL_SET_HELP)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            if options["out"] == "-":
                n = label_set_qrels_write(sys.stdout, options["labels"])
            else:
                partial = f"{options['out']}.partial"
                try:
                    with open(partial, "w", encoding="utf-8", newline="") as out:
                        n = label_set_qrels_write(out, options["labels"])
                    os.replace(partial, options["out"])
                finally:
                    if os.path.exists(partial):
                        os.remove(partial)
        except (LabelSetError, ValueError) as exc:
            raise CommandError(str(exc)) from exc
        self.stderr.write(f"wrote {n} qrels lines")
