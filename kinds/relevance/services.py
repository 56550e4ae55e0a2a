"""Writes of the relevance kind: a campaign's settings, an assessor's grade (once per submission token), and an
LLM judge's grades.

An LLM judge's grades are stored as `assess.models.Relevance` rows whose source is the judge's name, not as
RelevanceJudgment rows: a source's grades have one home, which the qrels import and export, the agreement and
the nDCG rankings read alike, whether UMBRELA's file or a judge run here made them."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from assess.models import Relevance
from judging.models import Assignment, AssignmentStatus, Campaign, Judge
from judging.services import assessor_judge, assignment_status_set
from kinds.relevance import selectors
from kinds.relevance.models import PoolKind, RelevanceItem, RelevanceJudgment, RelevanceSettings
from kinds.relevance.vocabulary import GRADES


class GradeRejected(Exception):
    """A grade that cannot be stored; the message says why (a 400 to the client)."""


@dataclass(frozen=True)
class GradeResult:
    judgment: RelevanceJudgment
    created: bool


def relevance_pool_set(
    *, campaign: Campaign, pool: str, pool_source: str = "", depth: int | None = None
) -> RelevanceSettings:
    """Store how the campaign's pool is built (made or replaced); ValueError for a pool it cannot build."""
    if pool not in PoolKind.values:
        raise ValueError(f"unknown pool {pool!r}; known: {', '.join(PoolKind.values)}")
    if pool == PoolKind.QRELS and not pool_source.strip():
        raise ValueError("a qrels pool needs its source (e.g. umbrela)")
    settings, _ = RelevanceSettings.objects.update_or_create(
        campaign=campaign,
        defaults={
            "pool": pool,
            "pool_source": pool_source.strip(),
            "depth": depth or RelevanceSettings._meta.get_field("depth").default,
        },
    )
    return settings


def grade_submit(
    *, assignment: Assignment, item_id: int, grade: int, token: uuid.UUID, seconds: float | None = None
) -> GradeResult:
    """Store an assessor's grade of an item once per token (a re-sent one is acknowledged, nothing more stored)
    with the grade the card showed (post-edit) and whether it changed; then set the assignment's status."""
    existing = RelevanceJudgment.objects.filter(submission_token=token).first()
    if existing is not None:
        if existing.assignment_id != assignment.pk:
            raise GradeRejected("this submission token belongs to another assignment")
        return GradeResult(existing, created=False)
    if grade not in GRADES:
        raise GradeRejected(f"unknown grade {grade!r}: give 0, 1, 2 or 3")
    if assignment.campaign.archived_at is not None:
        raise GradeRejected(f"campaign {assignment.campaign.name} is archived: it takes no more judgments")
    item = selectors.item_of_assignment(assignment, item_id)
    if item is None:
        raise GradeRejected("this item is not in the assignment")
    if not selectors.token_issued(assignment, item, token):
        raise GradeRejected("unknown submission token")
    shown = selectors.shown_grade(assignment, item)
    judgment = RelevanceJudgment(
        judge=assessor_judge(user=assignment.assessor),  # type: ignore[arg-type]
        item=item,
        assignment=assignment,
        condition=assignment.condition,
        grade=grade,
        shown_grade=shown,
        changed=None if shown is None else grade != shown,
        seconds=seconds,
        submission_token=token,
    )
    try:
        with transaction.atomic():
            judgment.save()
    except IntegrityError:  # a concurrent submit of the same token won
        return GradeResult(RelevanceJudgment.objects.get(submission_token=token), created=False)
    _status_refresh(assignment)
    return GradeResult(judgment, created=True)


def _status_refresh(assignment: Assignment) -> None:
    done = selectors.assignment_next_item(assignment) is None
    assignment_status_set(assignment, AssignmentStatus.DONE if done else AssignmentStatus.OPEN)


def llm_grades_store(judge: Judge, grades: dict[int, int]) -> int:
    """Store an LLM judge's grades of items ({item id: grade 0-3}) as the Relevance source named after the judge;
    a grade stored before for the same (topic, passage) is replaced. Returns how many were stored."""
    bad = {i: g for i, g in grades.items() if g not in GRADES}
    if bad:
        raise ValueError(f"grades out of 0-3: {bad}")
    items = RelevanceItem.objects.filter(pk__in=grades).values_list("pk", "topic__topic_id", "passage__passage_id")
    rows = [Relevance(source=judge.name, topic_id=t, passage_id=p, grade=grades[pk]) for pk, t, p in items]
    Relevance.objects.bulk_create(
        rows,
        update_conflicts=True,
        unique_fields=["source", "topic_id", "passage_id"],
        update_fields=["grade"],
    )
    return len(rows)
