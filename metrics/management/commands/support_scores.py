from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.models import Condition
from metrics.exports import scores_csv
from metrics.management.commands._common import add_scope_arguments, scope_from
from metrics.reports import scores_report
from metrics.selectors import UnknownJudge


class Command(BaseCommand):
    help = (
        "Weighted support precision and recall per run for one judge (`human`: every human judge together), "
        "sorted by precision, as the paper's Tables 5-8."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--judge", required=True)
        parser.add_argument("--condition", choices=Condition.values)
        add_scope_arguments(parser)
        parser.add_argument("--format", choices=["table", "csv", "json"], default="table")
        parser.add_argument("--resamples", type=int, default=1000, help="bootstrap resamples (0: no intervals)")
        parser.add_argument("--seed", type=int, default=20241025)

    def handle(self, *args: Any, **options: Any) -> None:
        scope = scope_from(options)
        try:
            report = scores_report(
                judge=options["judge"],
                scope=scope,
                condition=options["condition"],
                resamples=options["resamples"],
                seed=options["seed"],
            )
        except UnknownJudge as exc:
            raise CommandError(str(exc)) from exc
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
            return
        if options["format"] == "csv":
            scores_csv(self.stdout, [report], intervals=options["resamples"] > 0)
            return
        self.stdout.write(
            f"judge {report.judge}  condition {report.condition or 'any'}  depth {report.depth}  "
            f"{len(report.topics)} judged topics  (95% bootstrap intervals over topics, seed {report.seed})"
        )
        width = max([len(r.run_id) for r in report.rows] + [6])
        self.stdout.write(
            f"{'run_id':<{width}}  {'group':<14} {'task':<4} {'judge':<14} {'w.prec':>7} {'95% CI':>15} "
            f"{'w.recall':>8} {'95% CI':>15} {'#sent':>6} {'topics':>6}"
        )
        for r in report.rows:
            self.stdout.write(
                f"{r.run_id:<{width}}  {r.group[:14]:<14} {r.task:<4} {r.judge[:14]:<14} {r.weighted_precision:7.3f} "
                f"{_ci(r.precision_low, r.precision_high):>15} {r.weighted_recall:8.3f} "
                f"{_ci(r.recall_low, r.recall_high):>15} {r.mean_sentences:6.2f} {r.topics:6d}"
            )


def _ci(low: float | None, high: float | None) -> str:
    return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"
