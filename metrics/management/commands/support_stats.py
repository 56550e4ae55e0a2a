from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from judging.management.arguments import add_scope_arguments, scope_from
from metrics.selectors import support_stats


class Command(BaseCommand):
    help = (
        "Descriptive statistics per label set (the paper's Table 3): topics, labelled citations (the labels the "
        "scores use), not judged, ties, distinct pairs, FS/PS/NS."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        add_scope_arguments(parser)
        parser.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = support_stats(scope_from(options))
        if options["format"] == "json":
            self.stdout.write(json.dumps(rows, indent=2))
            return
        depth = scope_from(options).depth
        self.stdout.write(
            f"unit: {'every citation' if depth is None else f'the first {depth} citation(s) of each sentence'}"
        )
        self.stdout.write(
            f"{'label set':<36} {'kind':<6} {'topics':>6} {'judged':>7} {'not jd':>6} {'ties':>5} {'unlabelled':>10} "
            f"{'pairs':>7} {'FS':>6} {'PS':>6} {'NS':>6}"
        )
        for r in rows:
            self.stdout.write(
                f"{r['label_set'][:36]:<36} {r['kind']:<6} {r['topics']:>6} {r['judged']:>7} {r['not_judged']:>6} "
                f"{r['ties']:>5} {r['unlabelled']:>10} {r['distinct_pairs']:>7} {r['FS']:>6} {r['PS']:>6} {r['NS']:>6}"
            )
