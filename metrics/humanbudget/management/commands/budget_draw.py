"""python manage.py budget_draw CAMPAIGN --llm opus-4.8-nist --budget 10% [--design uniform|stratified|disagreement]"""

from __future__ import annotations

from typing import Any

from django import forms
from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.labels import SPEC_HELP
from judging.models import Campaign
from metrics.budget import Design
from metrics.humanbudget import services as budget_services
from metrics.humanbudget.forms import parse_budget


class Command(BaseCommand):
    help = (
        "Draw a campaign's human sample (Poisson sampling, known inclusion probabilities, a recorded seed) to "
        "correct an LLM label set's labels on every pair; then `budget_assign` gives it to assessors from scratch."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--llm", required=True, help=f"the LLM label set on every pair: {SPEC_HELP}")
        parser.add_argument("--budget", required=True, help="a number of pairs (300) or a share (10%% or 0.1)")
        parser.add_argument("--design", choices=Design.ALL, default=Design.UNIFORM)
        parser.add_argument("--second-llm", default="", help="a second LLM label set (the disagreement design)")
        parser.add_argument("--seed", type=int, default=0)
        parser.add_argument("--allow-unlabelled", action="store_true", help="draw even if some pairs have no LLM label")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        try:
            pairs, share = parse_budget(options["budget"])
        except forms.ValidationError as error:
            raise CommandError(f"--budget: {error.messages[0]}") from None
        try:
            sample = budget_services.budget_sample_draw(
                campaign=campaign,
                llm=options["llm"],
                design=options["design"],
                pairs=pairs,
                share=share,
                second_llm=options["second_llm"],
                seed=options["seed"],
                allow_unlabelled=options["allow_unlabelled"],
            )
        except budget_services.BudgetError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"budget sample #{sample.pk}: {sample.items.count()} of {sample.frame} pairs drawn "
            f"(expected {sample.expected:.1f}; {sample.budget_text}, design {sample.design}, seed {sample.seed}, "
            f"LLM labels {sample.llm})"
        )
