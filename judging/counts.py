"""How far an assignment is: pairs in its pool, pairs it has judged, and (post-edit) pairs held back for want
of an LLM label; per assignment for a list (`assignments_with_progress`, one query) and, for the judging page on
every keystroke, from the cache (`topic_counts`), bumped by the submit (`topic_counts_judged`). The pool is
`judging.pool`'s; how a share is shown, `judging.progress`."""

from __future__ import annotations

import contextlib
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.core.cache import cache
from django.db import connection
from django.db.models import Case, Count, Exists, IntegerField, OuterRef, Q, QuerySet, Subquery, When
from django.db.models.functions import Coalesce

from core.sql import aware
from judging.models import Assignment, CampaignPair, Condition, Judgment, SampleItem
from judging.pool import has_llm_label, judged_elsewhere, topic_pool
from judging.progress import Share


def _count(qs: QuerySet[Any]) -> Coalesce:
    return Coalesce(Subquery(qs.values("n"), output_field=IntegerField()), 0)


def assignments_with_progress(qs: QuerySet[Assignment]) -> QuerySet[Assignment]:
    """Annotates `total` (pairs in the topic's pool) and `done` (pairs this assignment has judged)."""
    total = (
        CampaignPair.objects.filter(campaign_id=OuterRef("campaign_id"), topic_id=OuterRef("topic_id"))
        .order_by()
        .values("campaign_id")
        .annotate(n=Count("pk"))
    )
    done = (
        Judgment.objects.filter(assignment_id=OuterRef("pk"))
        .order_by()
        .values("assignment_id")
        .annotate(n=Count("pair_id", distinct=True))
    )
    # An assignment that judges a sample counts only the sample's pairs of its topic (from scratch: less those
    # its assessor judged from scratch elsewhere), as `topic_pool`.
    drawn = SampleItem.objects.filter(sample_id=OuterRef("sample_id"), topic_id=OuterRef("topic_id"))
    fresh = drawn.exclude(
        judged_elsewhere(assessor=OuterRef(OuterRef("assessor_id")), assignment=OuterRef(OuterRef("pk")))
    )
    sample_total = Case(
        When(Q(condition=Condition.FROM_SCRATCH), then=_count(_counted(fresh, "sample_id"))),
        default=_count(_counted(drawn, "sample_id")),
    )
    topic_total = _count(total)
    return qs.annotate(total=Case(When(sample__isnull=True, then=topic_total), default=sample_total), done=_count(done))


def _counted(qs: QuerySet[Any], group: str) -> QuerySet[Any]:
    return qs.order_by().values(group).annotate(n=Count("pk"))


@dataclass(frozen=True)
class TopicCounts:
    progress: Share
    held_back: int


# The judging page's progress, kept in the cache: counting a topic's pool and this assignment's judgments on
# every keystroke was the largest part of a submit on a large topic. Judgments of an assignment are only
# added by `services.judgment_submit`, which bumps `done` (`topic_counts_judged`); the expiry bounds any
# drift (a lost increment when two tabs submit at once). Post-edit held-back pairs change as LLM labels
# arrive, so they are counted each time.
COUNTS_SECONDS = 300


def counts_keys(assignment_id: int, created_at: datetime) -> tuple[str, str]:
    """The cache keys of an assignment's (total, done) counts."""
    # The creation time too: a recreated database reuses primary keys, and the cache outlives it.
    stamp = f"{assignment_id}:{created_at.timestamp():.6f}"
    return f"judging:total:{stamp}", f"judging:done:{stamp}"


def _counts_keys(assignment: Assignment) -> tuple[str, str]:
    return counts_keys(assignment.pk, assignment.created_at)


def _counts_query(assignment: Assignment) -> tuple[int, int]:
    judged = Q(Exists(Judgment.objects.filter(assignment_id=assignment.pk, pair_id=OuterRef("pair_id"))))
    row = topic_pool(assignment).aggregate(total=Count("pk"), done=Count("pk", filter=judged))
    return row["total"], row["done"]


def _progress_many(stamps: list[tuple[int, datetime]], load: Callable[[int], Assignment]) -> dict[int, Share]:
    """Each assignment's (done, total), from the cache where it is, counted (and cached) where not. `stamps` are
    the assignments' (id, created_at); `load` gives the instance to count, needed only on a miss."""
    keys = {pk: counts_keys(pk, created_at) for pk, created_at in stamps}
    found = cache.get_many([k for pair in keys.values() for k in pair])
    out: dict[int, Share] = {}
    for pk, (total_key, done_key) in keys.items():
        if total_key in found and done_key in found:
            total, done = int(found[total_key]), int(found[done_key])
        else:
            total, done = _counts_query(load(pk))
            cache.set_many({total_key: total, done_key: done}, COUNTS_SECONDS)
        out[pk] = Share(done=min(done, total), total=total)
    return out


def topic_counts_forget(*, assignments: Iterable[Assignment]) -> None:
    """Their pools changed (a campaign rebuilt): the next read counts again."""
    cache.delete_many([key for a in assignments for key in _counts_keys(a)])


def topic_counts_judged(*, assignment: Assignment) -> None:
    """A pair of the assignment got its first judgment: one more done, if the count is cached."""
    # Not cached (or expired): nothing to bump, the next read counts.
    with contextlib.suppress(ValueError):
        cache.incr(_counts_keys(assignment)[1])


def topic_counts(*, assignment: Assignment) -> TopicCounts:
    """Pairs in the topic's pool, those this assignment has judged, and (post-edit) those held back."""
    progress = _progress_many([(assignment.pk, assignment.created_at)], lambda pk: assignment)
    return TopicCounts(progress=progress[assignment.pk], held_back=held_back_pending(assignment))


def held_back_pending(assignment: Assignment) -> int:
    if assignment.condition != Condition.POST_EDIT:
        return 0
    judged = Exists(Judgment.objects.filter(assignment_id=assignment.pk, pair_id=OuterRef("pair_id")))
    return topic_pool(assignment).filter(~Q(judged) & ~has_llm_label(assignment)).count()


def topic_progress(*, assignment: Assignment) -> Share:
    return topic_counts(assignment=assignment).progress


# An assignment read with its assessor's other assignments (`selectors.assessor_assignment_get`, on every
# keystroke) carries their (id, created_at) under this attribute, so the progress does not read them again.
ASSESSOR_STAMPS = "assessor_stamps"


def assessor_progress(assignment: Assignment) -> dict[int, Share]:
    """The progress of every assignment of this one's assessor: their ids and stamps (read with the assignment,
    or here in one query), the counts from the cache; an assignment is loaded only when its counts are not
    cached."""
    stamps: list[tuple[int, datetime]] | None = getattr(assignment, ASSESSOR_STAMPS, None)
    if stamps is None:
        with connection.cursor() as cur:
            cur.execute(
                "SELECT id, created_at FROM judging_assignment WHERE assessor_id = %s", [assignment.assessor_id]
            )
            stamps = [(pk, aware(created_at)) for pk, created_at in cur.fetchall()]

    def load(pk: int) -> Assignment:
        return assignment if pk == assignment.pk else Assignment.objects.only(*_PROGRESS_FIELDS).get(pk=pk)

    return _progress_many(stamps, load)


_PROGRESS_FIELDS = ["id", "campaign", "assessor", "topic", "condition", "created_at", "sample"]
