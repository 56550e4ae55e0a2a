"""Writes for the judging work: pairs, judges, campaigns, assignments, judgments (DESIGN §2-3)."""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass
from typing import Any

from django.contrib.auth.models import User
from django.db import IntegrityError, connection, transaction
from django.db.models import Max
from django.utils import timezone

from assess.models import Topic
from judging import blindness, queue
from judging.counts import topic_counts_forget, topic_counts_judged
from judging.guidelines import guidelines_version
from judging.models import (
    NOT_JUDGED,
    Assignment,
    AssignmentStatus,
    Campaign,
    CampaignChoice,
    Condition,
    FlagReview,
    GuidelinesReading,
    Judge,
    JudgeKind,
    Judgment,
    Label,
    QueueOrder,
)
from judging.queue import QueueState, SubmissionContext, submission_context
from judging.samples import SampleJudges
from judging.tokens import submission_token


def judge_get_or_create(*, name: str, kind: str = JudgeKind.HUMAN) -> Judge:
    judge, _ = Judge.objects.get_or_create(name=name, defaults={"kind": kind})
    return judge


# --- assessors and assignments ------------------------------------------------------------------


def assessor_judge(*, user: User) -> Judge:
    """The human Judge of a user, created on first use (named after the user)."""
    judge = Judge.objects.filter(user=user).first()
    if judge is not None:
        return judge
    username = user.get_username()
    name = username if not Judge.objects.filter(name=username).exists() else f"user:{username}"
    try:
        with transaction.atomic():
            return Judge.objects.create(name=name, kind=JudgeKind.HUMAN, user=user)
    except IntegrityError:
        return Judge.objects.get(user=user)


@transaction.atomic
def assessor_create(*, username: str, password: str) -> User:
    user = User.objects.create_user(username=username, password=password)
    assessor_judge(user=user)
    return user


class CampaignArchived(ValueError):
    """The campaign is archived: read-only, so no new assignment or judgment (restore it first)."""

    def __init__(self, campaign: Campaign) -> None:
        self.message = f"campaign {campaign.name} is archived: it takes no new assignments or judgments (restore it)"
        super().__init__(self.message)


class AssignmentInUse(Exception):
    """The assignment has judgments: it stays (history is never deleted)."""


@transaction.atomic
def assignment_remove(*, assignment: Assignment) -> None:
    """Remove an assignment nobody has judged in yet; one with judgments is refused (AssignmentInUse)."""
    n = Judgment.objects.filter(assignment=assignment).count()
    if n:
        raise AssignmentInUse(
            f"{assignment.assessor.username}'s assignment on topic {assignment.topic.topic_id} has {n} judgment(s):"
            " it stays. Deactivate the assessor, or leave it open."
        )
    topic_counts_forget(assignments=[assignment])
    assignment.delete()


@transaction.atomic
def assignment_move(*, assignment: Assignment, step: int) -> None:
    """Move an assignment `step` places (-1 earlier, +1 later) in its assessor's order, the order their queue
    page offers topics in; the assessor's assignments are renumbered 0, 1, 2, ... on the way."""
    list(User.objects.select_for_update().filter(pk=assignment.assessor_id).values_list("pk", flat=True))
    mine = list(Assignment.objects.filter(assessor_id=assignment.assessor_id).order_by("order", "pk"))
    at = next(k for k, a in enumerate(mine) if a.pk == assignment.pk)
    to = min(max(at + step, 0), len(mine) - 1)
    mine.insert(to, mine.pop(at))
    for k, a in enumerate(mine):
        if a.order != k:
            a.order = k
            a.save(update_fields=["order"])


def assessor_active_set(*, assessor: User, active: bool) -> User:
    """Let an assessor log in, or not. Their judgments and assignments stay; a deactivated assessor's sessions
    stop working at once (Django's authentication refuses inactive users)."""
    if assessor.is_active != active:
        assessor.is_active = active
        assessor.save(update_fields=["is_active"])
    return assessor


def assessor_password_set(*, assessor: User, password: str) -> User:
    """A new password chosen by an organizer; the assessor's open sessions end (Django's session hash)."""
    assessor.set_password(password)
    assessor.save(update_fields=["password"])
    return assessor


@transaction.atomic
def assignments_create(
    *,
    campaign: Campaign,
    assessor: User,
    topics: Iterable[Topic],
    condition: str,
    sample: SampleJudges | None = None,
) -> list[Assignment]:
    """Assign topics to an assessor under one condition, after the assessor's existing assignments, in the
    order given. An assignment that already exists is kept as it is.

    Refused as a whole (BlindnessViolation, nothing made) when one would break a blindness rule
    (judging/blindness.py); `sample` is the sample (a study's) an adjudication assignment is made to re-judge."""
    if condition not in Condition.values:
        raise ValueError(f"unknown condition {condition!r}")
    if campaign.archived_at is not None:
        raise CampaignArchived(campaign)
    topics = list(topics)
    in_campaign = set(campaign.topics.values_list("pk", flat=True))
    for topic in topics:
        if topic.pk not in in_campaign:
            raise ValueError(f"topic {topic.topic_id} is not in campaign {campaign.name}")
    # One assessor's assignments are made one call at a time, so two concurrent calls cannot both pass the check.
    list(User.objects.select_for_update().filter(pk=assessor.pk).values_list("pk", flat=True))
    blindness.assignments_check(campaign=campaign, assessor=assessor, topics=topics, condition=condition, sample=sample)
    last = Assignment.objects.filter(assessor=assessor).aggregate(m=Max("order"))["m"]
    order = -1 if last is None else last
    made: list[Assignment] = []
    for topic in topics:
        existing = Assignment.objects.filter(
            campaign=campaign, assessor=assessor, topic=topic, condition=condition
        ).first()
        if existing is not None:
            made.append(existing)
            continue
        order += 1
        made.append(
            Assignment.objects.create(
                campaign=campaign, assessor=assessor, topic=topic, condition=condition, order=order
            )
        )
    assessor_judge(user=assessor)
    return made


# --- judgments ------------------------------------------------------------------------------------


class SubmissionRejected(Exception):
    """A submit that cannot be stored: unknown pair, forged or foreign token, bad label."""


@dataclass(frozen=True)
class SubmitResult:
    judgment: Judgment
    created: bool


def judgment_submit(
    *,
    assignment: Assignment,
    pair_id: int,
    label: str,
    token: uuid.UUID,
    seconds: float | None = None,
    flagged: bool = False,
    comment: str = "",
    not_judged_reason: str = "",
) -> SubmitResult:
    """Store one judgment (once per token) and set the assignment's status; for callers that do not show the
    next card (the demo, the study's imports). The judging paths use `judgment_submit_and_next`."""
    result = _judgment_store(
        assignment=assignment,
        pair_id=pair_id,
        label=label,
        token=token,
        seconds=seconds,
        flagged=flagged,
        comment=comment,
        not_judged_reason=not_judged_reason,
    )
    assignment_refresh_status(assignment=assignment)
    return result


def _judgment_store(
    *,
    assignment: Assignment,
    pair_id: int,
    label: str,
    token: uuid.UUID,
    seconds: float | None = None,
    flagged: bool = False,
    comment: str = "",
    not_judged_reason: str = "",
) -> SubmitResult:
    """Store one judgment per submission token. A repeated or concurrent submit of a token stores nothing
    more and returns the judgment the first one stored. The assignment's status is the caller's to set."""
    try:
        context = _submission_check(
            assignment=assignment, pair_id=pair_id, label=label, token=token, not_judged_reason=not_judged_reason
        )
    except SubmissionRejected:
        # A repeat of a stored submission is never rejected, even if the pair has left the pool since.
        existing = Judgment.objects.filter(submission_token=token).first()
        if existing is None:
            raise
        return _same_submission(existing, assignment)
    shown = context.llm_label
    judge_id = context.judge_id if context.judge_id is not None else assessor_judge(user=assignment.assessor).pk
    judgment = Judgment(
        judge_id=judge_id,
        pair_id=pair_id,
        citation_id=context.citation_id,
        label=label,
        not_judged_reason=not_judged_reason.strip() if label == NOT_JUDGED else "",
        condition=assignment.condition,
        assignment=assignment,
        shown_label=shown,
        label_changed=(label != shown) if shown else None,
        seconds=seconds,
        submission_token=token,
        flagged=flagged,
        comment=comment.strip(),
    )
    if not _judgment_insert(judgment):
        # The same token was stored before (a repeated submit), or by a concurrent submit that won the insert.
        return _same_submission(Judgment.objects.get(submission_token=token), assignment)
    if context.judged == 0:
        topic_counts_judged(assignment=assignment)
    return SubmitResult(judgment=judgment, created=True)


def judgment_submit_and_next(
    *,
    assignment: Assignment,
    pair_id: int,
    label: str,
    token: uuid.UUID,
    seconds: float | None = None,
    flagged: bool = False,
    comment: str = "",
    not_judged_reason: str = "",
    following: bool = False,
    ahead: int | None = None,
    skip: Sequence[int] = (),
    known: Sequence[int] = (),
) -> tuple[SubmitResult, QueueState]:
    """Store one judgment (once per token, as `judgment_submit`) and return the queue's next state (with
    `following`, also the pairs after it, which the judging page holds in advance: `queue.queue_state`'s `ahead`
    `skip` and `known`); the next pair is read once and also decides the assignment's status (not when `skip` takes
    pairs out of it). The judging page's keystroke and the API's submit both come here."""
    result = _judgment_store(
        assignment=assignment,
        pair_id=pair_id,
        label=label,
        token=token,
        seconds=seconds,
        flagged=flagged,
        comment=comment,
        not_judged_reason=not_judged_reason,
    )
    state = queue.queue_state(assignment=assignment, following=following, ahead=ahead, skip=skip, known=known)
    has_pending = state.card is not None or (bool(skip) and queue.assignment_has_pending(assignment=assignment))
    assignment_status_set(assignment, queue.status_of(has_pending=has_pending, held_back=state.held_back))
    return result, state


@dataclass(frozen=True)
class Answer:
    """One answer of a submit that carries several (the judging page's outbox), as `judgment_submit` takes it."""

    pair_id: int
    label: str
    token: uuid.UUID
    seconds: float | None = None
    flagged: bool = False
    comment: str = ""
    not_judged_reason: str = ""


def judgments_submit_and_next(
    *,
    assignment: Assignment,
    answers: Sequence[Answer],
    following: bool = False,
    ahead: int | None = None,
    skip: Sequence[int] = (),
    known: Sequence[int] = (),
) -> tuple[list[SubmitResult | SubmissionRejected], QueueState]:
    """Store several answers in the order given, each once per its token (a re-sent answer stores nothing
    more), and return the queue's next state as `judgment_submit_and_next` does. Each answer's outcome is its
    own: one refused (its `SubmissionRejected`, in the answer's place) does not keep the others from being
    stored. The last answer goes through `judgment_submit_and_next`, whose read of the next state also sets
    the assignment's status."""
    if not answers:
        raise ValueError("a submit carries at least one answer")
    outcomes: list[SubmitResult | SubmissionRejected] = []
    for answer in answers[:-1]:
        try:
            outcomes.append(_judgment_store(assignment=assignment, **asdict(answer)))
        except SubmissionRejected as exc:
            outcomes.append(exc)
    queue_args: dict[str, Any] = {"following": following, "ahead": ahead, "skip": skip, "known": known}
    try:
        result, state = judgment_submit_and_next(assignment=assignment, **asdict(answers[-1]), **queue_args)
    except SubmissionRejected as exc:
        outcomes.append(exc)
        assignment_refresh_status(assignment=assignment)
        return outcomes, queue.queue_state(assignment=assignment, **queue_args)
    outcomes.append(result)
    return outcomes, state


def _judgment_insert(judgment: Judgment) -> bool:
    """INSERT the judgment unless its submission token is stored already (then False). One statement whose unique
    token decides a race without an error, so no savepoint is needed inside a caller's transaction. In plain SQL
    because the ORM has no such statement: `create` must run in a savepoint to survive the race (SAVEPOINT,
    INSERT, RELEASE: three statements, a submit of eight queries against its budget of six, issue 25), and
    `bulk_create(ignore_conflicts=True)` does not return the id (one more read); it also cost 1 ms of CPU."""
    fields = [f for f in Judgment._meta.concrete_fields if not f.primary_key]
    values = [f.get_db_prep_save(f.pre_save(judgment, True), connection) for f in fields]
    qn = connection.ops.quote_name
    sql = (
        f"INSERT INTO {qn(Judgment._meta.db_table)} ({', '.join(qn(f.column) for f in fields)})"
        f" VALUES ({', '.join(['%s'] * len(values))})"
        f" ON CONFLICT ({qn(Judgment._meta.get_field('submission_token').column)}) DO NOTHING RETURNING {qn('id')}"
    )
    with connection.cursor() as cur:
        cur.execute(sql, values)
        row = cur.fetchone()
    if row is None:
        return False
    judgment.pk = row[0]
    judgment._state.adding = False
    judgment._state.db = connection.alias
    return True


def _submission_check(
    *, assignment: Assignment, pair_id: int, label: str, token: uuid.UUID, not_judged_reason: str
) -> SubmissionContext:
    """What the submit needs (context citation, judgments so far, judge, label shown), once the label, the pair
    and the token are known to be valid. A blank label (cannot judge) needs its reason."""
    if label not in Label.values and label != NOT_JUDGED:
        raise SubmissionRejected(f"unknown label {label!r}")
    if label == NOT_JUDGED and not not_judged_reason.strip():
        raise SubmissionRejected("say why the pair cannot be judged")
    if assignment.campaign.archived_at is not None:
        raise SubmissionRejected(CampaignArchived(assignment.campaign).message)
    context = submission_context(assignment=assignment, pair_id=pair_id)
    if context is None:
        raise SubmissionRejected("this pair is not in the assignment")
    issued = (submission_token(assignment_id=assignment.pk, pair_id=pair_id, nth=k) for k in range(context.judged + 1))
    if token not in issued:
        raise SubmissionRejected("unknown submission token")
    return context


def _same_submission(judgment: Judgment, assignment: Assignment) -> SubmitResult:
    if judgment.assignment_id != assignment.pk:
        raise SubmissionRejected("this submission token belongs to another assignment")
    return SubmitResult(judgment=judgment, created=False)


def assignment_refresh_status(*, assignment: Assignment) -> None:
    """Done when every pair of the topic has this assignment's judgment (held-back pairs count as not done)."""
    assignment_status_set(assignment, queue.assignment_status(assignment=assignment))


def assignment_status_set(assignment: Assignment, status: AssignmentStatus) -> None:
    """Store an assignment's status when it changed (every kind's submit calls it)."""
    if status != assignment.status:
        Assignment.objects.filter(pk=assignment.pk).update(status=status)
        assignment.status = status


def campaign_update(
    *,
    campaign: Campaign,
    guidelines: str,
    post_edit_judge: Judge | None,
    highlight_evidence: bool,
    queue_order: str | None = None,
) -> Campaign:
    """The campaign's settings; `queue_order` None keeps the order it has (judging/queue.md)."""
    if queue_order is not None and queue_order not in QueueOrder.values:
        raise ValueError(f"unknown queue order {queue_order!r}")
    campaign.guidelines = guidelines
    campaign.post_edit_judge = post_edit_judge
    campaign.highlight_evidence = highlight_evidence
    if queue_order is not None:
        campaign.queue_order = queue_order
    campaign.save(update_fields=["guidelines", "post_edit_judge", "highlight_evidence", "queue_order"])
    return campaign


def guidelines_read(*, campaign: Campaign, assessor: User) -> GuidelinesReading:
    """Record that the assessor read the campaign's guidelines as they stand now (they are not shown again at
    the start until they change)."""
    reading, _ = GuidelinesReading.objects.update_or_create(
        campaign=campaign,
        assessor=assessor,
        defaults={"version": guidelines_version(campaign.guidelines), "read_at": timezone.now()},
    )
    return reading


def flag_resolve(*, judgment: Judgment, resolved_by: User, note: str = "") -> FlagReview:
    """An organizer resolves a flagged judgment, with a note; resolving it again keeps the first answer."""
    if not judgment.flagged:
        raise ValueError("this judgment is not flagged")
    review, _ = FlagReview.objects.get_or_create(
        judgment=judgment, defaults={"resolved_by": resolved_by, "note": note.strip()}
    )
    return review


def campaign_choice_remember(*, user: User, campaign: Campaign | None) -> None:
    """Keep `campaign` (None: everything loaded) as the one `user`'s pages show until they choose another. One
    statement (an upsert on the user), so a page that remembers costs no transaction of its own."""
    CampaignChoice.objects.bulk_create(
        [CampaignChoice(user=user, campaign=campaign, chosen_at=timezone.now())],
        update_conflicts=True,
        unique_fields=["user"],
        update_fields=["campaign", "chosen_at"],
    )
