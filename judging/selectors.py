"""Reads for the judging work beside the queue (`judging.queue`): an assessor's assignments and judgments,
campaigns and their figures.

Blindness (DESIGN §3): nothing here returns another person's label to an assessor."""

from __future__ import annotations

import functools
import statistics
from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.contrib.auth.models import User
from django.db import connection
from django.db.models import (
    Count,
    Exists,
    IntegerField,
    Max,
    OuterRef,
    Q,
    QuerySet,
    Subquery,
)
from django.db.models.functions import Coalesce, TruncHour

from assess.importers.fields import group_of_run_id
from assess.models import Run, Topic
from core.sql import aware, columns, fields_of, from_row
from judging.counts import ASSESSOR_STAMPS, assignments_with_progress
from judging.guidelines import guidelines_version
from judging.models import (
    NOT_JUDGED,
    Assignment,
    Campaign,
    CampaignChoice,
    CampaignPair,
    Condition,
    GuidelinesReading,
    Judgment,
    Label,
)
from judging.progress import Share, percent_done
from judging.queue import LABEL_NAMES


def assessor_assignments(*, user: AbstractBaseUser) -> QuerySet[Assignment]:
    """The assessor's assignments in campaigns that are not archived (an archived one takes no judgment)."""
    mine = Assignment.objects.filter(assessor_id=user.pk, campaign__archived_at__isnull=True)
    return assignments_with_progress(mine.select_related("campaign", "topic")).order_by("order", "pk")


def assessor_assignment_get(*, user: AbstractBaseUser, assignment_id: int) -> Assignment | None:
    """The user's own assignment with its campaign and topic, or None (so another assessor's assignment is a 404).

    In plain SQL: it is read on every keystroke, and the ORM's select_related cost 2 ms of CPU here, more than
    the rest of a submit's reads together. Fields not read (the campaign's summary) are deferred, as with `only`.
    The same statement reads the id and creation time of each of the user's assignments, which the queue's
    overall progress needs (`ASSESSOR_STAMPS`): one query less on every keystroke."""
    with connection.cursor() as cur:
        cur.execute(_assignment_sql(), [assignment_id, assignment_id, user.pk])
        rows = cur.fetchall()
    n, m = len(_ASSIGNMENT_FIELDS), len(_ASSIGNMENT_FIELDS) + len(_CAMPAIGN_FIELDS)
    row = next((r for r in rows if r[0] == assignment_id), None)
    if row is None:
        return None
    assignment = from_row(Assignment, _ASSIGNMENT_FIELDS, row[:n])
    assignment.campaign = from_row(Campaign, _CAMPAIGN_FIELDS, row[n:m])
    assignment.topic = from_row(Topic, _TOPIC_FIELDS, row[m:])
    assignment.assessor = user  # type: ignore[assignment]
    at = [f.attname for f in _ASSIGNMENT_FIELDS].index("created_at")
    setattr(assignment, ASSESSOR_STAMPS, [(r[0], aware(r[at])) for r in rows])
    return assignment


_ASSIGNMENT_FIELDS = fields_of(
    Assignment,
    ["id", "campaign_id", "assessor_id", "topic_id", "condition", "order", "status", "created_at", "sample_id"],
)
_CAMPAIGN_FIELDS = fields_of(
    Campaign,
    [
        "id",
        "name",
        "kind",
        "depth",
        "guidelines",
        "post_edit_judge_id",
        "highlight_evidence",
        "queue_order",
        "archived_at",
    ],
)
_TOPIC_FIELDS = fields_of(Topic, ["id", "topic_id", "text"])


@functools.cache
def _assignment_sql() -> str:
    # Every assignment of the user, the campaign and topic only on the one asked for.
    cols = columns("a", _ASSIGNMENT_FIELDS) + columns("c", _CAMPAIGN_FIELDS) + columns("t", _TOPIC_FIELDS)
    return (
        f"SELECT {', '.join(cols)} FROM judging_assignment a"
        " LEFT JOIN judging_campaign c ON c.id = a.campaign_id AND a.id = %s"
        " LEFT JOIN assess_topic t ON t.id = a.topic_id AND a.id = %s WHERE a.assessor_id = %s"
    )


@dataclass(frozen=True)
class JudgedPair:
    pair_id: int
    label: str  # the assignment's newest judgment of the pair ("" = cannot judge)
    flagged: bool
    judged_at: datetime
    times: int  # how many judgments the assignment made of the pair
    passage_id: str
    sentence: str
    assignment_id: int = 0
    topic_id: str = ""
    not_judged_reason: str = ""

    @property
    def label_name(self) -> str:
        return LABEL_NAMES.get(self.label, "Cannot judge")


class JudgedLabel(StrEnum):
    """The "My judgments" label filter: a label, or cannot judge."""

    FULL = Label.FULL.value
    PARTIAL = Label.PARTIAL.value
    NONE = Label.NONE.value
    CANNOT_JUDGE = "NJ"


def judged_pairs_query(
    *, assignments: Iterable[Assignment], label: JudgedLabel | None = None, flagged: bool = False
) -> QuerySet[Judgment]:
    """The newest judgment of each pair these assignments (one assessor's) have judged, newest first, annotated
    with `times` (judgments of the pair by its assignment); only those with `label` (or cannot judge), only the
    flagged ones if `flagged`. The assessor's own list to jump back to (never anyone else's labels)."""
    ids = [a.pk for a in assignments]
    newer = Judgment.objects.filter(
        assignment_id=OuterRef("assignment_id"), pair_id=OuterRef("pair_id"), pk__gt=OuterRef("pk")
    )
    times = (
        Judgment.objects.filter(assignment_id=OuterRef("assignment_id"), pair_id=OuterRef("pair_id"))
        .order_by()
        .values("assignment_id")
        .annotate(n=Count("pk"))
        .values("n")
    )
    qs = Judgment.objects.filter(assignment_id__in=ids).filter(~Exists(newer))
    if label == JudgedLabel.CANNOT_JUDGE:
        qs = qs.filter(label=NOT_JUDGED)
    elif label is not None:
        qs = qs.filter(label=label.value)
    if flagged:
        qs = qs.filter(flagged=True)
    return (
        qs.annotate(times=Subquery(times, output_field=IntegerField()))
        .select_related("pair__passage", "citation__sentence", "assignment__topic")
        .order_by("-pk")
    )


def judged_pair_rows(judgments: Iterable[Judgment]) -> list[JudgedPair]:
    """The rows "My judgments" shows, from `judged_pairs_query`'s judgments."""
    return [
        JudgedPair(
            pair_id=j.pair_id,
            label=j.label,
            flagged=j.flagged,
            judged_at=j.created_at,
            times=j.times,  # type: ignore[attr-defined]
            passage_id=j.pair.passage.passage_id,
            sentence=j.citation.sentence.text if j.citation is not None else "",
            assignment_id=j.assignment_id or 0,
            topic_id=j.assignment.topic.topic_id if j.assignment is not None else "",
            not_judged_reason=j.not_judged_reason,
        )
        for j in judgments
    ]


def judged_by(*, assignment: Assignment, pair_id: int) -> bool:
    """Whether this assignment has judged the pair."""
    return Judgment.objects.filter(assignment_id=assignment.pk, pair_id=pair_id).exists()


def judged_pairs(*, assignment: Assignment) -> list[JudgedPair]:
    """The pairs this assignment has judged, newest first, each with its newest judgment."""
    return judged_pair_rows(judged_pairs_query(assignments=[assignment]))


def assessor_judgments(*, user: AbstractBaseUser) -> QuerySet[Judgment]:
    """The user's own judgments, and nothing else."""
    return Judgment.objects.filter(judge__user_id=user.pk).select_related("assignment", "pair__passage").order_by("-pk")


def guidelines_unread(*, campaign: Campaign, user: AbstractBaseUser) -> bool:
    """Whether the campaign's guidelines, as they stand, are to be shown to this assessor at the start: they
    have not closed them yet, or the guidelines changed since."""
    if not campaign.guidelines.strip():
        return False
    version = guidelines_version(campaign.guidelines)
    return not GuidelinesReading.objects.filter(campaign_id=campaign.pk, assessor_id=user.pk, version=version).exists()


# --- campaigns (organizers) -----------------------------------------------------------------------


def run_group(run: Run) -> str:
    """A run's group (team): its `group`, else what its id names before the first '.' (TREC's `group.run`),
    else the run on its own."""
    return run.group or group_of_run_id(run.run_id) or run.run_id


def run_ranks_in_group(*, runs: Iterable[Run]) -> dict[int, tuple[str, int]]:
    """Each run's (group, rank within its group): rank 1 is the group's highest priority (priority 1 first; runs
    without a priority last; then by run id). The one home of "the top N runs per group"."""
    by_group: dict[str, list[Run]] = {}
    for run in runs:
        by_group.setdefault(run_group(run), []).append(run)
    ranks: dict[int, tuple[str, int]] = {}
    for group, group_runs in by_group.items():
        group_runs.sort(key=lambda r: (r.priority is None, r.priority or 0, r.run_id))
        for k, run in enumerate(group_runs, start=1):
            ranks[run.pk] = (group, k)
    return ranks


def runs_top_per_group(*, runs: Iterable[Run], n: int) -> list[Run]:
    """The `n` highest-priority runs of each group (`run_ranks_in_group`), by run id."""
    runs = list(runs)
    ranks = run_ranks_in_group(runs=runs)
    return sorted((r for r in runs if ranks[r.pk][1] <= n), key=lambda r: r.run_id)


def _count_of(qs: QuerySet[Any], key: str, counted: str = "pk", *, distinct: bool = False) -> Coalesce:
    rows = qs.order_by().values(key).annotate(n=Count(counted, distinct=distinct)).values("n")
    return Coalesce(Subquery(rows, output_field=IntegerField()), 0)


def campaign_list(*, archived: bool = False) -> list[Campaign]:
    """The campaigns with their progress, in one query (a subquery per figure, so no join multiplies another):
    `n_runs`, `n_topics`, `n_pairs` (the pool's pairs), `n_judged` (pool pairs that an assignment of the
    campaign on their topic has judged, "cannot judge" included: the queue's notion of done), `percent_done`
    (of the pairs, `judging.progress.percent_done`: None for an empty pool), `n_assessors`, `n_assignments` and
    `last_judged` (the newest judgment made in the campaign's assignments). The archived campaigns are left
    out, or (`archived`) are the only ones."""
    pk = OuterRef("pk")
    pairs = CampaignPair.objects.filter(campaign_id=pk)
    judged_here = Judgment.objects.filter(
        assignment__campaign_id=OuterRef("campaign_id"),
        assignment__topic_id=OuterRef("topic_id"),
        pair_id=OuterRef("pair_id"),
    )
    assignments = Assignment.objects.filter(campaign_id=pk)
    newest = Judgment.objects.filter(assignment__campaign_id=pk).order_by().values("assignment__campaign_id")
    qs = (
        Campaign.objects.select_related("post_edit_judge")
        .filter(archived_at__isnull=not archived)
        .annotate(
            n_runs=_count_of(Campaign.runs.through.objects.filter(campaign_id=pk), "campaign_id"),
            n_topics=_count_of(Campaign.topics.through.objects.filter(campaign_id=pk), "campaign_id"),
            n_pairs=_count_of(pairs, "campaign_id"),
            n_judged=_count_of(pairs.filter(Exists(judged_here)), "campaign_id"),
            n_assessors=_count_of(assignments, "campaign_id", "assessor_id", distinct=True),
            n_assignments=_count_of(assignments, "campaign_id"),
            last_judged=Subquery(newest.annotate(t=Max("created_at")).values("t")),
        )
    )
    campaigns: list[Campaign] = list(qs)
    for c in campaigns:
        c.percent_done = percent_done(c.n_judged, c.n_pairs)  # type: ignore[attr-defined]  # beside the annotations
    return campaigns


@dataclass(frozen=True)
class ConditionProgress:
    condition: str
    name: str  # "From scratch"
    share: Share


@dataclass(frozen=True)
class CampaignProgress:
    """A campaign's progress, per condition and never added across conditions: from scratch and post-edit
    always (a condition nobody was given is "—"), adjudication where it has assignments."""

    pairs: int
    conditions: tuple[ConditionProgress, ...]

    def of(self, condition: str) -> Share | None:
        return next((c.share for c in self.conditions if c.condition == condition), None)


def campaigns_progress(*, campaign_ids: Iterable[int]) -> dict[int, CampaignProgress]:
    """The one home of a campaign's progress (list, campaign page, API), in two queries for any number of
    campaigns. Per condition: the pairs its assignments have judged ("cannot judge" included, the queue's
    notion of done) of the pairs they hold (a topic's pool, or a study's sample), summed over the condition's
    assignments. A campaign without pairs has nothing to do: every condition is "—"."""
    ids = list(campaign_ids)
    pairs = dict(
        CampaignPair.objects.filter(campaign_id__in=ids)
        .order_by()
        .values("campaign_id")
        .annotate(n=Count("pk"))
        .values_list("campaign_id", "n")
    )
    sums: dict[tuple[int, str], list[int]] = {}
    rows = assignments_with_progress(Assignment.objects.filter(campaign_id__in=ids))
    for campaign_id, condition, done, total in rows.values_list(  # type: ignore[misc]  # annotated above
        "campaign_id", "condition", "done", "total"
    ):
        entry = sums.setdefault((campaign_id, condition), [0, 0])
        entry[0] += done
        entry[1] += total
    names = dict(Condition.choices)
    result = {}
    for campaign_id in ids:
        n_pairs = pairs.get(campaign_id, 0)
        shown = [Condition.FROM_SCRATCH, Condition.POST_EDIT]
        if (campaign_id, Condition.ADJUDICATION) in sums:
            shown.append(Condition.ADJUDICATION)
        conditions = []
        for condition in shown:
            done, total = sums.get((campaign_id, condition), (0, 0)) if n_pairs else (0, 0)
            conditions.append(ConditionProgress(condition, names[condition], Share(done, total)))
        result[campaign_id] = CampaignProgress(pairs=n_pairs, conditions=tuple(conditions))
    return result


def campaign_progress(*, campaign: Campaign) -> CampaignProgress:
    return campaigns_progress(campaign_ids=[campaign.pk])[campaign.pk]


def campaign_get(*, campaign_id: int) -> Campaign | None:
    return Campaign.objects.select_related("post_edit_judge").filter(pk=campaign_id).first()


def campaign_assignments(*, campaign: Campaign) -> QuerySet[Assignment]:
    return assignments_with_progress(
        Assignment.objects.filter(campaign=campaign).select_related("assessor", "topic")
    ).order_by("assessor__username", "order", "pk")


@dataclass(frozen=True)
class CampaignFigures:
    judgments: int
    median_seconds: float | None
    per_hour: list[tuple[Any, int]]
    flags: list[Judgment]


def campaign_figures(*, campaign: Campaign, hours: int = 24) -> CampaignFigures:
    """Human judgments made in the campaign's assignments: count, median seconds, judgments per hour
    (the latest `hours` hours that had any), and the flags to review."""
    qs = Judgment.objects.filter(assignment__campaign=campaign)
    seconds = [s for s in qs.filter(seconds__isnull=False).values_list("seconds", flat=True) if s is not None]
    per_hour = list(
        qs.annotate(hour=TruncHour("created_at")).values("hour").annotate(n=Count("pk")).order_by("-hour")[:hours]
    )
    flags = list(campaign_flags(campaign=campaign, state=FlagState.OPEN)[:200])
    return CampaignFigures(
        judgments=qs.count(),
        median_seconds=statistics.median(seconds) if seconds else None,
        per_hour=[(row["hour"], row["n"]) for row in reversed(per_hour)],
        flags=flags,
    )


def assessor_list() -> QuerySet[User]:
    """The assessors (users who are not organizers), with their assignments (all, open) and judgments."""
    judged = Judgment.objects.filter(judge__user=OuterRef("pk")).order_by().values("judge__user")
    return (
        User.objects.filter(is_staff=False)
        .annotate(
            n_assignments=Count("assignments", distinct=True),
            n_open=Count("assignments", filter=Q(assignments__status="open"), distinct=True),
            n_judgments=Coalesce(Subquery(judged.annotate(n=Count("pk")).values("n")), 0),
            last_judged=Subquery(judged.annotate(t=Max("created_at")).values("t")),
        )
        .order_by("username")
    )


def assessor_get(*, user_id: int) -> User | None:
    """An assessor (never an organizer: this page does not manage staff accounts), or None."""
    return User.objects.filter(pk=user_id, is_staff=False).first()


class FlagState(StrEnum):
    OPEN = "open"  # the newest judgment of its assessor on the pair, flagged, not yet resolved
    RESOLVED = "resolved"  # an organizer answered it (FlagReview)
    WITHDRAWN = "withdrawn"  # the assessor judged the pair again without the flag


def campaign_flags(*, campaign: Campaign, state: FlagState | None = None) -> QuerySet[Judgment]:
    """The campaign's flagged judgments (newest first) with what the review page shows, annotated with
    `withdrawn`; only those in `state` if given."""
    newer = Judgment.objects.filter(
        assignment_id=OuterRef("assignment_id"), pair_id=OuterRef("pair_id"), pk__gt=OuterRef("pk")
    )
    qs = (
        Judgment.objects.filter(assignment__campaign=campaign, flagged=True)
        .annotate(withdrawn=Exists(newer.filter(flagged=False)))
        .select_related(
            "judge", "assignment__topic", "pair__passage", "citation__sentence__answer__run", "flag_review__resolved_by"
        )
        .order_by("-pk")
    )
    if state == FlagState.OPEN:
        return qs.filter(withdrawn=False, flag_review__isnull=True)
    if state == FlagState.RESOLVED:
        return qs.filter(flag_review__isnull=False)
    if state == FlagState.WITHDRAWN:
        return qs.filter(withdrawn=True, flag_review__isnull=True)
    return qs


def flag_state(judgment: Judgment) -> FlagState:
    """The state of a judgment from `campaign_flags`."""
    if hasattr(judgment, "flag_review"):
        return FlagState.RESOLVED
    return FlagState.WITHDRAWN if getattr(judgment, "withdrawn", False) else FlagState.OPEN


class NoChoice:
    """The organizer has not chosen a campaign yet (unlike choosing everything loaded, which is None)."""


NO_CHOICE = NoChoice()


def campaign_choice_last(*, user: AbstractBaseUser) -> Campaign | NoChoice | None:
    """The campaign `user` chose last (None: everything loaded), or NO_CHOICE when they never chose."""
    row = CampaignChoice.objects.select_related("campaign").filter(user_id=user.pk).first()
    return NO_CHOICE if row is None else row.campaign


def campaign_cannot_judge(*, campaign: Campaign) -> QuerySet[Judgment]:
    """The campaign's "cannot judge" answers that stand (the assessor's newest judgment of the pair), newest
    first, with what the organizer's list shows: who, which topic and pair, the reason."""
    newer = Judgment.objects.filter(
        assignment_id=OuterRef("assignment_id"), pair_id=OuterRef("pair_id"), pk__gt=OuterRef("pk")
    )
    return (
        Judgment.objects.filter(assignment__campaign=campaign, label=NOT_JUDGED)
        .filter(~Exists(newer))
        .select_related("judge", "assignment__topic", "pair__passage", "citation__sentence__answer__run")
        .order_by("-pk")
    )


def cannot_judge_reasons(*, judgments: QuerySet[Judgment]) -> list[tuple[str, int]]:
    """How often each reason was given among `judgments`, the most frequent first."""
    rows = judgments.order_by().values("not_judged_reason").annotate(n=Count("pk")).order_by("-n", "not_judged_reason")
    return [(r["not_judged_reason"], r["n"]) for r in rows]
