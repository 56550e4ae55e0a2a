from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandParser

from metrics.management.commands._common import add_scope_arguments, scope_from
from metrics.selectors import support_stats


class Command(BaseCommand):
    help = "Descriptive statistics per judge and condition (the paper's Table 3): topics, judged pairs, FS/PS/NS."

    def add_arguments(self, parser: CommandParser) -> None:
        add_scope_arguments(parser)
        parser.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        rows = support_stats(scope_from(options))
        if options["format"] == "json":
            self.stdout.write(json.dumps(rows, indent=2))
            return
        self.stdout.write(
            f"{'judge':<20} {'kind':<6} {'condition':<13} {'topics':>6} {'judged':>7} {'unlabelled':>10} {'pairs':>7} "
            f"{'FS':>6} {'PS':>6} {'NS':>6}"
        )
        for r in rows:
            self.stdout.write(
                f"{r['judge'][:20]:<20} {r['kind']:<6} {r['condition'] or '-':<13} {r['topics']:>6} {r['judged']:>7} {r['unlabelled']:>10} "
                f"{r['distinct_pairs']:>7} {r['FS']:>6} {r['PS']:>6} {r['NS']:>6}"
            )
