"""The review's one write: a reviewer sets a pair's final label, with a reason (issue 23, point 3)."""

from __future__ import annotations

from django.contrib.auth.models import User
from django.db import IntegrityError, transaction

from judging.models import Campaign, CampaignPair, FinalLabel, Label
from judging.review.access import review_refusal
from judging.review.selectors import final_set_label

MAX_REASON = 2000


class ReviewError(ValueError):
    """A final label refused: the message says why; nothing was written."""


class ReviewNotAllowed(PermissionError):
    """The user may not review this campaign."""


class ReviewConflict(ReviewError):
    """Another reviewer changed the pair's final label at the same moment: read it again."""


def final_label_set(*, campaign: Campaign, pair_id: int, label: str, reason: str, reviewer: User) -> FinalLabel:
    """Give the pair its final label in `final/<campaign>`: a new row naming who, when, the label it replaces
    (the pair's label in the set before) and why; the row it replaces stops being current."""
    refusal = review_refusal(reviewer, campaign)
    if refusal is not None:
        raise ReviewNotAllowed(refusal)
    if label not in Label.values:
        raise ReviewError(f"label {label!r}: expected FS, PS or NS")
    reason = (reason or "").strip()
    if not reason:
        raise ReviewError("give a reason for the final label")
    if len(reason) > MAX_REASON or "\x00" in reason:
        raise ReviewError(f"the reason must be at most {MAX_REASON} characters, without NUL")
    if not CampaignPair.objects.filter(campaign=campaign, pair_id=pair_id).exists():
        raise ReviewError(f"pair {pair_id} is not in campaign {campaign.name}")
    try:
        with transaction.atomic():
            previous = final_set_label(campaign=campaign, pair_id=pair_id)
            FinalLabel.objects.filter(campaign=campaign, pair_id=pair_id, current=True).update(current=False)
            return FinalLabel.objects.create(
                campaign=campaign,
                pair_id=pair_id,
                label=label,
                previous_label=previous,
                reason=reason,
                reviewer=reviewer,
                current=True,
            )
    except IntegrityError as exc:  # two reviewers at once: the constraint keeps one current label
        raise ReviewConflict(
            f"pair {pair_id}'s final label was changed by someone else at the same time: reload it"
        ) from exc
