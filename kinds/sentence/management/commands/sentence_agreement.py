from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import SPEC_HELP, LabelSetError
from kinds.sentence.agreement import sentence_agreement_report
from kinds.sentence.selectors import sentence_label_set_get


def _num(value: float | None) -> str:
    return "—" if value is None else f"{value:.3f}"


class Command(BaseCommand):
    help = (
        "Agreement between two sentence label sets (unit: sentence) on both steps: verification-worthy "
        "(exact, Cohen's kappa, confusion) and combined support FS/PS/NS on the sentences both judged. "
        "`agreement --kind sentence` runs this."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--a", required=True, help=SPEC_HELP + " (rows)")
        parser.add_argument("--b", required=True, help="the second label set (columns)")
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=20241025)

    def handle(self, *args: Any, **options: Any) -> None:
        try:
            a, b = sentence_label_set_get(options["a"]), sentence_label_set_get(options["b"])
        except LabelSetError as exc:
            raise CommandError(str(exc)) from None
        report = sentence_agreement_report(a, b, resamples=options["resamples"], seed=options["seed"])
        if options["format"] == "json":
            self.stdout.write(json.dumps(report.as_dict(), indent=2))
            return
        w = self.stdout.write
        w(f"unit: sentence   A (rows): {report.a['title']} [{report.a['spec']}]   B (columns): {report.b['title']}")
        for title, step in (("verification-worthy", report.worthy), ("combined support", report.combined)):
            ci = f"  95% CI [{_num(step.kappa_ci[0])}, {_num(step.kappa_ci[1])}]" if step.kappa_ci else ""
            w(f"{title}: {step.n} sentences both judged  exact {_num(step.agreement)}  kappa {_num(step.kappa)}{ci}")
            w("      " + " ".join(f"{label:>6}" for label in step.labels))
            for label, counts in zip(step.labels, step.matrix, strict=True):
                w(f"{label:>5} " + " ".join(f"{c:>6}" for c in counts))
