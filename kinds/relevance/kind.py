"""Passage relevance, post-editing UMBRELA (issue 26, point 3): one card per (topic, passage) of the campaign's
pool, graded 0-3 on NIST's and UMBRELA's scale, from scratch or post-editing an imported source's grades."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from django import forms
from django.db import transaction

from judging.build import CampaignBuildError
from judging.kinds import Kind
from judging.models import Assignment, Campaign, Judge
from judging.progress import Share
from kinds.relevance.build import relevance_build
from kinds.relevance.guidelines import GUIDELINES
from kinds.relevance.models import DEFAULT_DEPTH, PoolKind, RelevanceItem
from kinds.relevance.prompt import PROMPT_VERSION, label_parse, messages_for
from kinds.relevance.selectors import items_progress, relevance_settings_of
from kinds.relevance.services import llm_grades_store, relevance_pool_set
from kinds.relevance.vocabulary import RELEVANCE

# The pool's options on judging's create and rebuild forms, the API and `campaign_create --option` (docs/kinds.md);
BUILD_OPTIONS = {
    "pool": forms.ChoiceField(choices=PoolKind.choices, initial=PoolKind.REFERENCES, label="Pool"),
    "source": forms.CharField(
        required=False, initial="", max_length=64, help_text="the qrels source whose pairs make a qrels pool"
    ),
    "depth": forms.IntegerField(
        min_value=1, max_value=1000, initial=DEFAULT_DEPTH, help_text="references per run and topic (references pool)"
    ),
}


@transaction.atomic
def _build(campaign: Campaign, *, allow_missing_text: bool = False, **options: Any) -> dict[str, Any]:
    """(Re)build the pool; options given (pool, source, depth) change the campaign's settings first, the others
    keep theirs. A pool that cannot be built is a CampaignBuildError (nothing created, or nothing changed)."""
    if options:
        current = relevance_settings_of(campaign)
        try:
            relevance_pool_set(
                campaign=campaign,
                pool=options.get("pool", current.pool),
                pool_source=options.get("source", current.pool_source),
                depth=options.get("depth", current.depth),
            )
        except ValueError as exc:
            raise CampaignBuildError(f"{exc}.", advice="Choose the pool's source (source=NAME).") from exc
    return relevance_build(campaign, allow_missing_text=allow_missing_text)


def _progress(assignments: Sequence[Assignment]) -> dict[int, Share]:
    return items_progress(assignments)


@dataclass(frozen=True)
class Prelabel:
    """What the LLM pre-labeller needs of this kind (KINDS.md): its units are the campaign's items."""

    version: str = PROMPT_VERSION

    def units(self, campaign: Campaign) -> list[int]:
        return list(
            RelevanceItem.objects.filter(campaign=campaign)
            .order_by("topic_id", "position")
            .values_list("pk", flat=True)
        )

    def messages(self, unit_ids: Sequence[int]) -> dict[int, list[dict[str, str]]]:
        items = RelevanceItem.objects.filter(pk__in=unit_ids).select_related("topic", "passage")
        return {i.pk: messages_for(i.topic.text, i.passage) for i in items}

    @staticmethod
    def parse(reply: str) -> int | None:
        return label_parse(reply)

    @staticmethod
    def store(judge: Judge, labels: dict[int, int]) -> int:
        return llm_grades_store(judge, labels)


PRELABEL = Prelabel()

KIND = Kind(
    name="relevance",
    title="Passage relevance, graded 0-3",
    unit="topic-passage",
    steps=(RELEVANCE,),
    judge_url="kind_relevance:judge",
    build=_build,
    progress=_progress,
    campaign_panel="kind_relevance/panel.html",
    extras={"prelabel": PRELABEL, "build_options": BUILD_OPTIONS},
    counted_as="(topic, passage) items",
    default_guidelines=GUIDELINES,
)
