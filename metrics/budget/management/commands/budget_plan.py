"""python manage.py budget_plan --llm opus-4.8-nist --human nist/from_scratch [--campaign NAME] [--budgets ...]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import LabelSetError
from judging.management.arguments import add_scope_arguments, scope_from
from metrics.budget import report
from metrics.budget.estimators import ONE_LLM_DESIGNS, Design


class Command(BaseCommand):
    help = (
        "Before judging: the expected 95% interval width of the run scores against the human budget, from an LLM "
        "label set on every first citation and a human label set on some (an earlier campaign, NIST's files)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--llm", required=True, help="the LLM label set")
        parser.add_argument("--human", required=True, help="the human labels already made")
        parser.add_argument("--budgets", type=float, nargs="+", default=list(report.DEFAULT_PLAN_BUDGETS))
        parser.add_argument("--design", choices=ONE_LLM_DESIGNS, default=Design.UNIFORM)
        parser.add_argument("--format", choices=["table", "json"], default="table")
        add_scope_arguments(parser, depth_default="1: first citations")

    def handle(self, *args: Any, **options: Any) -> None:
        options["depth"] = options["depth"] or 1
        try:
            data = report.budget_plan(
                llm=options["llm"],
                human=options["human"],
                scope=scope_from(options),
                budgets=tuple(options["budgets"]),
                design=options["design"],
            )
        except (LabelSetError, ValueError) as error:
            raise CommandError(str(error)) from None
        if options["format"] == "json":
            self.stdout.write(json.dumps(data, indent=2))
            return
        w = self.stdout.write
        sets = data["label_sets"]
        w(
            f"plan from {data['known']:,} first citations labelled by {sets['human']} beside {sets['llm']} "
            f"({data['runs']} runs, {data['topics']} topics, {data['citations']:,} first citations; {data['design']})"
        )
        w(f"{'budget':>6} {'pairs':>7} {'P width':>8} {'P w.HO':>8} {'R width':>8} {'R w.HO':>8}")
        for p, r in zip(data["curves"]["precision"], data["curves"]["recall"], strict=True):
            w(
                f"{p['budget']:>6.2f} {p['pairs']:>7.0f} {p['width']:>8.4f} {p['width_human_only']:>8.4f} "
                f"{r['width']:>8.4f} {r['width_human_only']:>8.4f}"
            )
        w(f"Unit: {data['unit']}; P precision, R recall, HO human only; normal quantile.")
        _designs_table(w, data["designs"])


def _designs_table(w: Any, designs: list[dict[str, Any]]) -> None:
    """The designs compared: expected mean widths per design and budget, and the uniform pairs for the same width."""
    w(f"\n{'design':<11} {'budget':>6} {'pairs':>7} {'P width':>8} {'R width':>8} {'uniform pairs for P width':>26}")
    for d in designs:
        w(
            f"{d['design']:<11} {d['budget']:>6.2f} {d['pairs']:>7.0f} {d['precision_width']:>8.4f} "
            f"{d['recall_width']:>8.4f} {d['uniform_pairs_for_width']:>26.0f}"
        )
