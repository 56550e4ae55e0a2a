"""python manage.py budget_simulate --truth nist/from_scratch --llm opus-4.8-nist --designs uniform neyman
--budgets 0.05 0.1 0.2 --repeats 200 --seed 0 --format json"""

from __future__ import annotations

import json
from typing import Any

import numpy as np
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.management.arguments import LABEL_SET_HELP, add_scope_arguments, label_set_from, scope_from
from metrics.budget.estimators import ONE_LLM_DESIGNS, IntervalKind
from metrics.budget.selectors import budget_population
from metrics.budget.simulation import SIMULATION_DESIGNS, design_rows, json_safe, judgments_for_width, simulate


class Command(BaseCommand):
    help = (
        "How well LLM labels on every citation plus human labels on a sample estimate the full-human run "
        "scores: draws the sample (Poisson, known inclusion probabilities) many times per budget and design "
        "and reports the coverage of the 95% intervals, their width against the human-only estimate's, the "
        "mean absolute error and Kendall tau to the full-human ranking (with the LLM alone for reference)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--truth", required=True, help=LABEL_SET_HELP + " (the full human labels)")
        parser.add_argument("--llm", required=True, help="the LLM label set on every citation")
        parser.add_argument("--budgets", type=float, nargs="+", default=[0.05, 0.1, 0.2, 0.3])
        parser.add_argument(
            "--design", choices=[*ONE_LLM_DESIGNS, "both"], default=None, help="one design, or both (the default)"
        )
        parser.add_argument(
            "--designs",
            nargs="+",
            choices=SIMULATION_DESIGNS,
            default=None,
            help="the designs to compare (instead of --design); neyman and active draw a pilot from their budget first",
        )
        parser.add_argument(
            "--target-width",
            type=float,
            default=0.2,
            help="the mean 95%% interval width to reach: each row gives the human judgments it would take",
        )
        parser.add_argument("--metric", choices=["precision", "recall", "both"], default="both")
        parser.add_argument("--repeats", type=int, default=200)
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument(
            "--interval",
            choices=IntervalKind.CHOICES,
            default=IntervalKind.T,
            help="t: Student's t quantile with (drawn units of the run - 1) degrees of freedom (default); normal: 1.96",
        )
        parser.add_argument("--format", choices=["table", "json"], default="table")
        add_scope_arguments(parser, depth_default="1: first citations")

    def handle(self, *args: Any, **options: Any) -> None:
        if options["repeats"] < 1:
            raise CommandError("--repeats must be at least 1")
        if not 0 < options["target_width"] <= 2:
            raise CommandError("--target-width is a width of a score in [0, 1]: above 0, at most 2")
        options["depth"] = options["depth"] or 1
        designs = _designs(options)
        truth, llm = label_set_from(options["truth"]), label_set_from(options["llm"])
        try:
            population, runs, topics = budget_population(truth=truth, llm=llm, scope=scope_from(options))
            rows = simulate(
                population,
                budgets=options["budgets"],
                designs=designs,
                metrics=("precision", "recall") if options["metric"] == "both" else (options["metric"],),
                repeats=options["repeats"],
                seed=options["seed"],
                interval=options["interval"],
            )
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if options["format"] == "json":
            payload = {
                "truth": truth.spec,
                "llm": llm.spec,
                "runs": len(runs),
                "topics": len(topics),
                "citations": len(population.answer),
                "unit": "first citations the truth labelled; sampling unit: the citation",
                "interval": options["interval"],
                "target_width": options["target_width"],
                "rows": design_rows(rows, units=population.n_units, target_width=options["target_width"]),
            }
            self.stdout.write(json.dumps(json_safe(payload), indent=2, allow_nan=False))
            return
        w = self.stdout.write
        w(
            f"truth {truth.spec} vs LLM {llm.spec}: {len(runs)} runs, {len(topics)} topics, "
            f"{len(population.answer):,} first citations; {options['repeats']} draws each, seed {options['seed']}"
        )
        w(
            f"{'metric':<9} {'design':<10} {'budget':>6} {'drawn':>6} {'cover':>6} {'cov.HO':>6} {'width':>7} "
            f"{'w.HO':>7} {'MAE':>7} {'MAE.HO':>7} {'tau':>6} {'tau.HO':>6} {'tau.LLM':>7} {'n@width':>7} {'rs.cov':>6} {'rs.size':>7}"
        )
        for r in rows:
            w(
                f"{r.metric:<9} {r.design:<10} {r.budget:>6.2f} {r.judged_share:>6.3f} {r.coverage:>6.3f} "
                f"{r.coverage_human_only:>6.3f} {r.width:>7.4f} {r.width_human_only:>7.4f} {r.mae:>7.4f} "
                f"{r.mae_human_only:>7.4f} {_num(r.tau, 6)} {_num(r.tau_human_only, 6)} {_num(r.tau_llm_only, 7)} "
                f"{judgments_for_width(r, units=population.n_units, target_width=options['target_width']):>7.0f} "
                f"{_num(r.rank_set_coverage, 6)} {_num(r.rank_set_size, 7)}"
            )
        quantile = (
            "t quantile, drawn citations of the run - 1 d.f." if options["interval"] == IntervalKind.T else "1.96"
        )
        w(
            f"n@width: human judgments for a mean width of {options['target_width']} (scaled from this row). "
            f"HO: human-only estimate of the same sample. rs.cov / rs.size: the rank sets' joint coverage (95%, pairwise) and mean size. Intervals: 95%, estimate ± se x {quantile} (difference estimator)."
        )


def _num(value: float | None, width: int) -> str:
    """A figure of the table, "—" where it is undefined (τ when the truth ties every run)."""
    return f"{'—':>{width}}" if value is None or np.isnan(value) else f"{value:>{width}.3f}"


def _designs(options: dict[str, Any]) -> list[str]:
    if options["designs"] and options["design"]:
        raise CommandError("give --designs or --design, not both")
    if options["designs"]:
        return list(dict.fromkeys(options["designs"]))
    return list(ONE_LLM_DESIGNS) if options["design"] in (None, "both") else [options["design"]]
