from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.contrib.auth.models import User
from django.core.management.base import BaseCommand, CommandError
from django.db import transaction

from judging import services
from judging.blindness import BlindnessViolation
from judging.models import Campaign, Condition


class Command(BaseCommand):
    help = "Assign topics of a campaign to assessors under one condition, in the order given."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--assessors", nargs="+", required=True)
        parser.add_argument("--topics", nargs="+", required=True, help="topic ids, or `all` (the campaign's)")
        parser.add_argument("--condition", choices=Condition.values, required=True)

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        if options["topics"] == ["all"]:
            topics = list(campaign.topics.order_by("topic_id"))
        else:
            found = {t.topic_id: t for t in campaign.topics.filter(topic_id__in=options["topics"])}
            missing = [t for t in options["topics"] if t not in found]
            if missing:
                raise CommandError(f"topics not in campaign {campaign.name}: {', '.join(missing)}")
            topics = [found[t] for t in options["topics"]]
        users = {u.username: u for u in User.objects.filter(username__in=options["assessors"])}
        unknown = [a for a in options["assessors"] if a not in users]
        if unknown:
            raise CommandError(f"unknown users: {', '.join(unknown)} (create them with add_assessor)")
        lines = []
        try:
            # All assessors or none: a refusal for one leaves the others unassigned too.
            with transaction.atomic():
                for name in options["assessors"]:
                    made = services.assignments_create(
                        campaign=campaign, assessor=users[name], topics=topics, condition=options["condition"]
                    )
                    lines.append(f"{name}: {len(made)} assignment(s) ({options['condition']})")
        except BlindnessViolation as violation:
            raise CommandError(f"nothing assigned: {violation.message}") from None
        for line in lines:
            self.stdout.write(line)
