"""python manage.py campaign_gold CAMPAIGN --gold FILE"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser

from assess.importers.lines import InputFile
from judging.models import Campaign
from metrics.quality.services import gold_items_load


class Command(BaseCommand):
    help = (
        "Load a campaign's gold items: CSV or JSONL of topic_id, run_id, sentence_index, citation_slot and the "
        "expected label (FS, PS, NS). Replaces the campaign's gold items; a file with any error changes nothing."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("campaign", help="campaign name")
        parser.add_argument("--gold", required=True, metavar="FILE", help="the gold file")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = Campaign.objects.filter(name=options["campaign"]).first()
        if campaign is None:
            raise CommandError(f"no campaign named {options['campaign']!r}")
        path = Path(options["gold"])
        if not path.is_file():
            raise CommandError(f"{path}: no such file")
        report = gold_items_load(campaign=campaign, f=InputFile.of(path))
        if not report.ok:
            for error in sorted(report.errors, key=lambda e: e.line or 0):
                self.stderr.write(self.style.ERROR(f"error: {error}"))
            if report.error_count > len(report.errors):
                self.stderr.write(f"... {report.error_count - len(report.errors)} more errors")
            raise CommandError(f"no gold items loaded: {report.error_count} error(s)")
        counts = ", ".join(f"{k} {v}" for k, v in report.counts.items())
        self.stdout.write(self.style.SUCCESS(f"campaign {campaign.name}: {counts}"))
