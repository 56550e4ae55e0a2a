"""Reads of the relevance kind: a campaign's settings, an assignment's next item and progress, the grade
post-editing shows, and the grades of a label set as qrels."""

from __future__ import annotations

from collections.abc import Sequence

from django.db.models import Count, Exists, OuterRef, QuerySet

from assess.models import Relevance
from judging.label_set_names import LabelSetError, LabelSetKind, LabelSetName
from judging.models import Assignment, Campaign, Condition, Judge
from judging.progress import Share
from judging.tokens import submission_token
from kinds.relevance.models import RelevanceItem, RelevanceJudgment, RelevanceSettings

Qrels = dict[tuple[str, str], int]  # (topic_id, passage_id) -> grade 0-3

LABEL_SET_HELP = (
    "a relevance label set is an imported or LLM source of grades (umbrela, nist-qrels, gpt-4o-umbrela) or a "
    "campaign's assessors in one condition (campaign:NAME/from_scratch, campaign:NAME/post_edit)"
)


def relevance_settings_of(campaign: Campaign) -> RelevanceSettings:
    """The campaign's relevance settings; unsaved defaults (top-k references, nothing shown) when it has none."""
    try:
        return campaign.relevance_settings  # type: ignore[no-any-return,attr-defined]
    except RelevanceSettings.DoesNotExist:
        return RelevanceSettings(campaign=campaign)


def _pending(assignment: Assignment) -> QuerySet[RelevanceItem]:
    done = RelevanceJudgment.objects.filter(assignment=assignment, item=OuterRef("pk"))
    return RelevanceItem.objects.filter(campaign_id=assignment.campaign_id, topic_id=assignment.topic_id).filter(
        ~Exists(done)
    )


def assignment_next_item(assignment: Assignment) -> RelevanceItem | None:
    """The first item of the assignment's topic, in queue order, that the assignment has not graded."""
    return _pending(assignment).select_related("topic", "passage").order_by("position", "pk").first()


def item_of_assignment(assignment: Assignment, item_id: int) -> RelevanceItem | None:
    """The item if it is in the assignment's campaign and topic, else None."""
    return (
        RelevanceItem.objects.filter(pk=item_id, campaign_id=assignment.campaign_id, topic_id=assignment.topic_id)
        .select_related("topic", "passage")
        .first()
    )


def item_token(assignment: Assignment, item: RelevanceItem) -> str:
    """The submission token of the assignment's next grade of the item (judging.tokens: derived, not random)."""
    nth = RelevanceJudgment.objects.filter(assignment=assignment, item=item).count()
    return str(submission_token(assignment_id=assignment.pk, pair_id=item.pk, nth=nth))


def token_issued(assignment: Assignment, item: RelevanceItem, token: object) -> bool:
    nth = RelevanceJudgment.objects.filter(assignment=assignment, item=item).count()
    return any(token == submission_token(assignment_id=assignment.pk, pair_id=item.pk, nth=k) for k in range(nth + 1))


def shown_grade(assignment: Assignment, item: RelevanceItem) -> int | None:
    """The grade the card shows: the post-edit source's, on a post-edit assignment only; never from scratch."""
    if assignment.condition != Condition.POST_EDIT:
        return None
    source = post_edit_source(assignment.campaign)
    if not source:
        return None
    return (
        Relevance.objects.filter(source=source, topic_id=item.topic.topic_id, passage_id=item.passage.passage_id)
        .values_list("grade", flat=True)
        .first()
    )


def post_edit_source(campaign: Campaign) -> str:
    """The Relevance source whose grades post-editing shows: the campaign's post-edit judge's name ("" none)."""
    judge_id = campaign.post_edit_judge_id  # type: ignore[attr-defined]
    if judge_id is None:
        return ""
    return Judge.objects.filter(pk=judge_id).values_list("name", flat=True).first() or ""


def items_progress(assignments: Sequence[Assignment]) -> dict[int, Share]:
    """Items graded of items to do, per assignment (its campaign's items of its topic)."""
    keys = {(a.campaign_id, a.topic_id) for a in assignments}
    totals = {
        (row["campaign_id"], row["topic_id"]): row["n"]
        for row in RelevanceItem.objects.filter(campaign_id__in={c for c, _ in keys}, topic_id__in={t for _, t in keys})
        .values("campaign_id", "topic_id")
        .annotate(n=Count("pk"))
    }
    done = dict(
        RelevanceJudgment.objects.filter(assignment__in=[a.pk for a in assignments])
        .values("assignment_id")
        .annotate(n=Count("item_id", distinct=True))
        .values_list("assignment_id", "n")
    )
    return {a.pk: Share(done=done.get(a.pk, 0), total=totals.get((a.campaign_id, a.topic_id), 0)) for a in assignments}


def relevance_sources() -> list[str]:
    """The sources of imported or LLM grades, by name."""
    return list(Relevance.objects.order_by("source").values_list("source", flat=True).distinct())


def label_set_qrels(spec: str) -> Qrels:
    """The grades a relevance label set names, as qrels. A source (`umbrela`) is its imported grades; a campaign
    set (`campaign:NAME/CONDITION`) is each item's newest grade by the campaign's assessors in that condition."""
    parsed = LabelSetName.parse(spec)
    if parsed.kind == LabelSetKind.CAMPAIGN and parsed.condition in (Condition.FROM_SCRATCH, Condition.POST_EDIT):
        return _campaign_qrels(parsed.name, parsed.condition)
    if parsed.kind == LabelSetKind.JUDGE and not parsed.condition:
        rows = Relevance.objects.filter(source=parsed.name).values_list("topic_id", "passage_id", "grade")
        qrels = {(t, p): g for t, p, g in rows}
        if not qrels:
            known = ", ".join(relevance_sources()) or "none imported"
            raise LabelSetError(f"no relevance grades of source {parsed.name!r} (sources: {known}); {LABEL_SET_HELP}")
        return qrels
    raise LabelSetError(f"{spec!r} is not a relevance label set: {LABEL_SET_HELP}")


def _campaign_qrels(name: str, condition: str) -> Qrels:
    campaign = Campaign.objects.filter(name=name, kind="relevance").first()
    if campaign is None:
        raise LabelSetError(f"no relevance campaign named {name!r}; {LABEL_SET_HELP}")
    rows = (
        RelevanceJudgment.objects.filter(item__campaign=campaign, condition=condition)
        .order_by("pk")
        .values_list("item__topic__topic_id", "item__passage__passage_id", "grade")
    )
    return {(t, p): g for t, p, g in rows}  # later rows overwrite: the newest grade of each item


def campaign_conditions(campaign: Campaign) -> list[str]:
    """The conditions the campaign's items have grades in (from scratch first)."""
    found = set(RelevanceJudgment.objects.filter(item__campaign=campaign).values_list("condition", flat=True))
    return [c for c in (Condition.FROM_SCRATCH, Condition.POST_EDIT) if c in found]


def source_iterations(source: str) -> dict[tuple[str, str], str]:
    """The second qrels column of a source's grades, as its file wrote it."""
    rows = Relevance.objects.filter(source=source).values_list("topic_id", "passage_id", "iteration")
    return {(t, p): i for t, p, i in rows}
