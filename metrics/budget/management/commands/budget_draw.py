"""python manage.py budget_draw CAMPAIGN --llm opus-4.8-nist --budget 10% [--design uniform|stratified|disagreement|active]"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import SPEC_HELP
from metrics.budget import services as budget_services
from metrics.budget.estimators import Design
from metrics.budget.inputs import BUDGET_HELP, BudgetDrawInput, errors_text


class Command(BaseCommand):
    help = (
        "Draw a campaign's human sample (Poisson sampling, known inclusion probabilities, a recorded seed) to "
        "correct an LLM label set's labels on every pair; then `budget_assign` gives it to assessors from scratch."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--llm", required=True, help=f"the LLM label set on every pair: {SPEC_HELP}")
        parser.add_argument("--budget", required=True, help=BUDGET_HELP.replace("%", "%%"))
        parser.add_argument("--design", choices=Design.values, default=Design.UNIFORM)
        parser.add_argument("--second-llm", default="", help="a second LLM label set (the disagreement design)")
        parser.add_argument(
            "--reference",
            default="",
            help="the active design: human labels to learn the LLM's errors from (e.g. nist/from_scratch)",
        )
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--allow-unlabelled", action="store_true", help="draw even if some pairs have no LLM label")

    def handle(self, *args: Any, **options: Any) -> None:
        draw = BudgetDrawInput(
            data={
                "campaign": options["campaign"],
                "llm": options["llm"],
                "budget": options["budget"],
                "design": options["design"],
                "second_llm": options["second_llm"],
                "reference": options["reference"],
                "seed": options["seed"],
                "allow_unlabelled": options["allow_unlabelled"],
            }
        )
        if not draw.is_valid():
            raise CommandError(errors_text(draw.errors))
        try:
            sample = budget_services.budget_sample_draw(**draw.validated_data)
        except budget_services.BudgetError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"budget sample #{sample.pk}: {sample.items.count()} of {sample.frame} pairs drawn "
            f"(expected {sample.expected:.1f}; {sample.budget_text}, design {sample.design}, seed {sample.seed}, "
            f"LLM labels {sample.llm})"
        )
