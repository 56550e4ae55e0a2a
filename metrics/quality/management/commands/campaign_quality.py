"""python manage.py campaign_quality CAMPAIGN [--format csv|json]"""

from __future__ import annotations

import json
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from judging.models import Campaign
from metrics.quality import export, selectors


class Command(BaseCommand):
    help = "A campaign's assessor quality report (the quality page's figures): CSV, one row per assessor, or JSON."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--format", choices=["csv", "json"], default="csv")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        report = selectors.quality_report(campaign=campaign)
        if options["format"] == "csv":
            self.stdout.write(export.quality_csv(report), ending="")
        else:
            self.stdout.write(json.dumps(export.quality_as_dict(report), indent=2, default=str))
