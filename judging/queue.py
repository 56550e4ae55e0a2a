"""The queue: which pairs an assignment judges, in which order, which one comes next, which are held back,
the card that shows a pair, and the assignment's progress and status. The rule in words is `queue.md`
beside this module; every path (page, API, commands, the study's adjudication) reads it from here.

Blindness (DESIGN §3): a card carries an LLM label only for a `post_edit` assignment, and never another
person's label."""

from __future__ import annotations

import functools
import itertools
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from django.contrib.auth.base_user import AbstractBaseUser
from django.db import connection
from django.db.models import OuterRef, Q, Subquery

from assess.models import Passage, Sentence
from core.sql import columns, fields_of, from_row
from judging.blindness import card_shows_llm_label
from judging.counts import assessor_progress, held_back_pending
from judging.models import (
    Assignment,
    AssignmentStatus,
    CampaignPair,
    Judgment,
    Label,
)
from judging.pool import pending_sql, pool_sql, topic_pool
from judging.progress import Share
from judging.tokens import submission_token

LABEL_NAMES: dict[str, str] = dict(Label.choices)

_CARD_PAIR_FIELDS = fields_of(CampaignPair, ["id", "campaign_id", "pair_id", "topic_id", "context_citation_id"])
_CARD_PASSAGE_FIELDS = fields_of(Passage, ["id", "passage_id", "title", "text", "url"])


@functools.cache
def _card_columns() -> str:
    """What `_cards_from_rows` reads: the pair's and the passage's fields, the context sentence's answer and index,
    then one sentence of that answer (its index and text: a card has a row per sentence of its answer)."""
    cols = [
        *columns("cp", _CARD_PAIR_FIELDS),
        *columns("pa", _CARD_PASSAGE_FIELDS),
        "s.answer_id",
        's."index"',
        'a."index"',
        "a.text",
    ]
    return ", ".join(cols)


_CARD_JOINS = (
    " JOIN judging_pair pr ON pr.id = cp.pair_id JOIN assess_passage pa ON pa.id = pr.passage_id"
    " JOIN assess_citation ci ON ci.id = cp.context_citation_id JOIN assess_sentence s ON s.id = ci.sentence_id"
    " JOIN assess_sentence a ON a.answer_id = s.answer_id"
)
_NEWEST_LLM_LABEL = (
    "(SELECT l.label FROM judging_judgment l WHERE l.judge_id = %s AND l.pair_id = cp.pair_id"
    " ORDER BY l.created_at DESC, l.id DESC LIMIT 1)"
)


def _next_pending(
    assignment: Assignment, *, card: bool, limit: int = 1, skip: Sequence[int] = ()
) -> list[tuple[Any, ...]]:
    """The first `limit` pending pairs of the queue, in order: rows `cp.*`, or (`card`) the rows `_cards_from_rows`
    reads, the sentences of each card's answer with it (one query for the whole response). A `limit` above 1 is the next pair and those after it (the judging page holds them in advance).
    `skip`: pairs taken as judged (the page has answered them and not sent them yet)."""
    pending = pending_sql(assignment, limit=limit, skip=skip)
    if pending is None:
        return []  # every pair is held back
    sql, params = pending.sql, list(pending.params)
    if card:
        select = _card_columns()
        if card_shows_llm_label(assignment):
            select += ", " + _NEWEST_LLM_LABEL
            params.insert(0, assignment.campaign.post_edit_judge_id)
        # The pending pairs first, then their cards: joined before the LIMIT, every judged pair's card was read
        # too. The join does not keep the inner order: ordered again by the inner rows' keys.
        sql = f'SELECT {select} FROM ({sql}) cp{_CARD_JOINS} ORDER BY cp.queue_key, cp.queue_tie, a."index"'
    with connection.cursor() as cur:
        cur.execute(sql, params)
        rows: list[tuple[Any, ...]] = cur.fetchall()
    return rows


@dataclass(frozen=True)
class SubmissionContext:
    citation_id: int  # the pair's context citation
    judged: int  # this assignment's judgments of the pair so far
    judge_id: int | None  # the assessor's human judge
    llm_label: str  # post-edit only: the label the card showed


def submission_context(*, assignment: Assignment, pair_id: int) -> SubmissionContext | None:
    """What a submit of `pair_id` needs to know, or None if the pair is not in the assignment's pool."""
    select = (
        "cp.context_citation_id,"
        " (SELECT count(*) FROM judging_judgment j WHERE j.assignment_id = %s AND j.pair_id = cp.pair_id),"
        " (SELECT h.id FROM judging_judge h WHERE h.user_id = %s)"
    )
    params: list[Any] = [assignment.pk, assignment.assessor_id]
    judge_id = assignment.campaign.post_edit_judge_id
    if card_shows_llm_label(assignment) and judge_id is not None:
        select += ", " + _NEWEST_LLM_LABEL
        params.append(judge_id)
    source, where, pool_params = pool_sql(assignment)
    sql = f"SELECT {select} FROM {source} WHERE {' AND '.join(where)} AND cp.pair_id = %s"
    with connection.cursor() as cur:
        cur.execute(sql, [*params, *pool_params, pair_id])
        row = cur.fetchone()
    if row is None:
        return None
    return SubmissionContext(
        citation_id=row[0], judged=row[1], judge_id=row[2], llm_label=(row[3] or "") if len(row) > 3 else ""
    )


def assignment_has_pending(*, assignment: Assignment) -> bool:
    return bool(_next_pending(assignment, card=False))


def assignment_held_back_count(*, assignment: Assignment) -> int:
    return held_back_pending(assignment)


def status_of(*, has_pending: bool, held_back: int) -> AssignmentStatus:
    """Done when every pair of the pool has this assignment's judgment: none pending and none held back."""
    return AssignmentStatus.OPEN if has_pending or held_back else AssignmentStatus.DONE


def assignment_status(*, assignment: Assignment) -> AssignmentStatus:
    """The status the assignment has now (two reads: the next pending pair and the held-back count)."""
    return status_of(has_pending=assignment_has_pending(assignment=assignment), held_back=held_back_pending(assignment))


def next_assignment(*, user: AbstractBaseUser, after: Assignment) -> Assignment | None:
    """The assessor's next open assignment in assignment order."""
    return (
        Assignment.objects.filter(assessor_id=user.pk, status="open")
        .exclude(pk=after.pk)
        .filter(Q(order__gt=after.order) | Q(order=after.order, pk__gt=after.pk))
        .order_by("order", "pk")
        .first()
    ) or Assignment.objects.filter(assessor_id=user.pk, status="open").exclude(pk=after.pk).order_by(
        "order", "pk"
    ).first()


# --- the pair card --------------------------------------------------------------------------------


@dataclass(frozen=True)
class ContextSentence:
    index: int
    text: str
    is_judged: bool


@dataclass
class PairCard:
    """What the judging page shows for one pair. `shown_label` is set only for post-edit assignments."""

    assignment: Assignment
    campaign_pair: CampaignPair
    passage: Passage
    sentence_text: str
    context: list[ContextSentence]
    token: str
    shown_label: str = ""
    previous_label: str = ""
    previous_flagged: bool = False
    previous_comment: str = ""
    previous_reason: str = ""
    back_of: int | None = None
    topic_progress: Share = field(default_factory=lambda: Share(0, 0))
    overall_progress: Share = field(default_factory=lambda: Share(0, 0))
    held_back: int = 0

    @property
    def token_uuid(self) -> uuid.UUID:
        return uuid.UUID(self.token)

    @property
    def preselected(self) -> str:
        return self.previous_label or self.shown_label

    @property
    def shown_label_name(self) -> str:
        return LABEL_NAMES.get(self.shown_label, "")

    @property
    def previous_label_name(self) -> str:
        if self.back_of is not None and not self.previous_label:
            return "Cannot judge"
        return LABEL_NAMES.get(self.previous_label, "")


@dataclass
class QueueState:
    """The judging page's state: the card to show, or None when the topic is finished."""

    assignment: Assignment
    card: PairCard | None
    topic_progress: Share
    overall_progress: Share
    held_back: int
    has_judgments: bool
    next_assignment: Assignment | None = None
    # The states after the card on screen is answered, in order, when they are known in advance (the judging
    # page holds their cards); `following` is the first of them.
    held: list[QueueState] = field(default_factory=list)
    # A held state whose card the page holds already (it said so): only its token is sent back.
    known: bool = False

    @property
    def following(self) -> QueueState | None:
        return self.held[0] if self.held else None


def card_of(
    assignment: Assignment,
    cp: CampaignPair,
    *,
    passage: Passage,
    answer: list[tuple[int, str]],
    index: int,
    nth: int,
    shown: str,
    back_of: Judgment | None = None,
) -> PairCard:
    """The card of pair `cp` whose context is sentence `index` of `answer` ((index, text) in order), shown for
    the `nth` judgment of the pair; `shown` is the LLM label (kept only for a post-edit assignment)."""
    return PairCard(
        assignment=assignment,
        campaign_pair=cp,
        passage=passage,
        sentence_text=next((t for i, t in answer if i == index), ""),
        context=[ContextSentence(i, t, i == index) for i, t in answer],
        token=str(submission_token(assignment_id=assignment.pk, pair_id=cp.pair_id, nth=nth)),
        shown_label=shown if card_shows_llm_label(assignment) else "",
        previous_label=back_of.label if back_of is not None else "",
        previous_flagged=back_of.flagged if back_of is not None else False,
        previous_comment=back_of.comment if back_of is not None else "",
        previous_reason=back_of.not_judged_reason if back_of is not None else "",
        back_of=back_of.pk if back_of is not None else None,
    )


_PAIR_ID_AT = [f.attname for f in _CARD_PAIR_FIELDS].index("pair_id")


def _cards_from_rows(
    assignment: Assignment, rows: Sequence[tuple[Any, ...]], *, known: Iterable[int] = ()
) -> list[PairCard]:
    """The cards of `_next_pending` rows (a row per sentence of a card's answer, in order): instances as loaded
    from the database, fields not read deferred. A card whose pair is `known` (the page holds it already)
    carries its pair and token only."""
    n = len(_CARD_PAIR_FIELDS)
    m = n + len(_CARD_PASSAGE_FIELDS)
    held = set(known)
    cards = []
    for pair_id, group in itertools.groupby(rows, key=lambda row: row[_PAIR_ID_AT]):
        card_rows = list(group)
        row = card_rows[0]
        cp = from_row(CampaignPair, _CARD_PAIR_FIELDS, row[:n])
        passage = from_row(Passage, _CARD_PASSAGE_FIELDS, row[n:m])
        if pair_id in held:
            cards.append(card_of(assignment, cp, passage=passage, answer=[], index=-1, nth=0, shown=""))
            continue
        index = row[m + 1]
        answer = [(r[m + 2], r[m + 3]) for r in card_rows]
        # A pending pair has no judgment from this assignment yet: its token is the 0th.
        shown = (row[m + 4] or "") if len(row) > m + 4 else ""
        cards.append(card_of(assignment, cp, passage=passage, answer=answer, index=index, nth=0, shown=shown))
    return cards


# Cards the judging page holds ahead of the one on screen: at least HELD_AHEAD, more when the page asks (it
# measures its round trip), never more than HELD_AHEAD_MAX (each is rendered on every keystroke).
HELD_AHEAD = 3
HELD_AHEAD_MAX = 16
# Pairs a page may say it has answered and not sent yet (`skip`): more than this and it waits for the server.
SKIP_MAX = 500


def held_ahead(asked: int | None) -> int:
    """How many cards to hold ahead: `asked` (the page's figure) within [HELD_AHEAD, HELD_AHEAD_MAX]."""
    return max(HELD_AHEAD, min(HELD_AHEAD_MAX, asked or HELD_AHEAD))


def queue_state(
    *,
    assignment: Assignment,
    following: bool = False,
    ahead: int | None = None,
    skip: Sequence[int] = (),
    known: Sequence[int] = (),
) -> QueueState:
    """The next pair to judge (resuming where the assessor was), with progress; with `following`, also the cards
    of the pairs after it (`QueueState.held`, `held_ahead(ahead)` of them), read in the same query. `skip`: pairs
    the page has answered and not sent yet, taken as judged (its cards say so in their progress). `known`: pairs
    whose cards the page holds already: those held states are `known` (their card carries its token and no
    text, and is not read)."""
    skip = list(skip)[:SKIP_MAX]
    rows = _next_pending(assignment, card=True, limit=1 + held_ahead(ahead) if following else 1, skip=skip)
    # The card on screen is always sent whole; only the held cards after it may be known to the page.
    held = set(known) - ({rows[0][_PAIR_ID_AT]} if rows else set())
    cards = _cards_from_rows(assignment, rows, known=held)
    state = _state(assignment, cards[0] if cards else None, answered=len(skip))
    if following:
        for k, card in enumerate(cards[1:], start=1):
            is_known = card.campaign_pair.pair_id in held
            state.held.append(_following_state(state, card, step=k, known=is_known))
    return state


def _following_state(state: QueueState, card: PairCard, *, step: int, known: bool = False) -> QueueState:
    """The state the page will be in once `step` more pairs are judged: `card` shown. Only for showing it in
    advance: the server's answer to each submit says whether it is still that pair."""

    def ahead(p: Share) -> Share:
        return Share(min(p.done + step, p.total), p.total)

    following = QueueState(
        assignment=state.assignment,
        card=card,
        topic_progress=ahead(state.topic_progress),
        overall_progress=ahead(state.overall_progress),
        held_back=state.held_back,
        has_judgments=True,
        known=known,
    )
    card.topic_progress, card.overall_progress, card.held_back = (
        following.topic_progress,
        following.overall_progress,
        following.held_back,
    )
    return following


def back_state(
    *, assignment: Assignment, before: int | None = None, following: bool = False, ahead: int | None = None
) -> QueueState | None:
    """The card of the previously judged pair (before judgment `before`, if given), or None if there is none."""
    previous = Judgment.objects.filter(assignment_id=assignment.pk)
    if before is not None:
        current = Judgment.objects.filter(assignment_id=assignment.pk, pk=before).values_list("pair_id", flat=True)
        previous = previous.filter(pk__lt=before).exclude(pair_id__in=current)
    judgment = previous.order_by("-pk").first()
    if judgment is None:
        return None
    return judged_state(assignment=assignment, pair_id=judgment.pair_id, following=following, ahead=ahead)


def judged_state(
    *, assignment: Assignment, pair_id: int, following: bool = False, ahead: int | None = None
) -> QueueState | None:
    """The card of a pair this assignment has judged, to change the judgment (its newest one shown as the
    previous answer), or None if the assignment has not judged it or it left the pool. With `following`, also
    the cards that come once it is answered again: the queue's next pairs."""
    rows = list(Judgment.objects.filter(assignment_id=assignment.pk, pair_id=pair_id).order_by("-pk"))
    if not rows:
        return None
    cp = topic_pool(assignment).filter(pair_id=pair_id).select_related("pair__passage", "context_citation__sentence")
    judge_id = assignment.campaign.post_edit_judge_id
    if card_shows_llm_label(assignment) and judge_id is not None:
        newest = Judgment.objects.filter(judge_id=judge_id, pair_id=OuterRef("pair_id")).order_by("-created_at", "-pk")
        cp = cp.annotate(llm_label=Subquery(newest.values("label")[:1]))
    found = cp.first()
    if found is None:
        return None
    sentence = found.context_citation.sentence
    pending = _next_pending(assignment, card=True, limit=held_ahead(ahead)) if following else []
    answer = list(Sentence.objects.filter(answer_id=sentence.answer_id).order_by("index").values_list("index", "text"))
    card = card_of(
        assignment,
        found,
        passage=found.pair.passage,
        answer=answer,
        index=sentence.index,
        nth=len(rows),
        shown=getattr(found, "llm_label", None) or "",
        back_of=rows[0],
    )
    state = _state(assignment, card)
    # Answering the changed pair again judges no new pair: the queue's next one comes with today's progress.
    cards = _cards_from_rows(assignment, pending)
    state.held = [_following_state(state, held, step=k) for k, held in enumerate(cards)]
    return state


def _state(assignment: Assignment, card: PairCard | None, *, answered: int = 0) -> QueueState:
    """`answered`: pairs the page has answered and not sent yet, counted as done in the progress it shows."""
    # The topic's and the overall progress from one read of the cache.
    progress = assessor_progress(assignment)
    topic = progress[assignment.pk]
    overall = Share(done=sum(p.done for p in progress.values()), total=sum(p.total for p in progress.values()))
    state = QueueState(
        assignment=assignment,
        card=card,
        topic_progress=Share(min(topic.done + answered, topic.total), topic.total),
        overall_progress=Share(min(overall.done + answered, overall.total), overall.total),
        held_back=held_back_pending(assignment),
        has_judgments=topic.done + answered > 0,
    )
    if card is not None:
        card.topic_progress, card.overall_progress, card.held_back = (
            state.topic_progress,
            state.overall_progress,
            state.held_back,
        )
    else:
        state.next_assignment = next_assignment(user=assignment.assessor, after=assignment)
    return state
