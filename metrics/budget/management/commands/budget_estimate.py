"""python manage.py budget_estimate SAMPLE_ID [--format table|json]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.budget import report
from metrics.budget import selectors as budget_selectors


def _fmt(value: dict[str, float] | None, key: str = "estimate") -> str:
    return "—" if value is None else f"{value[key]:.3f}"


def _rank_set(rank_set: dict[str, int] | None) -> str:
    if rank_set is None:
        return "—"
    return str(rank_set["best"]) if rank_set["best"] == rank_set["worst"] else f"{rank_set['best']}-{rank_set['worst']}"


class Command(BaseCommand):
    help = (
        "Each run's weighted precision and recall from a budget sample: LLM-only, LLM + sample with its 95% "
        "interval, human-only; the ranking with the probability each adjacent two are in the right order."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sample", type=int, help="the budget sample's number")
        parser.add_argument("--format", choices=["table", "json"], default="table")

    def handle(self, *args: Any, **options: Any) -> None:
        sample = budget_selectors.budget_sample_get(sample_id=options["sample"])
        if sample is None:
            raise CommandError(f"no budget sample #{options['sample']}")
        data = report.budget_estimates(sample=sample)
        if options["format"] == "json":
            self.stdout.write(json.dumps(data, indent=2))
            return
        w = self.stdout.write
        sets = data["label_sets"]
        w(
            f"budget sample #{sample.pk} of {data['campaign']}: {data['judged_pairs']} of {data['drawn_pairs']} drawn "
            f"pairs judged ({data['frame_pairs']} in the pool; {data['budget']}, {data['design']}, seed {data['seed']})"
        )
        w(f"LLM labels {sets['llm']}; human labels {sets['human_note']}. Unit: {data['unit']}.")
        for metric in report.METRICS:
            w(f"\nweighted {metric}")
            w(
                f"{'#':>3} {'run':<48} {'LLM':>6} {'LLM+S':>6} {'low':>6} {'high':>6} {'HO':>6} {'judged':>6} {'P>next':>6} {'set':>7}"
            )
            for r in data["metrics"][metric]["runs"]:
                p = r["next_in_order_probability"]
                w(
                    f"{r['rank']:>3} {r['run_id'][:48]:<48} {r['llm_only']:>6.3f} {_fmt(r['ppi']):>6} "
                    f"{_fmt(r['ppi'], 'low'):>6} {_fmt(r['ppi'], 'high'):>6} {_fmt(r['human_only']):>6} "
                    f"{r['judged_pairs']:>6} {'—' if p is None else f'{p:.2f}':>6} {_rank_set(r['rank_set']):>7}"
                )
        w(
            f"\nLLM: LLM only (biased, no interval). LLM+S: {data['interval']}. HO: human only (the sample alone, centred on its mean)."
        )
        w(f"P>next: {data['ranking_method']}.")
        w(f"set: the rank set, {data['rank_set_method']}.")
        for metric in report.METRICS:
            tau = data["metrics"][metric]["kendall_tau_llm"]
            shown = "—" if tau is None else f"{tau['tau']:.2f} [{tau['low']:.2f}, {tau['high']:.2f}]"
            w(f"Kendall's tau, LLM-only vs LLM+S ranking, {metric}: {shown}")
