"""Assignment by plan (issue 23, point 1): every topic of a campaign (or a seeded share of them) to K distinct
assessors in one condition, the load balanced by pairs (`balance.py` holds the rule). `assignment_plan` is the
preview and writes nothing; `assignment_plan_carry_out` makes it again under a lock and writes it through
`judging.services.assignments_create`, so the blindness guards hold on this path as on every other."""

from __future__ import annotations

import hashlib
import random
from collections import defaultdict
from dataclasses import dataclass, field

from django.contrib.auth.models import User
from django.db import transaction

from assess.models import Topic
from judging import services
from judging.blindness import BlindnessViolation, candidates_violations
from judging.models import Assignment, Campaign, Condition
from judging.planning.balance import Balance, load_ratio, plan_balance
from judging.planning.selectors import assignments_held, campaign_pace, pool_sizes

PLAN_CONDITIONS = (Condition.FROM_SCRATCH, Condition.POST_EDIT)


class PlanError(Exception):
    """The plan cannot be made or written; `message` is one line saying why. Nothing was written."""

    def __init__(self, message: str) -> None:
        super().__init__(message)
        self.message = message


@dataclass(frozen=True)
class AssessorLoad:
    assessor: str
    topics: int
    pairs: int
    new_topics: int
    new_pairs: int
    hours: float  # the pairs at the campaign's pace


@dataclass(frozen=True)
class NewAssignment:
    assessor: str
    topic_id: str
    pairs: int


@dataclass(frozen=True)
class Move:
    assignment_id: int
    topic_id: str
    from_assessor: str
    to_assessor: str
    pairs: int


@dataclass(frozen=True)
class Skip:
    """An assessor a blindness rule keeps off a topic."""

    assessor: str
    topic_id: str
    reason: str


@dataclass(frozen=True)
class Shortfall:
    topic_id: str
    wanted: int  # assessors the topic should have in the condition
    held: int  # it would have after the plan


@dataclass
class Plan:
    campaign: Campaign
    condition: str
    overlap: int
    overlap_share: float
    seed: int
    rebalance: bool
    topics: int  # topics with pairs
    topics_overlapped: int  # those that get `overlap` assessors (the others one)
    seconds_per_judgment: float
    seconds_measured: int  # timed judgments the pace is the median of; 0: the default
    loads: list[AssessorLoad] = field(default_factory=list)
    new: list[NewAssignment] = field(default_factory=list)
    moves: list[Move] = field(default_factory=list)
    skipped: list[Skip] = field(default_factory=list)
    short: list[Shortfall] = field(default_factory=list)
    ratio: float | None = None  # max / min pairs per assessor after the plan
    topics_without_pairs: int = 0

    @property
    def writes(self) -> int:
        return len(self.new) + len(self.moves)

    @property
    def fingerprint(self) -> str:
        """What the plan would write, in a few characters: a confirm carries the preview's, and a plan that has
        changed since (someone assigned or judged meanwhile) is not written."""
        parts = sorted(f"+{n.assessor}:{n.topic_id}" for n in self.new)
        parts += sorted(f"~{m.assignment_id}:{m.to_assessor}" for m in self.moves)
        return hashlib.sha256("|".join([self.condition, *parts]).encode()).hexdigest()[:16]

    def shortfall_line(self) -> str:
        """One line naming the first topic no eligible assessor can fill, and why the others are skipped."""
        first = self.short[0]
        why = "; ".join(f"{s.assessor}: {s.reason}" for s in self.skipped if s.topic_id == first.topic_id)
        more = f" (and {len(self.short) - 1} more topics)" if len(self.short) > 1 else ""
        return (
            f"topic {first.topic_id} needs {first.wanted} assessors {self.condition}, only {first.held} can have "
            f"it{' (' + why + ')' if why else ''}{more}"
        )


def assignment_plan(
    *,
    campaign: Campaign,
    assessors: list[User],
    condition: str,
    overlap: int,
    overlap_share: float = 1.0,
    seed: int = 0,
    rebalance: bool = False,
) -> Plan:
    """The plan, written nowhere. Raises PlanError for a request that cannot be planned."""
    assessors = _plan_request_checked(
        campaign=campaign, assessors=assessors, condition=condition, overlap=overlap, overlap_share=overlap_share
    )
    sizes = pool_sizes(campaign=campaign)
    topics = {t.pk: t for t in campaign.topics.filter(pk__in=sizes).order_by("topic_id")}
    if not topics:
        raise PlanError(f"campaign {campaign.name} has no pairs: build it first")
    overlapped = _overlapped_topics(topics=topics, share=overlap_share, seed=seed)
    wanted = {pk: overlap if pk in overlapped else 1 for pk in topics}
    listed = {a.pk for a in assessors}
    held = [h for h in assignments_held(campaign=campaign, condition=condition) if h.topic_id in topics]
    movable = [(h.topic_id, h.assessor_id) for h in held if rebalance and not h.touched and h.assessor_id in listed]
    fixed = [(h.topic_id, h.assessor_id) for h in held if (h.topic_id, h.assessor_id) not in set(movable)]
    holders: dict[int, set[int]] = defaultdict(set)
    for h in held:
        holders[h.topic_id].add(h.assessor_id)
    need = {pk: max(0, wanted[pk] - len(holders[pk])) for pk in topics}
    eligible, skipped = _eligibility(
        campaign=campaign, condition=condition, assessors=assessors, topics=topics, holders=holders
    )
    balance = plan_balance(
        assessors=[a.pk for a in assessors],
        sizes=sizes,
        need=need,
        fixed=fixed,
        movable=movable,
        eligible=eligible,
    )
    held_as = {(h.topic_id, h.assessor_id): h.assignment_id for h in held}
    pace = campaign_pace(campaign=campaign)
    plan = Plan(
        campaign=campaign,
        condition=condition,
        overlap=overlap,
        overlap_share=overlap_share,
        seed=seed,
        rebalance=rebalance,
        topics=len(topics),
        topics_overlapped=len(overlapped),
        seconds_per_judgment=pace.seconds,
        seconds_measured=pace.measured,
        skipped=skipped,
        ratio=load_ratio(balance.loads),
        topics_without_pairs=campaign.topics.exclude(pk__in=sizes).count(),
    )
    _plan_fill(plan=plan, balance=balance, topics=topics, assessors=assessors, held_as=held_as, wanted=wanted)
    return plan


def _plan_request_checked(
    *, campaign: Campaign, assessors: list[User], condition: str, overlap: int, overlap_share: float
) -> list[User]:
    """The assessors, each once; raises PlanError for a request that cannot be planned."""
    if campaign.is_archived:
        raise PlanError(f"campaign {campaign.name} is archived: restore it before assigning")
    if condition not in PLAN_CONDITIONS:
        raise PlanError(f"condition must be one of {', '.join(PLAN_CONDITIONS)}, not {condition!r}")
    assessors = list({a.pk: a for a in assessors}.values())
    if not assessors:
        raise PlanError("give at least one assessor")
    if overlap < 1:
        raise PlanError(f"--overlap must be at least 1, not {overlap}")
    if overlap > len(assessors):
        raise PlanError(f"--overlap {overlap} is more than the {len(assessors)} assessors given")
    if not 0.0 < overlap_share <= 1.0:
        raise PlanError(f"--overlap-share must be in (0, 1], not {overlap_share}")
    return assessors


def _plan_fill(
    *,
    plan: Plan,
    balance: Balance,
    topics: dict[int, Topic],
    assessors: list[User],
    held_as: dict[tuple[int, int], int],
    wanted: dict[int, int],
) -> None:
    """The balance, added to the plan: its new assignments and moves (in topic then assessor order), each
    assessor's load, and the topics left short."""
    names = {a.pk: a.get_username() for a in assessors}
    new_by: dict[int, list[tuple[int, int]]] = defaultdict(list)
    for slot in sorted(balance.slots, key=lambda s: (topics[s.topic].topic_id, names[s.assessor])):
        if slot.original is None:
            plan.new.append(NewAssignment(names[slot.assessor], topics[slot.topic].topic_id, slot.size))
            new_by[slot.assessor].append((slot.topic, slot.size))
        elif slot.moved:
            plan.moves.append(
                Move(
                    held_as[(slot.topic, slot.original)],
                    topics[slot.topic].topic_id,
                    names[slot.original],
                    names[slot.assessor],
                    slot.size,
                )
            )
            new_by[slot.assessor].append((slot.topic, slot.size))
    for a in assessors:
        pairs = balance.loads[a.pk]
        plan.loads.append(
            AssessorLoad(
                assessor=names[a.pk],
                topics=balance.topics[a.pk],
                pairs=pairs,
                new_topics=len(new_by[a.pk]),
                new_pairs=sum(size for _, size in new_by[a.pk]),
                hours=pairs * plan.seconds_per_judgment / 3600.0,
            )
        )
    for pk, n in sorted(balance.short.items(), key=lambda kv: topics[kv[0]].topic_id):
        plan.short.append(Shortfall(topic_id=topics[pk].topic_id, wanted=wanted[pk], held=wanted[pk] - n))


def _overlapped_topics(*, topics: dict[int, Topic], share: float, seed: int) -> set[int]:
    """The topics that get K assessors: all of them, or a share drawn with the seed (the same draw every run)."""
    if share >= 1.0:
        return set(topics)
    ordered = sorted(topics, key=lambda pk: topics[pk].topic_id)
    k = max(1, round(share * len(ordered)))
    return set(random.Random(seed).sample(ordered, k))


def _eligibility(
    *,
    campaign: Campaign,
    condition: str,
    assessors: list[User],
    topics: dict[int, Topic],
    holders: dict[int, set[int]],
) -> tuple[set[tuple[int, int]], list[Skip]]:
    """The (topic, assessor) that no blindness rule refuses, among those not on the topic yet; and the skipped
    ones with the rule's reason."""
    candidates = [(a, t) for t in topics.values() for a in assessors if a.pk not in holders[t.pk]]
    refused: dict[tuple[int, int], str] = {}
    by_name = {a.get_username(): a.pk for a in assessors}
    by_topic = {t.topic_id: t.pk for t in topics.values()}
    for v in candidates_violations(campaign=campaign, condition=condition, candidates=candidates):
        refused.setdefault((by_topic[v.topic_id], by_name[v.assessor]), v.conflict)
    eligible = {(t.pk, a.pk) for a, t in candidates if (t.pk, a.pk) not in refused}
    skipped = [
        Skip(assessor=a.get_username(), topic_id=t.topic_id, reason=refused[(t.pk, a.pk)])
        for a, t in candidates
        if (t.pk, a.pk) in refused
    ]
    return eligible, skipped


@transaction.atomic
def assignment_plan_carry_out(
    *,
    campaign: Campaign,
    assessors: list[User],
    condition: str,
    overlap: int,
    overlap_share: float = 1.0,
    seed: int = 0,
    rebalance: bool = False,
    fingerprint: str | None = None,
) -> Plan:
    """Make the plan again and write it: all of it or nothing (PlanError). With `fingerprint` (the preview's),
    a plan that differs from what was previewed is refused."""
    # One plan at a time per campaign: two at once would each count the other's topics as unfilled.
    Campaign.objects.select_for_update().filter(pk=campaign.pk).exists()
    plan = assignment_plan(
        campaign=campaign,
        assessors=assessors,
        condition=condition,
        overlap=overlap,
        overlap_share=overlap_share,
        seed=seed,
        rebalance=rebalance,
    )
    if plan.short:
        raise PlanError(f"nothing assigned: {plan.shortfall_line()}")
    if fingerprint is not None and fingerprint != plan.fingerprint:
        raise PlanError(
            "nothing assigned: the plan changed since its preview (an assignment or a judgment); preview it again"
        )
    users = {a.get_username(): a for a in assessors}
    topics = {t.topic_id: t for t in campaign.topics.all()}
    wanted: dict[str, list[Topic]] = defaultdict(list)
    for move in plan.moves:
        assignment = Assignment.objects.select_related("assessor", "topic").get(pk=move.assignment_id)
        try:
            services.assignment_remove(assignment=assignment)
        except services.AssignmentInUse as exc:
            raise PlanError(f"nothing assigned: {exc}") from None
        wanted[move.to_assessor].append(topics[move.topic_id])
    for new in plan.new:
        wanted[new.assessor].append(topics[new.topic_id])
    for name in sorted(wanted):
        try:
            services.assignments_create(
                campaign=campaign,
                assessor=users[name],
                topics=sorted(wanted[name], key=lambda t: t.topic_id),
                condition=condition,
            )
        except BlindnessViolation as violation:
            raise PlanError(f"nothing assigned: {violation.message}") from None
    return plan
