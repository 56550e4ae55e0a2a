"""What the assignment plan reads: the pool's size per topic, the assignments held in a condition, and the
campaign's measured seconds per judgment."""

from __future__ import annotations

from dataclasses import dataclass

from django.db.models import Count, Exists, OuterRef

from judging.models import Assignment, Campaign, CampaignPair, Judgment

# Seconds per judgment assumed before the campaign has any timed judgment (the estimate of the plan's hours).
DEFAULT_SECONDS_PER_JUDGMENT = 30.0


@dataclass(frozen=True)
class Held:
    """An assignment of the campaign in the plan's condition."""

    assignment_id: int
    assessor_id: int
    topic_id: int
    touched: bool  # it has a judgment: it never moves


def pool_sizes(*, campaign: Campaign) -> dict[int, int]:
    """Pairs in the campaign's pool per topic (topic pk), for the topics that have any."""
    rows = CampaignPair.objects.filter(campaign=campaign).values("topic_id").annotate(n=Count("pk")).order_by()
    return {row["topic_id"]: row["n"] for row in rows}


def assignments_held(*, campaign: Campaign, condition: str) -> list[Held]:
    judged = Judgment.objects.filter(assignment_id=OuterRef("pk"))
    rows = (
        Assignment.objects.filter(campaign=campaign, condition=condition)
        .annotate(touched=Exists(judged))
        .values_list("pk", "assessor_id", "topic_id", "touched")
        .order_by("pk")
    )
    return [Held(assignment_id=pk, assessor_id=a, topic_id=t, touched=bool(touched)) for pk, a, t, touched in rows]


@dataclass(frozen=True)
class Pace:
    seconds: float  # per judgment
    measured: int  # the timed judgments it is the median of; 0: the default


def campaign_pace(*, campaign: Campaign) -> Pace:
    """The median seconds of the campaign's timed human judgments, or the default before there is any. Read as
    the middle row(s) in order, so a large campaign's seconds are not all loaded."""
    timed = Judgment.objects.filter(assignment__campaign=campaign, seconds__isnull=False)
    n = timed.count()
    if not n:
        return Pace(seconds=DEFAULT_SECONDS_PER_JUDGMENT, measured=0)
    middle = list(timed.order_by("seconds").values_list("seconds", flat=True)[(n - 1) // 2 : n // 2 + 1])
    return Pace(seconds=sum(s for s in middle if s is not None) / len(middle), measured=n)
