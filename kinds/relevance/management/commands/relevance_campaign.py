from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import transaction

from assess.models import Run, Topic
from judging.build import CampaignBuildError
from kinds.relevance.build import relevance_build
from kinds.relevance.models import PoolKind
from kinds.relevance.services import relevance_campaign_create


class Command(BaseCommand):
    help = (
        "Create and build a relevance campaign: one card per (topic, passage) of its pool, the pairs of an "
        "imported qrels source (--pool qrels --source umbrela) or the top-k references of its runs (--pool "
        "references --runs ... --depth 20). --post-edit-source names the source whose grades post-editing shows."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--name", required=True)
        parser.add_argument("--topics", nargs="+", required=True, help="topic ids")
        parser.add_argument("--runs", nargs="*", default=[], help="run ids (the references pool; the report's runs)")
        parser.add_argument("--pool", choices=PoolKind.values, default=PoolKind.QRELS)
        parser.add_argument("--source", default="", help="the qrels source of a qrels pool, e.g. umbrela")
        parser.add_argument("--depth", type=int, default=None, help="references per run and topic (default 20)")
        parser.add_argument("--post-edit-source", default="", help="whose grades post-editing shows, e.g. umbrela")
        parser.add_argument("--allow-missing-text", action="store_true", help="leave out passages without text")

    def handle(self, *args: Any, **options: Any) -> None:
        topics = _named(Topic, "topic_id", options["topics"], "topic")
        runs = _named(Run, "run_id", options["runs"], "run")
        try:
            with transaction.atomic():
                campaign = relevance_campaign_create(
                    name=options["name"],
                    topics=topics,
                    runs=runs,
                    pool=options["pool"],
                    pool_source=options["source"],
                    depth=options["depth"],
                    post_edit_source=options["post_edit_source"],
                )
                summary = relevance_build(campaign, allow_missing_text=options["allow_missing_text"])
        except (ValueError, CampaignBuildError) as exc:
            raise CommandError(str(exc)) from exc
        self.stdout.write(
            f"campaign {campaign.name} (#{campaign.pk}): " + ", ".join(f"{k} {v}" for k, v in summary.items())
        )


def _named(model: Any, field: str, names: list[str], what: str) -> list[Any]:
    found = {getattr(o, field): o for o in model.objects.filter(**{f"{field}__in": names})}
    missing = [n for n in names if n not in found]
    if missing:
        raise CommandError(f"no {what} {', '.join(missing)}: import it first")
    return [found[n] for n in names]
