"""The review queue's reads: which pairs of a campaign need a reviewer, and all that the reviewer sees of one.

A pair is in the queue when, among the campaign's assessors' newest labels on it (every condition):
- `differ`: two assessors gave different labels;
- `llm`: an assessor's label differs from an LLM judge's newest label on the pair;
- `flagged`: an assessor flagged it;
- `cannot_judge`: an assessor recorded that they could not judge it (with a reason).
It stays in the queue once reviewed (marked reviewed); open items come first, by topic and queue position."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np

from judging.labels import citation_labels as labels_of
from judging.labels import label_set_final
from judging.llm.models import LLMJudge, LLMResult
from judging.llm.prompt import UnknownPromptVersion, citation_text, prompt_render
from judging.models import Campaign, CampaignPair, FinalLabel, JudgeKind, Judgment, Pair
from judging.vocabulary import SUPPORT

DIFFER = "differ"
LLM = "llm"
FLAGGED = "flagged"
CANNOT_JUDGE = "cannot_judge"
REASONS: dict[str, str] = {
    DIFFER: "assessors differ",
    LLM: "assessor vs LLM",
    FLAGGED: "flagged",
    CANNOT_JUDGE: "cannot judge",
}


@dataclass(frozen=True)
class ReviewItem:
    pair_id: int
    topic_id: str
    position: int
    reasons: tuple[str, ...]
    human_labels: tuple[str, ...]  # each assessor's newest label ("" for cannot judge), by assessor name
    llm_labels: tuple[str, ...]
    final_label: str  # "" while not reviewed

    @property
    def reviewed(self) -> bool:
        return bool(self.final_label)


@dataclass(frozen=True)
class AssessorLabel:
    assessor: str
    condition: str
    label: str  # "" when the assessor could not judge it
    seconds: float | None
    comment: str
    flagged: bool
    not_judged_reason: str
    shown_label: str
    created_at: datetime


@dataclass(frozen=True)
class LLMLabel:
    judge: str
    label: str
    raw_reply: str  # "" when none was recorded (an imported label)
    prompt: str  # "" when the judge's prompt is not known here (an imported label)
    prompt_version: str


@dataclass(frozen=True)
class HistoryEntry:
    reviewer: str
    created_at: datetime
    previous_label: str
    label: str
    reason: str
    current: bool


@dataclass
class ReviewDetail:
    campaign: Campaign
    item: ReviewItem
    pair: Pair
    topic_text: str
    assessors: list[AssessorLabel]
    llm: list[LLMLabel]
    history: list[HistoryEntry]
    set_label: str  # the pair's label in final/<campaign> now ("" none)
    reasons: list[str] = field(default_factory=list)


def _newest(rows: list[tuple[int, int, int]]) -> dict[tuple[int, int], int]:
    """(pk, judge, pair) rows -> (judge, pair) -> newest pk."""
    newest: dict[tuple[int, int], int] = {}
    for pk, judge, pair in rows:
        if pk > newest.get((judge, pair), 0):
            newest[(judge, pair)] = pk
    return newest


def review_queue(*, campaign: Campaign) -> list[ReviewItem]:
    """The campaign's pairs that need a reviewer: open ones first, then the reviewed, each by topic and position."""
    places: dict[int, tuple[str, int]] = {}
    for pair_id, topic_id, position in (
        CampaignPair.objects.filter(campaign=campaign)
        .order_by("topic__topic_id", "position")
        .values_list("pair_id", "topic__topic_id", "position")
    ):
        places.setdefault(pair_id, (topic_id, position))
    human = list(
        Judgment.objects.filter(assignment__campaign=campaign, judge__kind=JudgeKind.HUMAN).values_list(
            "pk", "judge_id", "pair_id", "label", "flagged", "judge__name"
        )
    )
    newest = set(_newest([(pk, j, p) for pk, j, p, *_ in human]).values())
    by_pair: dict[int, list[tuple[str, str, bool]]] = defaultdict(list)
    for pk, _judge, pair, label, flagged, name in human:
        if pk in newest and pair in places:
            by_pair[pair].append((name, label, flagged))
    llm_rows = list(
        Judgment.objects.filter(
            judge__kind=JudgeKind.LLM, pair_id__in=list(by_pair), pair__campaign_pairs__campaign=campaign
        )
        .distinct()
        .values_list("pk", "judge_id", "pair_id", "label")
    )
    llm_newest = set(_newest([(pk, j, p) for pk, j, p, _ in llm_rows]).values())
    llm_by_pair: dict[int, set[str]] = defaultdict(set)
    for pk, _judge, pair, label in llm_rows:
        if pk in llm_newest and label:
            llm_by_pair[pair].add(label)
    finals = dict(FinalLabel.objects.filter(campaign=campaign, current=True).values_list("pair_id", "label"))
    items = []
    for pair, labels in by_pair.items():
        given = {label for _, label, _ in labels if label}
        reasons = []
        if len(given) > 1:
            reasons.append(DIFFER)
        if given and llm_by_pair[pair] and (given | llm_by_pair[pair]) != given & llm_by_pair[pair]:
            reasons.append(LLM)
        if any(flagged for _, _, flagged in labels):
            reasons.append(FLAGGED)
        if any(not label for _, label, _ in labels):
            reasons.append(CANNOT_JUDGE)
        if not reasons and pair not in finals:
            continue
        topic_id, position = places[pair]
        items.append(
            ReviewItem(
                pair_id=pair,
                topic_id=topic_id,
                position=position,
                reasons=tuple(reasons),
                human_labels=tuple(label for _, label, _ in sorted(labels)),
                llm_labels=tuple(sorted(llm_by_pair[pair])),
                final_label=finals.get(pair, ""),
            )
        )
    items.sort(key=lambda i: (i.reviewed, i.topic_id, i.position))
    return items


def review_counts(items: list[ReviewItem]) -> dict[str, int]:
    """Open items by reason, and the open and reviewed totals."""
    counts = {reason: 0 for reason in REASONS}
    for item in items:
        if not item.reviewed:
            for reason in item.reasons:
                counts[reason] += 1
    counts["open"] = sum(1 for i in items if not i.reviewed)
    counts["reviewed"] = sum(1 for i in items if i.reviewed)
    return counts


def pair_history(*, campaign: Campaign, pair_id: int) -> list[HistoryEntry]:
    """Every final label the pair was given in the campaign, newest first."""
    return [
        HistoryEntry(name, created, previous, label, reason, current)
        for name, created, previous, label, reason, current in FinalLabel.objects.filter(
            campaign=campaign, pair_id=pair_id
        )
        .order_by("-pk")
        .values_list("reviewer__username", "created_at", "previous_label", "label", "reason", "current")
    ]


def final_set_label(*, campaign: Campaign, pair_id: int) -> str:
    """The pair's label in `final/<campaign>` now (the label rule of `judging.labels`), "" when it has none."""
    context = (
        CampaignPair.objects.filter(campaign=campaign, pair_id=pair_id)
        .order_by("pk")
        .values_list("context_citation_id", flat=True)
        .first()
    )
    if context is None:
        return ""
    labels = labels_of(label_set_final(campaign), citation_ids=np.array([context]), citation_pairs=np.array([pair_id]))
    return SUPPORT.name_of_code.get(int(labels.codes[0]), "")


def review_detail(*, campaign: Campaign, pair_id: int, items: list[ReviewItem] | None = None) -> ReviewDetail | None:
    """What the reviewer sees of one pair of the campaign; None when the pair is not in the campaign."""
    place = (
        CampaignPair.objects.filter(campaign=campaign, pair_id=pair_id)
        .select_related("pair__passage", "topic")
        .order_by("pk")
        .first()
    )
    if place is None:
        return None
    items = items if items is not None else review_queue(campaign=campaign)
    item = next((i for i in items if i.pair_id == pair_id), None) or ReviewItem(
        pair_id, place.topic.topic_id, place.position, (), (), (), ""
    )
    assessors = _assessor_labels(campaign=campaign, pair_id=pair_id)
    return ReviewDetail(
        campaign=campaign,
        item=item,
        pair=place.pair,
        topic_text=place.topic.text,
        assessors=assessors,
        llm=_llm_labels(pair=place.pair),
        history=pair_history(campaign=campaign, pair_id=pair_id),
        set_label=final_set_label(campaign=campaign, pair_id=pair_id),
        reasons=[REASONS[r] for r in item.reasons],
    )


def _assessor_labels(*, campaign: Campaign, pair_id: int) -> list[AssessorLabel]:
    judgments = list(
        Judgment.objects.filter(assignment__campaign=campaign, pair_id=pair_id, judge__kind=JudgeKind.HUMAN)
        .select_related("judge")
        .order_by("pk")
    )
    newest = {j.judge_id: j for j in judgments}
    return [
        AssessorLabel(
            assessor=j.judge.name,
            condition=j.condition,
            label=j.label,
            seconds=j.seconds,
            comment=j.comment,
            flagged=j.flagged,
            not_judged_reason=j.not_judged_reason,
            shown_label=j.shown_label,
            created_at=j.created_at,
        )
        for j in sorted(newest.values(), key=lambda j: j.judge.name)
    ]


def _llm_labels(*, pair: Pair) -> list[LLMLabel]:
    """Each LLM judge's newest label on the pair, with its raw reply and the prompt it was sent when the
    platform made the call (imported labels have neither)."""
    judgments = list(
        Judgment.objects.filter(pair=pair, judge__kind=JudgeKind.LLM).select_related("judge").order_by("pk")
    )
    newest = {j.judge_id: j for j in judgments}
    results = {
        r.judge_id: r
        for r in LLMResult.objects.filter(pair=pair, judge_id__in=list(newest)).order_by("updated_at", "pk")
    }
    versions = dict(LLMJudge.objects.filter(judge_id__in=list(newest)).values_list("judge_id", "prompt_version"))
    out = []
    for judge_id, j in sorted(newest.items(), key=lambda kv: kv[1].judge.name):
        result = results.get(judge_id)
        version = result.prompt_version if result is not None else versions.get(judge_id, "")
        prompt = ""
        if result is not None and version:
            try:
                prompt = prompt_render(version=version, statement=pair.text, citation=citation_text(pair.passage))
            except UnknownPromptVersion:
                prompt = ""
        out.append(
            LLMLabel(
                judge=j.judge.name,
                label=j.label,
                raw_reply=result.raw_output if result is not None else "",
                prompt=prompt,
                prompt_version=version,
            )
        )
    return out
