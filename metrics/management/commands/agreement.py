from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.models import Condition
from metrics.exports import agreement_json
from metrics.management.commands._common import add_scope_arguments, scope_from
from metrics.reports import agreement_report
from metrics.selectors import UnknownJudge


class Command(BaseCommand):
    help = (
        "Agreement between two judges over the citations both labelled: confusion matrix, exact agreement, "
        "Cohen's kappa (unweighted, linear), label distributions, Kendall tau-b of run scores, self-consistency."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--a", required=True, help="a judge name, or `human`")
        parser.add_argument("--b", required=True)
        parser.add_argument("--condition-a", choices=Condition.values)
        parser.add_argument("--condition-b", choices=Condition.values)
        add_scope_arguments(parser)
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=20241025)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            report = agreement_report(
                a=options["a"],
                b=options["b"],
                scope=scope_from(options),
                condition_a=options["condition_a"],
                condition_b=options["condition_b"],
                resamples=options["resamples"],
                seed=options["seed"],
            )
        except UnknownJudge as exc:
            raise CommandError(str(exc)) from exc
        if options["format"] == "json":
            agreement_json(self.stdout, report)
            return
        labels = report["labels"]
        w = self.stdout.write
        w(
            f"{report['a']} (rows) vs {report['b']} (columns), depth {report['depth'] or 'every citation'}: {labels['n']} citations both labelled"
        )
        w(f"{'':>4} " + " ".join(f"{lab:>14}" for lab in labels["labels"]))
        for lab, counts, percents in zip(labels["labels"], labels["matrix"], labels["matrix_percent"], strict=True):
            w(f"{lab:>4} " + " ".join(f"{c:>6} ({p:5.1f}%)" for c, p in zip(counts, percents, strict=True)))
        w(f"exact agreement  {_num(labels['agreement'])}")
        w(f"Cohen's kappa    {_num(labels['kappa'])}   linear-weighted {_num(labels['kappa_linear'])}")
        w(f"labels {report['a']}: {json.dumps(labels['distribution_a'])}")
        w(f"labels {report['b']}: {json.dumps(labels['distribution_b'])}")
        for metric in ("precision", "recall"):
            ci = report["tau_ci"][metric]
            ci_text = f"  95% CI [{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
            w(f"Kendall tau-b of run {metric} ({len(report['topics'])} topics): {_num(report['tau'][metric])}{ci_text}")
        for name, sc in report["self_consistency"].items():
            w(
                f"self-consistency {name}: {sc['inconsistent_pairs']} of {sc['repeated_pairs']} repeated pairs "
                f"labelled differently ({_num(sc['rate'])})"
            )


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"
