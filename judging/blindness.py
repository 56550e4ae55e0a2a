"""The blindness rules guarded at assignment (DESIGN §3), written once: every path that makes assignments (the
campaign page, the API, `manage.py assign`, the study's `study_assign`, the demo) goes through
`services.assignments_create`, which calls `assignments_check` (the assignment plan's preview asks
`candidates_violations` first, to skip whom a rule refuses); the campaign page lists with
`blindness_violations` the existing assignments that break them.

1. One assessor works one condition per topic, across campaigns that share pairs: someone who has seen the
   LLM's labels on a topic cannot judge it blind, and the reverse. An assessor with an assignment or judgments
   on topic T in one condition gets no assignment on T in another, in this campaign or in any campaign whose
   pool holds a pair of this campaign's pool on T. Adjudication is a condition too.
2. An adjudicator has not judged the topic in any condition (no judgment on a pair of the topic's pool other
   than under this very adjudication assignment) and is not one of the study's judges (a judge of either
   label set the study compares, which judging learns through `judging.samples`). An adjudication assignment
   made outside a study may later re-judge any study of its campaign, so it is held to all of them.
3. A post-edit assignment needs the campaign's post-edit label set: an LLM judge as `post_edit_judge`.

At card time (`card_shows_llm_label`): a card carries an LLM label only for a post-edit assignment (its
campaign's post-edit judge's), and never another person's label."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.contrib.auth.models import User
from django.db.models import Count, Exists, OuterRef

from assess.models import Topic
from judging.label_set_names import LabelSetError, LabelSetKind, LabelSetName
from judging.labels import label_set_get
from judging.models import Assignment, Campaign, CampaignPair, Condition, Judge, JudgeKind, Judgment
from judging.samples import SampleJudges, campaign_samples

ONE_CONDITION = "one_condition_per_topic"
ADJUDICATOR_JUDGED = "adjudicator_judged_topic"
ADJUDICATOR_IS_STUDY_JUDGE = "adjudicator_is_study_judge"
POST_EDIT_JUDGE = "post_edit_needs_llm_judge"


@dataclass(frozen=True)
class Violation:
    """One assignment (made, or asked for) that breaks a rule, and what it conflicts with."""

    rule: str
    assessor: str
    topic_id: str
    condition: str
    conflict: str
    message: str
    assignment_id: int | None = None  # None: refused before it was made


class BlindnessViolation(ValueError):
    """An assignment refused by a blindness rule; `message` names the assessor, the topic, the conflict and
    what to do, `violations` holds every one found."""

    def __init__(self, violations: Sequence[Violation]) -> None:
        self.violations = list(violations)
        more = len(self.violations) - 1
        self.message = self.violations[0].message + (f" (and {more} more)" if more else "")
        super().__init__(self.message)


def assignments_check(
    *,
    campaign: Campaign,
    assessor: User,
    topics: Iterable[Topic],
    condition: str,
    sample: SampleJudges | None = None,
) -> None:
    """Raise BlindnessViolation if giving `assessor` these topics of `campaign` under `condition` breaks a rule.

    `sample` is the sample (a study's) that an adjudication assignment is made to re-judge; without one, every
    sample of the campaign."""
    topics = list(topics)
    existing = {
        a.topic_id: a
        for a in Assignment.objects.filter(campaign=campaign, assessor=assessor, topic__in=topics, condition=condition)
    }
    candidates = []
    for topic in topics:
        assignment = existing.get(topic.pk) or Assignment(campaign=campaign, assessor=assessor, condition=condition)
        assignment.topic = topic
        assignment.assessor = assessor
        candidates.append(assignment)
    samples = [sample] if sample is not None else campaign_samples(campaign_id=campaign.pk)[0]
    found = _violations(campaign=campaign, candidates=[(a, samples) for a in candidates])
    if found:
        raise BlindnessViolation(found)


def candidates_violations(
    *, campaign: Campaign, condition: str, candidates: Iterable[tuple[User, Topic]]
) -> list[Violation]:
    """Every rule that giving each (assessor, topic) of `campaign` under `condition` would break, for many
    candidates at once and writing nothing: the assignment plan's preview (judging/planning) skips those."""
    samples = campaign_samples(campaign_id=campaign.pk)[0]
    rows = [
        (Assignment(campaign=campaign, assessor=user, topic=topic, condition=condition), samples)
        for user, topic in candidates
    ]
    return _violations(campaign=campaign, candidates=rows)


def blindness_violations(*, campaign: Campaign) -> list[Violation]:
    """The campaign's assignments that break a rule (made before a rule held, or through a rebuild that made
    two campaigns share pairs), by assessor and order."""
    assignments = list(
        Assignment.objects.filter(campaign=campaign)
        .select_related("assessor", "topic")
        .order_by("assessor__username", "order", "pk")
    )
    if not assignments:
        return []
    every, rejudged = campaign_samples(campaign_id=campaign.pk, assignment_ids=[a.pk for a in assignments])
    return _violations(campaign=campaign, candidates=[(a, rejudged.get(a.pk) or every) for a in assignments])


# --- at card time -------------------------------------------------------------------------------------


def card_shows_llm_label(assignment: Assignment) -> bool:
    """A card of this assignment shows an LLM label, its campaign's post-edit judge's (when the pair has one),
    pre-selected to post-edit: only a post-edit assignment does; every other one judges blind."""
    return assignment.condition == Condition.POST_EDIT


# --- the rules, over a batch of assignments --------------------------------------------------------


def _violations(*, campaign: Campaign, candidates: list[tuple[Assignment, list[SampleJudges]]]) -> list[Violation]:
    """Every rule broken by each candidate assignment of `campaign` (saved or not), in a fixed number of queries."""
    if not candidates:
        return []
    users = {a.assessor_id for a, _ in candidates}
    topic_pks = {a.topic_id for a, _ in candidates}
    judges = {j.user_id: j for j in Judge.objects.filter(user_id__in=users)}
    others = list(
        Assignment.objects.filter(assessor_id__in=users, topic_id__in=topic_pks)
        .select_related("campaign")
        .order_by("pk")
    )
    sharing = _campaigns_sharing_pairs(
        campaign=campaign, keys={(a.campaign_id, a.topic_id) for a in others if a.campaign_id != campaign.pk}
    )
    near: dict[tuple[int, int], list[Assignment]] = defaultdict(list)
    for other in others:
        if other.campaign_id == campaign.pk or (other.campaign_id, other.topic_id) in sharing:
            near[(other.assessor_id, other.topic_id)].append(other)
    judged = _judgments_on_pool(campaign=campaign, judge_ids={j.pk for j in judges.values()}, topic_pks=topic_pks)
    specs = {spec for _, samples in candidates for sample in samples for _, spec in sample.label_sets}
    named = {spec: _label_set_judge_ids(spec) for spec in sorted(specs)}
    found: list[Violation] = []
    for assignment, samples in candidates:
        judge = judges.get(assignment.assessor_id)
        found += _post_edit_violations(campaign=campaign, assignment=assignment)
        if judge is not None:
            found += _study_judge_violations(assignment=assignment, judge=judge, samples=samples, named=named)
        conflicting = [
            b for b in near[(assignment.assessor_id, assignment.topic_id)] if b.condition != assignment.condition
        ]
        found += [_assignment_conflict(campaign=campaign, assignment=assignment, other=b) for b in conflicting]
        if judge is not None:
            # Judgments under an assignment reported above, or under this very one, are not reported again.
            reported = {b.pk for b in conflicting} | ({assignment.pk} if assignment.pk is not None else set())
            found += [
                _judgment_conflict(campaign=campaign, assignment=assignment, condition=c, under=under, n=n)
                for c, under, n in judged.get((judge.pk, assignment.topic_id), [])
                if under not in reported and _judgments_conflict(assignment, c)
            ]
    return found


def _words(condition: str) -> str:
    return Condition(condition).label.lower() if condition in Condition.values else "no condition"


def _violation(assignment: Assignment, rule: str, conflict: str, message: str) -> Violation:
    return Violation(
        rule=rule,
        assessor=assignment.assessor.get_username(),
        topic_id=assignment.topic.topic_id,
        condition=assignment.condition,
        conflict=conflict,
        message=message,
        assignment_id=assignment.pk,
    )


def _post_edit_violations(*, campaign: Campaign, assignment: Assignment) -> list[Violation]:
    if assignment.condition != Condition.POST_EDIT:
        return []
    judge = campaign.post_edit_judge if campaign.post_edit_judge_id is not None else None
    if judge is not None and judge.kind == JudgeKind.LLM:
        return []
    if judge is None:
        problem = f"campaign {campaign.name} has no post-edit judge: set one before assigning post-edit"
    else:
        problem = (
            f"campaign {campaign.name}'s post-edit judge {judge.name} is not an LLM judge: set an LLM judge "
            "before assigning post-edit"
        )
    who = f"{assignment.assessor.get_username()}, topic {assignment.topic.topic_id}"
    return [_violation(assignment, POST_EDIT_JUDGE, "no LLM post-edit judge", f"{problem} ({who})")]


def _not_independent(assignment: Assignment, what: str) -> str:
    name, topic_id = assignment.assessor.get_username(), assignment.topic.topic_id
    return (
        f"{name} cannot adjudicate topic {topic_id}: {name} {what}, so is not independent. An adjudicator has "
        "not judged the topic and is none of the study's judges: choose another assessor."
    )


def _assignment_conflict(*, campaign: Campaign, assignment: Assignment, other: Assignment) -> Violation:
    where = f"assignment #{other.pk} in campaign {other.campaign.name}"
    if other.campaign_id != campaign.pk:
        where += f", which shares pairs with {campaign.name} on this topic"
    conflict = f"{_words(other.condition)} ({where})"
    if assignment.condition == Condition.ADJUDICATION:
        return _violation(
            assignment, ADJUDICATOR_JUDGED, conflict, _not_independent(assignment, f"also works it {conflict}")
        )
    name, topic_id, words = assignment.assessor.get_username(), assignment.topic.topic_id, _words(assignment.condition)
    return _violation(
        assignment,
        ONE_CONDITION,
        conflict,
        f"{name} cannot work topic {topic_id} {words} in campaign {campaign.name}: {name} already works it "
        f"{conflict}. One assessor works one condition per topic: give topic {topic_id} {words} to another "
        f"assessor, or remove assignment #{other.pk}.",
    )


def _judgments_conflict(assignment: Assignment, condition: str) -> bool:
    """An adjudicator's judgment on the topic in any condition; anyone else's in another known condition."""
    return assignment.condition == Condition.ADJUDICATION or condition not in ("", assignment.condition)


def _judgment_conflict(
    *, campaign: Campaign, assignment: Assignment, condition: str, under: int | None, n: int
) -> Violation:
    made = f"under assignment #{under}" if under is not None else "outside any assignment"
    conflict = f"{n} judgment(s) {_words(condition)} on this topic's pairs, {made}"
    if assignment.condition == Condition.ADJUDICATION:
        return _violation(assignment, ADJUDICATOR_JUDGED, conflict, _not_independent(assignment, f"has {conflict}"))
    name, topic_id, words = assignment.assessor.get_username(), assignment.topic.topic_id, _words(assignment.condition)
    return _violation(
        assignment,
        ONE_CONDITION,
        conflict,
        f"{name} cannot work topic {topic_id} {words} in campaign {campaign.name}: {name} has {conflict}. "
        f"One assessor works one condition per topic: give topic {topic_id} {words} to another assessor.",
    )


def _study_judge_violations(
    *, assignment: Assignment, judge: Judge, samples: list[SampleJudges], named: dict[str, frozenset[int]]
) -> list[Violation]:
    if assignment.condition != Condition.ADJUDICATION:
        return []
    found = []
    for sample in samples:
        for side, spec in sample.label_sets:
            name = LabelSetName.parse(spec)
            named_judge = name.kind == LabelSetKind.JUDGE and judge.name == name.name
            if named_judge or judge.pk in named.get(spec, frozenset()):
                conflict = f"in label set {side} ({spec}) of {sample.name}, one of the study's judges"
                found.append(
                    _violation(
                        assignment, ADJUDICATOR_IS_STUDY_JUDGE, conflict, _not_independent(assignment, f"is {conflict}")
                    )
                )
    return found


def _label_set_judge_ids(spec: str) -> frozenset[int]:
    """The judges a sample's label set names."""
    try:
        return frozenset(label_set_get(spec).judge_ids)
    except LabelSetError:  # a set that no longer resolves (its campaign or group is gone) names nobody
        return frozenset()


def _campaigns_sharing_pairs(*, campaign: Campaign, keys: set[tuple[int, int]]) -> set[tuple[int, int]]:
    """Those (other campaign, topic) whose pool on the topic holds at least one pair of `campaign`'s pool on it."""
    if not keys:
        return set()
    rows = (
        CampaignPair.objects.filter(campaign_id__in={c for c, _ in keys}, topic_id__in={t for _, t in keys})
        .filter(
            Exists(
                CampaignPair.objects.filter(
                    campaign=campaign, topic_id=OuterRef("topic_id"), pair_id=OuterRef("pair_id")
                )
            )
        )
        .values_list("campaign_id", "topic_id")
        .distinct()
    )
    return {key for key in rows if key in keys}


def _judgments_on_pool(
    *, campaign: Campaign, judge_ids: set[int], topic_pks: set[int]
) -> dict[tuple[int, int], list[tuple[str, int | None, int]]]:
    """Per (judge, topic): the judge's judgments on pairs of `campaign`'s pool on the topic, counted by
    (condition, assignment), whichever campaign they were made in."""
    if not judge_ids:
        return {}
    rows = (
        Judgment.objects.filter(
            judge_id__in=judge_ids,
            pair__campaign_pairs__campaign=campaign,
            pair__campaign_pairs__topic_id__in=topic_pks,
        )
        .values_list("judge_id", "pair__campaign_pairs__topic_id", "condition", "assignment_id")
        .annotate(n=Count("pk"))
        .order_by("assignment_id", "condition")
    )
    found: dict[tuple[int, int], list[tuple[str, int | None, int]]] = defaultdict(list)
    for judge_id, topic_pk, condition, assignment_id, n in rows:
        found[(judge_id, topic_pk)].append((condition, assignment_id, n))
    return found
