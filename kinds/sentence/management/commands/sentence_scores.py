from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import SPEC_HELP, LabelSetError
from kinds.sentence.report import sentence_scores_csv, sentence_scores_report, sentence_scores_table
from kinds.sentence.selectors import sentence_label_set_get


class Command(BaseCommand):
    help = (
        "Sentence support scores per run for one label set (unit: sentence): combined_judged, combined_full, "
        "combined_partial_or_full, needs_citation_uncited, with topic-bootstrap intervals. "
        "`support_scores --kind sentence` runs this."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--labels", "--judge", dest="labels", required=True, help=SPEC_HELP)
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
        parser.add_argument("--seed", type=int, default=20241025)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            label_set = sentence_label_set_get(options["labels"])
        except LabelSetError as exc:
            raise CommandError(str(exc)) from None
        report = sentence_scores_report(label_set, resamples=options["resamples"], seed=options["seed"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
        elif options["format"] == "csv":
            sentence_scores_csv(self.stdout, report, intervals=options["resamples"] > 0)
        else:
            sentence_scores_table(self.stdout, report)
