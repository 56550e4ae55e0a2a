from __future__ import annotations

import json
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.kinds import UnknownKind, kind_get
from judging.management.arguments import LABEL_SET_HELP, add_scope_arguments, label_set_from, scope_from
from metrics.exports import agreement_json
from metrics.reports import agreement_report


class Command(BaseCommand):
    help = (
        "Agreement between two label sets over the citations both labelled (first citations by default; "
        "--depth 0: every citation): confusion matrix, exact agreement, Cohen's kappa with its interval, "
        "Krippendorff's alpha, per-label precision and recall, Kendall tau-b of run scores, self-consistency."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--a", required=True, help=LABEL_SET_HELP + " (rows)")
        parser.add_argument("--b", required=True, help="the second label set (columns)")
        add_scope_arguments(parser)
        parser.add_argument("--format", choices=["text", "json"], default="text")
        parser.add_argument("--resamples", type=int, default=1000)
        parser.add_argument("--seed", type=int, default=20241025)
        parser.add_argument(
            "--kind",
            default="support",
            help="judgment kind: support per citation (default), or a kind whose agreement command this runs "
            "with --a, --b, --format, --resamples and --seed (sentence: unit sentence, both steps)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        if options["kind"] != "support":
            self._other_kind(options)
            return
        report = agreement_report(
            a=label_set_from(options["a"]),
            b=label_set_from(options["b"]),
            scope=scope_from(options),
            resamples=options["resamples"],
            seed=options["seed"],
        )
        if options["format"] == "json":
            agreement_json(self.stdout, report)
            return
        labels = report["labels"]
        w = self.stdout.write
        w(f"A (rows): {report['label_set_a']['title']}  [{report['a']}]")
        w(f"B (columns): {report['label_set_b']['title']}  [{report['b']}]")
        w(report["n_label"])
        w(f"{'':>4} " + " ".join(f"{lab:>14}" for lab in labels["labels"]))
        for lab, counts, percents in zip(labels["labels"], labels["matrix"], labels["matrix_percent"], strict=True):
            w(f"{lab:>4} " + " ".join(f"{c:>6} ({p:5.1f}%)" for c, p in zip(counts, percents, strict=True)))
        w(f"exact agreement  {_num(labels['agreement'])}")
        kappa_ci = labels.get("kappa_ci")
        kappa_ci_text = f"  95% CI [{_num(kappa_ci[0])}, {_num(kappa_ci[1])}]" if kappa_ci else ""
        w(f"Cohen's kappa    {_num(labels['kappa'])}{kappa_ci_text}   linear-weighted {_num(labels['kappa_linear'])}")
        w(f"Krippendorff's alpha (ordinal) {_num(labels.get('alpha_ordinal'))}")
        for lab, figures in (labels.get("per_label") or {}).items():
            w(
                f"  {lab}: of B's {lab}, A's {lab} {_num(figures['precision'])}; "
                f"of A's {lab}, B's {lab} {_num(figures['recall'])}"
            )
        pairs = report["pairs"]
        w(
            f"per distinct pair ({pairs['n']:,} pairs with one label each, {pairs['inconsistent']} left out): "
            f"exact {_num(pairs['labels']['agreement'])}, kappa {_num(pairs['labels']['kappa'])}"
        )
        w(f"labels {report['a']}: {json.dumps(labels['distribution_a'])}")
        w(f"labels {report['b']}: {json.dumps(labels['distribution_b'])}")
        for metric in ("precision", "recall"):
            ci = report["tau_ci"][metric]
            ci_text = f"  95% CI [{_num(ci[0])}, {_num(ci[1])}]" if ci else ""
            w(
                f"Kendall tau-b of run {metric} ({len(report['topics'])} topics, "
                f"{report['coverage']['runs_used']} of {report['coverage']['runs_total']} runs): "
                f"{_num(report['tau'][metric])}{ci_text}"
            )
        w(report["coverage"]["note"])
        w(report["intervals"]["note"])
        for name, sc in report["self_consistency"].items():
            w(
                f"self-consistency {name}: {sc['inconsistent_pairs']} of {sc['repeated_pairs']} repeated pairs "
                f"labelled differently ({_num(sc['rate'])})"
            )

    def _other_kind(self, options: dict[str, Any]) -> None:
        """A kind's own agreement, through the registry (metrics does not import the kinds)."""
        passed = {k: options[k] for k in ("a", "b", "format", "resamples", "seed")}
        call_command(_kind_command(options["kind"]), stdout=self.stdout, stderr=self.stderr, **passed)


def _num(value: float | None) -> str:
    return "n/a" if value is None else f"{value:.4f}"


def _kind_command(kind: str) -> str:
    try:
        command = kind_get(kind).extras.get("agreement_command")
    except UnknownKind as exc:
        raise CommandError(str(exc)) from None
    if not command:
        raise CommandError(f"the {kind} kind has no agreement command")
    return str(command)
