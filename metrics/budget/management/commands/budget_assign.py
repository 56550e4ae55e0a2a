"""python manage.py budget_assign SAMPLE_ID ASSESSOR"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from metrics.budget import selectors as budget_selectors
from metrics.budget import services as budget_services
from metrics.budget.inputs import BudgetAssignInput, errors_text


class Command(BaseCommand):
    help = "Assign a budget sample to an assessor, from scratch, one assignment per topic with drawn pairs."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("sample", type=int, help="the budget sample's number")
        parser.add_argument("assessor", help="the assessor's username")

    def handle(self, *args: Any, **options: Any) -> None:
        sample = budget_selectors.budget_sample_get(sample_id=options["sample"])
        if sample is None:
            raise CommandError(f"no budget sample #{options['sample']}")
        assign = BudgetAssignInput(data={"assessor": options["assessor"]})
        if not assign.is_valid():
            raise CommandError(errors_text(assign.errors))
        assessor = assign.validated_data["assessor"]
        try:
            made = budget_services.budget_assign(sample=sample, assessor=assessor)
        except budget_services.BudgetError as error:
            raise CommandError(str(error)) from None
        self.stdout.write(
            f"{assessor.username}: {len(made)} from-scratch assignment(s) on budget sample #{sample.pk}: "
            + ", ".join(a.topic.topic_id for a in made)
        )
