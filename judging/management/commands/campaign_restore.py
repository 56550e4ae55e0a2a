from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand

from judging.lifecycle.services import campaign_restore
from judging.management.commands._lifecycle import campaign_named


class Command(BaseCommand):
    help = "Restore an archived campaign: judged and assigned again, back in the lists."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = campaign_restore(campaign=campaign_named(options["campaign"]))
        self.stdout.write(f"campaign {campaign.name} restored")
