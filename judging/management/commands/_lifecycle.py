"""What the lifecycle commands share: the campaign named on the command line."""

from __future__ import annotations

from django.core.management.base import CommandError

from judging.models import Campaign


def campaign_named(name: str) -> Campaign:
    campaign = Campaign.objects.filter(name=name).first()
    if campaign is None:
        raise CommandError(f"no campaign named {name!r}")
    return campaign
