from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from judging.lifecycle.services import campaign_archive
from judging.management.commands._lifecycle import campaign_named


class Command(BaseCommand):
    help = "Archive a campaign: read-only (no new judgments or assignments), out of the default lists, restorable."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = campaign_archive(campaign=campaign_named(options["campaign"]))
        self.stdout.write(f"campaign {campaign.name} archived (campaign_restore {campaign.name} brings it back)")
