"""A campaign, created and built in one step: its runs and topics, the citations its depth takes, and its pool
of pairs (DESIGN §2). All or nothing: a build that stops leaves no campaign behind (issue 23)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from django.db import transaction
from django.db.models import Exists, OuterRef
from django.utils import timezone

from assess.models import Citation, Run, Sentence, Topic
from assess.services import tables_analyze
from judging.counts import topic_counts_forget
from judging.kinds import SUPPORT_KIND, build_options_clean, kind_get, kind_of
from judging.models import (
    Campaign,
    CampaignPair,
    Judge,
    Pair,
    QueueOrder,
)
from judging.pairs import normalize_sentence_text, pairs_for_citations
from judging.services import assignment_refresh_status


class CampaignBuildError(Exception):
    """The build cannot go on; `message` says why (`problem`: the passages that have no text) and what to do."""

    def __init__(
        self,
        problem: str,
        *,
        advice: str = "Load their text, or build leaving them out.",
        missing_passages: list[str] | None = None,
    ) -> None:
        self.problem = problem
        self.message = f"{problem} {advice}"
        super().__init__(self.message)
        self.missing_passages = missing_passages or []


@transaction.atomic
def campaign_create(
    *,
    name: str,
    runs: Iterable[Run],
    topics: Iterable[Topic],
    depth: int = 1,
    guidelines: str | None = None,
    post_edit_judge: Judge | None = None,
    highlight_evidence: bool = False,
    queue_order: str = QueueOrder.BY_TOPIC,
    kind: str = SUPPORT_KIND,
) -> Campaign:
    """A new campaign of a registered kind (UnknownKind, a ValueError naming the known ones, creates nothing)."""
    if depth < 1:
        raise ValueError("depth must be at least 1")
    default_guidelines = kind_get(kind).default_guidelines
    campaign = Campaign.objects.create(
        name=name,
        kind=kind,
        depth=depth,
        guidelines=default_guidelines if guidelines is None else guidelines,
        post_edit_judge=post_edit_judge,
        highlight_evidence=highlight_evidence,
        queue_order=queue_order,
    )
    campaign.runs.set(list(runs))
    campaign.topics.set(list(topics))
    return campaign


@transaction.atomic
def campaign_build_pairs(*, campaign: Campaign, allow_missing_text: bool = False) -> dict[str, Any]:
    """(Re)build the campaign's pool: one CampaignPair per (topic, pair) among the first `depth` citations of
    every sentence of its runs and topics. Judgments hang on pairs, so a rebuild keeps every judgment.

    Passages without text stop the build (CampaignBuildError), unless `allow_missing_text`: then their
    citations are left out and counted."""
    run_ids = list(campaign.runs.values_list("pk", flat=True))
    topic_ids = list(campaign.topics.values_list("pk", flat=True))
    sentences = Sentence.objects.filter(answer__run__in=run_ids, answer__topic__in=topic_ids)
    citations = _campaign_citations(sentences, depth=campaign.depth)
    missing = sorted({c.passage.passage_id for c in citations if not c.passage.has_text})
    if missing and not allow_missing_text:
        shown = ", ".join(missing[:20]) + (f" and {len(missing) - 20} more" if len(missing) > 20 else "")
        raise CampaignBuildError(
            f"{len(missing)} cited passages have no text: {shown}.",
            missing_passages=missing,
        )
    # A sentence whose text is missing (NaN in NIST's files) cannot be judged here; its citations are counted.
    no_sentence_text = [c for c in citations if not normalize_sentence_text(c.sentence.text)]
    kept = [c for c in citations if c.passage.has_text and normalize_sentence_text(c.sentence.text)]
    pool = _campaign_pool(campaign, kept)
    CampaignPair.objects.filter(campaign=campaign).delete()
    campaign_pairs_create(campaign_pairs=pool)
    tables_analyze(models=[CampaignPair, Pair])
    summary: dict[str, Any] = {
        "runs": len(run_ids),
        "topics": len(topic_ids),
        "depth": campaign.depth,
        "sentences": sentences.count(),
        "sentences_uncited": sentences.filter(~Exists(Citation.objects.filter(sentence=OuterRef("pk")))).count(),
        "citations": len(citations),
        "citations_kept": len(kept),
        "citations_left_out": len(citations) - len(kept),
        "passages_without_text": len(missing),
        "citations_without_sentence_text": len(no_sentence_text),
        "pairs": len(pool),
        "judgments_saved": len(kept) - len(pool),
    }
    campaign.build_summary = summary
    campaign.built_at = timezone.now()
    campaign.save(update_fields=["build_summary", "built_at"])
    assignments = list(campaign.assignments.select_related("campaign"))
    topic_counts_forget(assignments=assignments)  # the pools changed: count them again
    for assignment in assignments:
        assignment_refresh_status(assignment=assignment)
    return summary


class CampaignNotCreated(CampaignBuildError):
    """A new campaign's build stopped: nothing was created. `message` says what is missing and what to do."""


@transaction.atomic
def campaign_create_and_build(
    *,
    name: str,
    runs: Iterable[Run],
    topics: Iterable[Topic],
    depth: int = 1,
    guidelines: str | None = None,
    post_edit_judge: Judge | None = None,
    highlight_evidence: bool = False,
    queue_order: str = QueueOrder.BY_TOPIC,
    allow_missing_text: bool = False,
    kind: str = SUPPORT_KIND,
    build_options: dict[str, Any] | None = None,
) -> tuple[Campaign, dict[str, Any]]:
    """A new campaign and its pool, built by its kind (support: `campaign_build_pairs`) in one transaction, what
    the page, the API and the command create a campaign with: a build that stops (cited passages without text,
    unless `allow_missing_text`) or fails leaves no campaign behind (issue 23, point 5), and raises
    `CampaignNotCreated` naming the passages and what to do. An unknown kind (UnknownKind) or build option of
    the kind (BuildOptionsInvalid; `judging.kinds.build_options_clean`) is a ValueError: nothing is created."""
    options = build_options_clean(kind_get(kind), build_options or {})
    campaign = campaign_create(
        name=name,
        runs=runs,
        topics=topics,
        depth=depth,
        guidelines=guidelines,
        post_edit_judge=post_edit_judge,
        highlight_evidence=highlight_evidence,
        queue_order=queue_order,
        kind=kind,
    )
    try:
        summary = kind_of(campaign).build(campaign, allow_missing_text=allow_missing_text, **options)
    except CampaignBuildError as exc:
        raise CampaignNotCreated(
            f"nothing created: {exc.problem}",
            advice="Load their text (import_passages, or the missing passages page) and create the campaign "
            "again, or create it leaving them out.",
            missing_passages=exc.missing_passages,
        ) from exc
    return campaign, summary


def _campaign_citations(sentences: Any, *, depth: int) -> list[Citation]:
    """The first `depth` citations of the sentences, with what the build reads of their passage and answer."""
    return list(
        Citation.objects.filter(sentence__in=sentences, slot__lt=depth)
        .select_related("sentence__answer__run", "passage")
        .only(
            "pk",
            "slot",
            "passage__passage_id",
            "passage__has_text",
            "sentence__index",
            "sentence__text",
            "sentence__answer__topic_id",
            "sentence__answer__run__run_id",
            "sentence__answer__run__priority",
        )
    )


def _campaign_pool(campaign: Campaign, kept: list[Citation]) -> list[CampaignPair]:
    """One CampaignPair per (topic, pair) of the kept citations, counting the citations it stands for. The context
    shown for a pair is its citation in the highest-priority run, earliest sentence."""
    kept = sorted(
        kept,
        key=lambda c: (
            c.sentence.answer.run.priority is None,
            c.sentence.answer.run.priority or 0,
            c.sentence.answer.run.run_id,
            c.sentence.index,
            c.slot,
        ),
    )
    pair_of = pairs_for_citations(citations=kept)
    pool: dict[tuple[int, int], CampaignPair] = {}
    for c in kept:
        key = (c.sentence.answer.topic_id, pair_of[c.pk].pk)
        if key in pool:
            pool[key].citation_count += 1
        else:
            pool[key] = CampaignPair(
                campaign=campaign, pair=pair_of[c.pk], topic_id=key[0], context_citation=c, citation_count=1
            )
    return list(pool.values())


def campaign_pairs_create(*, campaign_pairs: Iterable[CampaignPair]) -> list[CampaignPair]:
    """Store a pool's rows, numbered in queue order within each (campaign, topic): by cited passage, then pair,
    so that the pairs citing one passage come one after the other. Each row needs `pair` set (for its passage);
    a (campaign, topic, pair) given twice is stored once."""
    rows: dict[tuple[int, int, int], CampaignPair] = {}
    for cp in campaign_pairs:
        rows.setdefault((cp.campaign_id, cp.topic_id, cp.pair_id), cp)
    ordered = sorted(rows.values(), key=lambda cp: (cp.campaign_id, cp.topic_id, cp.pair.passage_id, cp.pair_id))
    last: tuple[int, int] | None = None
    position = 0
    for cp in ordered:
        position = position + 1 if (cp.campaign_id, cp.topic_id) == last else 0
        last = (cp.campaign_id, cp.topic_id)
        cp.position = position
    return CampaignPair.objects.bulk_create(ordered, batch_size=2000)
