"""An assessor's figures for the day, shown beside the progress on the judging page: pairs judged today and
pairs per hour in the current working session. The rule, once:

- a pair counts once however many times it was judged (a changed answer is not a second pair); a "cannot
  judge" counts, as it is work done on the pair;
- today is the calendar day in the server's time zone (`TIME_ZONE`);
- a working session is the run of the assessor's judgments, back from the newest, in which no two follow
  each other by more than `SESSION_GAP` (10 minutes); a session whose newest judgment is more than
  `SESSION_GAP` ago has ended, and the page shows no rate until judging starts again;
- pairs per hour = (pairs judged in the session - 1) / (time from the session's first judgment to its last):
  each judgment after the first took one gap; the first one's own time is unknown. A session longer than
  `SESSION_ROWS` judgments is measured over its newest `SESSION_ROWS` (about the last hour at a usual pace),
  so each card reads a bounded number of rows. The rate is shown once the session holds at least
  `MIN_RATE_PAIRS` pairs over at least a minute, when it starts to mean something.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta

from django.contrib.auth.base_user import AbstractBaseUser
from django.db.models import Count, IntegerField, Subquery
from django.db.models.functions import Coalesce
from django.utils import timezone

from judging.models import Judgment

SESSION_GAP = timedelta(minutes=10)
SESSION_ROWS = 120
MIN_RATE_PAIRS = 5
MIN_RATE_SPAN = timedelta(minutes=1)


@dataclass(frozen=True)
class SessionFigures:
    today: int  # distinct pairs judged since local midnight
    session_pairs: int  # distinct pairs judged in the current working session (0: no session under way)
    session_minutes: float  # from the session's first judgment to its last
    per_hour: float | None  # None until the session holds MIN_RATE_PAIRS pairs over MIN_RATE_SPAN


def session_figures(newest: Sequence[tuple[datetime, int]], *, now: datetime, today: int) -> SessionFigures:
    """The figures from (created_at, pair_id) of an assessor's newest judgments, newest first, and the count of
    pairs judged today; pure."""
    session: list[tuple[datetime, int]] = []
    later = now
    for at, pair in newest:
        if later - at > SESSION_GAP:
            break
        session.append((at, pair))
        later = at
    pairs = len({pair for _, pair in session})
    span = session[0][0] - session[-1][0] if session else timedelta(0)
    per_hour = None
    if pairs >= MIN_RATE_PAIRS and span >= MIN_RATE_SPAN:
        per_hour = (pairs - 1) / (span.total_seconds() / 3600)
    minutes = span.total_seconds() / 60
    return SessionFigures(today=today, session_pairs=pairs, session_minutes=minutes, per_hour=per_hour)


def active_time(times: Iterable[datetime]) -> timedelta:
    """Time spent judging across many working sessions (the assessor quality page's active hours): the sum of the
    gaps between consecutive judgments that are at most `SESSION_GAP`, by the same rule that ends a session
    above; a longer gap is a break and adds nothing, and the first judgment's own time is unknown. Pure."""
    ordered = sorted(times)
    total = timedelta(0)
    for earlier, later in itertools.pairwise(ordered):
        if later - earlier <= SESSION_GAP:
            total += later - earlier
    return total


def assessor_session_figures(*, user: AbstractBaseUser, now: datetime | None = None) -> SessionFigures:
    """The user's figures in one query: their newest `SESSION_ROWS` judgments (by the judge and time index),
    each row carrying the count of distinct pairs judged today."""
    now = now or timezone.now()
    day_start = timezone.localtime(now).replace(hour=0, minute=0, second=0, microsecond=0)
    mine = Judgment.objects.filter(judge__user_id=user.pk)
    today = (
        mine.filter(created_at__gte=day_start)
        .order_by()
        .values("judge_id")
        .annotate(n=Count("pair_id", distinct=True))
        .values("n")
    )
    rows = list(
        mine.annotate(today=Coalesce(Subquery(today, output_field=IntegerField()), 0))
        .order_by("-created_at", "-pk")
        .values_list("created_at", "pair_id", "today")[:SESSION_ROWS]
    )
    return session_figures([(at, pair) for at, pair, _ in rows], now=now, today=rows[0][2] if rows else 0)
