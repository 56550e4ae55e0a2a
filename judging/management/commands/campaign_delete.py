from __future__ import annotations

from argparse import ArgumentParser
from pathlib import Path
from typing import Any

from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError

from judging.lifecycle.selectors import campaign_losses
from judging.lifecycle.services import LifecycleError, campaign_delete
from judging.management.commands._lifecycle import campaign_named


class Command(BaseCommand):
    help = (
        "Delete a campaign, typing its name again to confirm. Refused while it holds human judgments, unless "
        "--force with --export FILE: its judgments are written to FILE first (the exchange CSV)."
    )

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign")
        parser.add_argument("--confirm", required=True, help="the campaign's name again")
        parser.add_argument("--force", action="store_true", help="delete it with its human judgments")
        parser.add_argument("--export", type=Path, default=None, help="with --force: write its judgments here first")

    def handle(self, *args: Any, **options: Any) -> None:
        campaign = campaign_named(options["campaign"])
        losses = campaign_losses(campaign=campaign)
        if options["force"] and losses.human_judgments:
            if options["export"] is None:
                raise CommandError(
                    "--force needs --export FILE: the judgments are written there first; nothing deleted"
                )
            if options["confirm"].strip() != campaign.name:
                raise CommandError(f"type the campaign's name ({campaign.name}) to delete it; nothing deleted")
            call_command("export_judgments", str(options["export"]), "--campaign", campaign.name, stderr=self.stderr)
        try:
            deleted = campaign_delete(campaign=campaign, confirm=options["confirm"], force=options["force"])
        except LifecycleError as exc:
            raise CommandError(exc.message) from None
        lost = "; ".join(deleted.losses.lines()) or "nothing else"
        self.stdout.write(f"campaign {deleted.name} deleted: {lost}")
