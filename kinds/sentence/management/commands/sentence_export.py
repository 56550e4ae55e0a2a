from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import SPEC_HELP, LabelSetError
from kinds.sentence.exchange import nist_write, webassess_rows
from kinds.sentence.selectors import sentence_label_set_get


class Command(BaseCommand):
    help = (
        "A sentence label set as NIST's Webassess JSONL (verification_worthy, citationsCombibed, citations with "
        'support "-1"), one line per (topic, run); to a file, or to standard output with "-".'
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("out", help='the file to write, or "-"')
        parser.add_argument("--labels", required=True, help=SPEC_HELP)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            label_set = sentence_label_set_get(options["labels"])
        except LabelSetError as exc:
            raise CommandError(str(exc)) from None
        if options["out"] == "-":
            count = nist_write(self.stdout, webassess_rows(label_set))
        else:
            with open(options["out"], "w", encoding="utf-8") as f:
                count = nist_write(f, webassess_rows(label_set))
        self.stderr.write(f"{count} answers written ({label_set.spec}, unit sentence)")
