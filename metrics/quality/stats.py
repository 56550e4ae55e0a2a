"""The assessor quality figures (issue 23, point 2), as pure functions over plain data: no ORM here
(`selectors.py` reads the database into these shapes).

- A **rater** is one assessor in one condition within one campaign (the label set `NAME/CONDITION` kept to
  the campaign): conditions are never mixed in one row.
- An assessor's **label of a pair** is their newest judgment of it in the campaign; a "cannot judge" (no label)
  is work done on the pair, and it counts in the cannot-judge rate, never in a label share or an agreement.
- **Seconds** are the judgments' own `seconds` (time on the card), over every judgment that has them.
- **Active hours** are `judging.session.active_time`: the gaps of at most 10 minutes between consecutive
  judgments, the rule the judging page's session figures use.
- **Agreement** is exact agreement and Cohen's κ (scikit-learn's `cohen_kappa_score`, unweighted) with the
  project's 95% interval (`metrics.bootstrap.kappa_interval`), over the items both sides labelled; `n` items.
- **Drift**: the rater's judgments in time order, in blocks of `DRIFT_BLOCK`; each block's median seconds and
  its exact agreement with a named reference label set on the citations those judgments were made on.
- **Gold accuracy**: of the gold pairs the rater labelled, the share labelled as expected.

Nothing is given as 0 where nothing was judged: a figure over no items is None (the page prints "—").
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

import numpy as np
from sklearn import config_context
from sklearn.metrics import cohen_kappa_score

from judging.session import active_time
from judging.vocabulary import SUPPORT
from metrics.bootstrap import kappa_interval

DRIFT_BLOCK = 100
SPEED_BLOCK = 20  # judgments per point of the speed plot


@dataclass(frozen=True)
class JudgmentRow:
    """One judgment of a rater, as the selectors read it."""

    judgment_id: int
    pair_id: int
    citation_id: int  # the citation it was made on (0: none)
    label: str  # FS, PS, NS, or "" for cannot judge
    seconds: float | None
    created_at: datetime
    flagged: bool


@dataclass(frozen=True)
class Agreement:
    n: int
    exact: float | None
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None


NO_AGREEMENT = Agreement(0, None, None, None, None)


@dataclass(frozen=True)
class RaterFigures:
    judgments: int  # judgment rows, corrections included
    pairs: int  # distinct pairs judged (cannot-judge included)
    labelled: int  # pairs whose label is FS, PS or NS
    median_seconds: float | None
    p90_seconds: float | None
    active_hours: float | None
    shares: dict[str, float | None]  # label -> share of the labelled pairs
    cannot_judge: int
    cannot_judge_rate: float | None
    flags: int  # judgments flagged


@dataclass(frozen=True)
class DriftBlock:
    first: int  # 1-based number of the block's first judgment
    last: int
    median_seconds: float | None
    compared: int  # judgments of the block whose citation the reference labelled
    agreement: float | None


@dataclass(frozen=True)
class GoldAccuracy:
    gold: int  # gold pairs of the campaign
    labelled: int  # of those, pairs the rater labelled FS, PS or NS
    correct: int
    cannot_judge: int
    accuracy: float | None


@dataclass(frozen=True)
class SpeedPoint:
    active_hours: float  # the rater's active hours up to the block's last judgment
    median_seconds: float


@dataclass
class RaterSeries:
    drift: list[DriftBlock] = field(default_factory=list)
    speed: list[SpeedPoint] = field(default_factory=list)


def _ordered(rows: Iterable[JudgmentRow]) -> list[JudgmentRow]:
    return sorted(rows, key=lambda r: (r.created_at, r.judgment_id))


def current_labels(rows: Iterable[JudgmentRow]) -> dict[int, str]:
    """pair id -> the rater's newest label of it ("" for cannot judge)."""
    return {row.pair_id: row.label for row in _ordered(rows)}


def _median(values: Sequence[float]) -> float | None:
    return float(np.median(values)) if len(values) else None


def _p90(values: Sequence[float]) -> float | None:
    return float(np.percentile(values, 90)) if len(values) else None


def rater_figures(rows: Sequence[JudgmentRow]) -> RaterFigures:
    current = current_labels(rows)
    labelled = [label for label in current.values() if label]
    cannot = len(current) - len(labelled)
    seconds = [r.seconds for r in rows if r.seconds is not None]
    active = active_time(r.created_at for r in rows).total_seconds() / 3600 if rows else None
    return RaterFigures(
        judgments=len(rows),
        pairs=len(current),
        labelled=len(labelled),
        median_seconds=_median(seconds),
        p90_seconds=_p90(seconds),
        active_hours=active,
        shares={
            label: (labelled.count(label) / len(labelled) if labelled else None) for label in SUPPORT.highest_first
        },
        cannot_judge=cannot,
        cannot_judge_rate=cannot / len(current) if current else None,
        flags=sum(1 for r in rows if r.flagged),
    )


def _finite(value: float) -> float | None:
    return None if math.isnan(value) else float(value)


def agreement(a: Sequence[int] | np.ndarray, b: Sequence[int] | np.ndarray) -> Agreement:
    """Exact agreement and Cohen's κ with its 95% interval between two aligned lists of label codes (0 NS,
    1 PS, 2 FS); items where either side has no label (a negative code) are left out."""
    codes_a, codes_b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    both = (codes_a >= 0) & (codes_b >= 0)
    codes_a, codes_b = codes_a[both], codes_b[both]
    n = len(codes_a)
    if n == 0:
        return NO_AGREEMENT
    labels = list(range(len(SUPPORT.names)))
    exact = float(np.mean(codes_a == codes_b))
    kappa = None
    if n >= 2 and len(np.union1d(codes_a, codes_b)) >= 2:  # with one label on both sides κ is undefined
        # The codes are checked above; scikit-learn's own input checks cost more than κ on a page of many pairs.
        with config_context(skip_parameter_validation=True, assume_finite=True):
            kappa = _finite(float(cohen_kappa_score(codes_a, codes_b, labels=labels)))
    size = len(SUPPORT.names)
    matrix = np.bincount(codes_a * size + codes_b, minlength=size * size).reshape(size, size)  # rows a, columns b
    interval = kappa_interval(matrix) if kappa is not None else None
    low, high = interval if interval is not None else (None, None)
    return Agreement(n=n, exact=exact, kappa=kappa, kappa_low=low, kappa_high=high)


def pair_agreement(a: Mapping[int, str], b: Mapping[int, str]) -> Agreement:
    """Agreement of two raters over the pairs both labelled (pair id -> label; "" is no label)."""
    shared = sorted(p for p in a.keys() & b.keys() if a[p] and b[p])
    return agreement([SUPPORT.code_of[a[p]] for p in shared], [SUPPORT.code_of[b[p]] for p in shared])


def drift(
    rows: Sequence[JudgmentRow], reference: Mapping[int, str] | None, *, block: int = DRIFT_BLOCK
) -> list[DriftBlock]:
    """Per block of `block` judgments (time order): median seconds and exact agreement with the reference's
    label of each judgment's citation (citation id -> label); a judgment without a label, or whose citation the
    reference did not label, is not compared."""
    ordered = _ordered(rows)
    blocks: list[DriftBlock] = []
    for start in range(0, len(ordered), block):
        chunk = ordered[start : start + block]
        seconds = [r.seconds for r in chunk if r.seconds is not None]
        compared = agreed = 0
        if reference is not None:
            for r in chunk:
                expected = reference.get(r.citation_id, "")
                if r.label and expected:
                    compared += 1
                    agreed += r.label == expected
        blocks.append(
            DriftBlock(
                first=start + 1,
                last=start + len(chunk),
                median_seconds=_median(seconds),
                compared=compared,
                agreement=agreed / compared if compared else None,
            )
        )
    return blocks


def speed_points(rows: Sequence[JudgmentRow], *, block: int = SPEED_BLOCK) -> list[SpeedPoint]:
    """The median seconds of each block of `block` judgments (time order), placed at the rater's active hours up
    to the block's last judgment (so breaks and nights take no room); blocks without seconds are left out."""
    ordered = _ordered(rows)
    points: list[SpeedPoint] = []
    elapsed = 0.0
    for start in range(0, len(ordered), block):
        chunk = ordered[start : start + block]
        before = [ordered[start - 1].created_at] if start else []
        elapsed += active_time([*before, *(r.created_at for r in chunk)]).total_seconds() / 3600
        seconds = [r.seconds for r in chunk if r.seconds is not None]
        if seconds:
            points.append(SpeedPoint(active_hours=elapsed, median_seconds=float(np.median(seconds))))
    return points


def gold_accuracy(current: Mapping[int, str], gold: Mapping[int, str]) -> GoldAccuracy:
    """The rater's labels (pair id -> label) against the gold pairs' expected labels."""
    seen = [p for p in gold if p in current]
    labelled = [p for p in seen if current[p]]
    correct = sum(1 for p in labelled if current[p] == gold[p])
    return GoldAccuracy(
        gold=len(gold),
        labelled=len(labelled),
        correct=correct,
        cannot_judge=len(seen) - len(labelled),
        accuracy=correct / len(labelled) if labelled else None,
    )
