"""The sentence kind's writes: an assessor's answer to a card (both steps, once per token), and an LLM judge's
labels (condition "", what post-editing shows)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from dataclasses import dataclass

from django.db import IntegrityError, transaction

from judging.models import Assignment, AssignmentStatus, Judge
from judging.services import CampaignArchived, SubmissionRejected, assessor_judge, assignment_status_set

from . import selectors
from .models import SentenceJudgment
from .vocabulary import COMBINED


@dataclass(frozen=True)
class SentenceSubmit:
    judgment: SentenceJudgment
    created: bool


def _checked(assignment: Assignment, sentence_id: int, worthy: bool, combined: str) -> None:
    if assignment.campaign.archived_at is not None:
        raise SubmissionRejected(CampaignArchived(assignment.campaign).message)
    if not selectors.item_in_assignment(assignment, sentence_id):
        raise SubmissionRejected(f"sentence {sentence_id} is not in this assignment's pool")
    if combined and combined not in COMBINED.names:
        raise SubmissionRejected(f"combined support must be one of {', '.join(COMBINED.highest_first)}")
    if not worthy and combined:
        raise SubmissionRejected("a sentence that needs no citation takes no combined support label")
    cited = selectors.sentence_is_cited(sentence_id)
    if worthy and cited and not combined:
        raise SubmissionRejected("a cited sentence that needs a citation takes FS, PS or NS")
    if worthy and not cited and combined:
        raise SubmissionRejected("the sentence has no citation: its support cannot be judged")


def sentence_submit(
    *,
    assignment: Assignment,
    sentence_id: int,
    worthy: bool,
    combined: str,
    token: uuid.UUID,
    seconds: float | None = None,
) -> SentenceSubmit:
    """Store one card's answer per token (a repeat returns the first one stored) and set the assignment's status.
    Post-editing records the labels shown (the campaign's post_edit_judge's) and whether they changed."""
    existing = SentenceJudgment.objects.filter(submission_token=token).first()
    if existing is not None:
        return SentenceSubmit(existing, created=False)
    _checked(assignment, sentence_id, worthy, combined)
    judge = assessor_judge(user=assignment.assessor)
    shown = selectors.shown_labels(assignment, sentence_id)
    judgment = SentenceJudgment(
        judge=judge,
        sentence_id=sentence_id,
        campaign_id=assignment.campaign_id,
        assignment=assignment,
        condition=assignment.condition,
        worthy=worthy,
        combined=combined,
        shown_worthy=shown[0] if shown else None,
        shown_combined=shown[1] if shown else "",
        changed=(shown != (worthy, combined)) if shown else None,
        seconds=seconds,
        submission_token=token,
    )
    try:
        with transaction.atomic():
            judgment.save()
    except IntegrityError:
        return SentenceSubmit(SentenceJudgment.objects.get(submission_token=token), created=False)
    assignment_status_set(
        assignment, AssignmentStatus.OPEN if selectors.item_next(assignment, judge.pk) else AssignmentStatus.DONE
    )
    return SentenceSubmit(judgment, created=True)


@transaction.atomic
def llm_labels_store(judge: Judge, labels: Mapping[int, tuple[bool, str]]) -> int:
    """An LLM judge's (worthy, combined) per sentence id, as new rows in condition "" (the newest is its label).
    A combined label on a sentence that needs no citation is dropped (the database refuses it)."""
    rows = [
        SentenceJudgment(judge=judge, sentence_id=sid, worthy=worthy, combined=combined if worthy else "")
        for sid, (worthy, combined) in labels.items()
    ]
    SentenceJudgment.objects.bulk_create(rows)
    return len(rows)
