from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import LabelSetError
from judging.models import Campaign
from kinds.relevance.report import relevance_report
from kinds.relevance.selectors import LABEL_SET_HELP


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


class Command(BaseCommand):
    help = (
        "Compare two relevance label sets: agreement over the (topic, passage) pairs both graded (exact, Cohen's "
        "kappa, linear kappa, 4x4 confusion) and the runs ranked by nDCG@10 and nDCG@20 (ir_measures) under each, "
        "with Kendall's tau between the rankings."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--a", required=True, help=LABEL_SET_HELP)
        parser.add_argument("--b", required=True, help="the second label set, as --a")
        parser.add_argument("--campaign", default=None, help="its runs and topics (default: every run)")
        parser.add_argument("--format", choices=["text", "json"], default="text")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = None
        if options["campaign"]:
            campaign = Campaign.objects.filter(name=options["campaign"]).first()
            if campaign is None:
                raise CommandError(f"no campaign named {options['campaign']!r}")
        try:
            report = relevance_report(options["a"], options["b"], campaign=campaign)
        except LabelSetError as exc:
            raise CommandError(str(exc)) from exc
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
            return
        c, ag = report.coverage, report.agreement
        out = self.stdout.write
        out(f"a = {report.a} ({c.pairs_a} pairs, {c.topics_a} topics); b = {report.b} ({c.pairs_b}, {c.topics_b})")
        out(f"agreement over {ag.n} {report.unit} pairs both graded:")
        out(f"  exact {_num(ag.agreement)}  kappa {_num(ag.kappa)}  linear kappa {_num(ag.kappa_linear)}")
        out("  confusion (rows a, columns b): " + " ".join(ag.labels))
        for label, counts in zip(ag.labels, ag.matrix, strict=True):
            out(f"    {label}: " + " ".join(f"{v:5d}" for v in counts))
        out(f"runs by nDCG over the {c.topics_both} topics both graded:")
        out("  run_id  " + "  ".join(f"{m}(a) {m}(b) rank(a) rank(b)" for m in report.measures))
        for row in report.runs:
            cells = [
                f"{_num(row.scores_a[m])} {_num(row.scores_b[m])} {row.rank_a[m]} {row.rank_b[m]}"
                for m in report.measures
            ]
            out(f"  {row.run_id}  " + "  ".join(cells))
        out("Kendall's tau between the rankings: " + ", ".join(f"{m} {_num(t)}" for m, t in report.tau.items()))
