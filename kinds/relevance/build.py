"""A relevance campaign's pool: one item per (topic, passage), from an imported qrels source's pairs or from the
top-k references of the campaign's runs (each answer's `references`, in the run's order)."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from assess.models import Answer, Passage, Relevance
from judging.build import CampaignBuildError
from judging.models import Campaign
from kinds.relevance.models import PoolKind, RelevanceItem, RelevanceJudgment
from kinds.relevance.selectors import relevance_settings_of

Pairs = dict[str, list[str]]  # topic_id -> passage ids in queue order


def qrels_pairs(*, source: str, topic_ids: list[str]) -> Pairs:
    """The source's (topic, passage) pairs of these topics, by passage id: never by grade, which a from-scratch
    assessor must not be able to read off the order."""
    pairs: Pairs = {t: [] for t in topic_ids}
    rows = Relevance.objects.filter(source=source, topic_id__in=topic_ids).order_by("topic_id", "passage_id")
    for topic_id, passage_id in rows.values_list("topic_id", "passage_id"):
        pairs[topic_id].append(passage_id)
    return pairs


def references_pairs(*, campaign: Campaign, topic_ids: list[str], depth: int) -> Pairs:
    """The first `depth` references of each run's answer, per topic: a passage's place is its best rank in any
    run (then its id)."""
    best: dict[str, dict[str, int]] = {t: {} for t in topic_ids}
    answers = Answer.objects.filter(run__in=campaign.runs.all(), topic__topic_id__in=topic_ids)
    for topic_id, references in answers.values_list("topic__topic_id", "references"):
        ranks = best[topic_id]
        for rank, passage_id in enumerate(references[:depth]):
            ranks[passage_id] = min(rank, ranks.get(passage_id, rank))
    return {t: sorted(ranks, key=lambda p: (ranks[p], p)) for t, ranks in best.items()}


@transaction.atomic
def relevance_build(campaign: Campaign, *, allow_missing_text: bool = False) -> dict[str, Any]:
    """(Re)build the campaign's pool from its relevance settings. Passages without text (or not loaded at all)
    stop the build (CampaignBuildError) unless `allow_missing_text`, which leaves them out and counts them. A
    rebuild keeps every item that has a judgment, in the pool or not."""
    settings = relevance_settings_of(campaign)
    topics = {t.topic_id: t for t in campaign.topics.all()}
    topic_ids = sorted(topics)
    if settings.pool == PoolKind.QRELS:
        if not Relevance.objects.filter(source=settings.pool_source).exists():
            raise CampaignBuildError(
                f"the qrels source {settings.pool_source!r} holds no grades.",
                advice="Import it first (import_qrels --source NAME).",
            )
        pairs = qrels_pairs(source=settings.pool_source, topic_ids=topic_ids)
    else:
        pairs = references_pairs(campaign=campaign, topic_ids=topic_ids, depth=settings.depth)
    wanted = sorted({p for ids in pairs.values() for p in ids})
    passages = {p.passage_id: p for p in Passage.objects.filter(passage_id__in=wanted, has_text=True)}
    missing = [p for p in wanted if p not in passages]
    if missing and not allow_missing_text:
        shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20} more" if len(missing) > 20 else "")
        raise CampaignBuildError(
            f"{len(missing)} passages of the pool have no text: {shown}.", missing_passages=missing
        )
    kept_judged = _items_store(campaign, topics, pairs, passages)
    summary: dict[str, Any] = {
        "pool": settings.pool,
        "source": settings.pool_source if settings.pool == PoolKind.QRELS else "",
        "depth": settings.depth if settings.pool == PoolKind.REFERENCES else None,
        "runs": campaign.runs.count(),
        "topics": len(topic_ids),
        "pairs": sum(len(ids) for ids in pairs.values()),
        "passages_without_text": len(missing),
        "items": RelevanceItem.objects.filter(campaign=campaign).count(),
        "judged_items_kept_outside_the_pool": kept_judged,
    }
    campaign.build_summary = summary
    campaign.built_at = timezone.now()
    campaign.save(update_fields=["build_summary", "built_at"])
    return summary


def _items_store(campaign: Campaign, topics: dict[str, Any], pairs: Pairs, passages: dict[str, Passage]) -> int:
    """Write the pool: items made or moved to their place; unjudged items that left it deleted, judged ones kept
    after the pool's end. Returns how many judged items were kept outside the pool."""
    existing = {
        (i.topic.topic_id, i.passage.passage_id): i
        for i in RelevanceItem.objects.filter(campaign=campaign).select_related("topic", "passage")
    }
    new: list[RelevanceItem] = []
    moved: list[RelevanceItem] = []
    placed: set[tuple[str, str]] = set()
    for topic_id, passage_ids in pairs.items():
        for position, passage_id in enumerate(p for p in passage_ids if p in passages):
            key = (topic_id, passage_id)
            placed.add(key)
            item = existing.get(key)
            if item is None:
                new.append(
                    RelevanceItem(
                        campaign=campaign, topic=topics[topic_id], passage=passages[passage_id], position=position
                    )
                )
            elif item.position != position:
                item.position = position
                moved.append(item)
    left = [i for key, i in existing.items() if key not in placed]
    judged = set(
        RelevanceItem.objects.filter(pk__in=[i.pk for i in left])
        .filter(Exists(RelevanceJudgment.objects.filter(item=OuterRef("pk"))))
        .values_list("pk", flat=True)
    )
    RelevanceItem.objects.filter(pk__in=[i.pk for i in left if i.pk not in judged]).delete()
    end = {t: len(ids) for t, ids in pairs.items()}
    for item in (i for i in left if i.pk in judged):
        item.position = end.get(item.topic.topic_id, 0)
        end[item.topic.topic_id] = item.position + 1
        moved.append(item)
    RelevanceItem.objects.bulk_create(new, batch_size=2000)
    RelevanceItem.objects.bulk_update(moved, ["position"], batch_size=2000)
    return len(judged)
