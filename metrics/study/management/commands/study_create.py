"""python manage.py study_create CAMPAIGN --a campaign:demo/from_scratch --b gpt-4o --per-topic 15 --seed 0"""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.label_set_names import SPEC_HELP
from judging.models import Campaign
from metrics.study import services as study_services


class Command(BaseCommand):
    help = "Sample pairs per topic where two label sets disagree (the disagreement study), reproducibly from a seed."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--a", required=True, help=f"the first label set, usually human: {SPEC_HELP}")
        parser.add_argument("--b", required=True, help="the second label set, usually an LLM judge's")
        parser.add_argument("--per-topic", type=int, default=study_services.DEFAULT_PER_TOPIC)
        parser.add_argument("--seed", type=int, default=0)

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        try:
            study = study_services.study_create(
                campaign=campaign, a=options["a"], b=options["b"], per_topic=options["per_topic"], seed=options["seed"]
            )
        except study_services.StudyError as error:
            raise CommandError(str(error)) from None
        summary = study.summary
        self.stdout.write(
            f"study #{study.pk}: {summary['sampled']} pairs where {study.a} and {study.b} disagree, "
            f"up to {study.per_topic} per topic, seed {study.seed}"
        )
        for topic in summary["topics"]:
            note = f" (only {topic['disagreements']} disagreements)" if topic["short"] else ""
            self.stdout.write(f"  {topic['topic_id']}: {topic['sampled']} sampled{note}")
