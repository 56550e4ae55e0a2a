from __future__ import annotations

from argparse import ArgumentParser
from typing import Any

from django.core.management.base import BaseCommand, CommandError

from judging.lifecycle.services import LifecycleError, campaign_clone
from judging.management.commands._lifecycle import campaign_named


class Command(BaseCommand):
    help = "Copy a campaign: the same runs, topics, settings and pool, without assignments or judgments."

    def add_arguments(self, parser: ArgumentParser) -> None:
        parser.add_argument("campaign", help="the campaign to copy")
        parser.add_argument("name", help="the new campaign's name")

    def handle(self, *args: Any, **options: Any) -> None:
        source = campaign_named(options["campaign"])
        try:
            clone = campaign_clone(campaign=source, name=options["name"])
        except LifecycleError as exc:
            raise CommandError(exc.message) from None
        self.stdout.write(
            f"campaign {clone.name} (id {clone.pk}): a copy of {source.name}, "
            f"{clone.campaign_pairs.count()} pairs, no assignments"
        )
