"""The assignment plan's rule, as a pure function over plain data: which assessor takes each slot (one topic,
one of its K assessors) so that every assessor's load in pairs is as even as the topic sizes allow.

1. Greedy, largest topic first: each slot to be filled goes to the eligible assessor with the fewest pairs so
   far (ties: fewer topics, then the order the assessors were given), never twice to the same assessor.
2. Then improve: while moving one movable slot to another eligible assessor, or swapping two movable slots
   between two assessors, lowers the sum of squared loads, make the best such change. Every change makes a
   heavier assessor lighter and a lighter one heavier without crossing, so it ends, and where the topic sizes
   allow it leaves max / min pairs per assessor within 1.25.

Movable slots are the slots this plan fills, and (with rebalance) the existing assignments nobody has judged
in. Everything else stays where it is and counts toward the load and toward K."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import dataclass, field

# The improvement loop stops after this many changes even if it could go on (it never needs that many).
MAX_CHANGES = 10_000


@dataclass
class Slot:
    """One place on a topic: held by `assessor`; `original` is who held it before this plan (None: a new slot)."""

    topic: int
    size: int
    assessor: int
    original: int | None = None

    @property
    def moved(self) -> bool:
        return self.original is not None and self.original != self.assessor


@dataclass
class Balance:
    slots: list[Slot]  # the movable slots, where the plan puts them
    loads: dict[int, int]  # pairs per assessor (the listed ones), fixed and movable
    topics: dict[int, int]  # topics per assessor
    short: dict[int, int] = field(default_factory=dict)  # topic -> slots no eligible assessor could take


def plan_balance(
    *,
    assessors: list[int],
    sizes: dict[int, int],
    need: dict[int, int],
    fixed: list[tuple[int, int]],
    movable: list[tuple[int, int]],
    eligible: set[tuple[int, int]],
) -> Balance:
    """`assessors` in the order given; `sizes` pairs per topic; `need` slots to fill per topic; `fixed` and
    `movable` the (topic, assessor) held now; `eligible` the (topic, assessor) a rule allows."""
    loads = {a: 0 for a in assessors}
    counts = {a: 0 for a in assessors}
    holders: dict[int, set[int]] = defaultdict(set)
    for topic, assessor in [*fixed, *movable]:
        holders[topic].add(assessor)
        if assessor in loads:
            loads[assessor] += sizes.get(topic, 0)
            counts[assessor] += 1
    slots = [Slot(topic=t, size=sizes.get(t, 0), assessor=a, original=a) for t, a in movable]
    rank = {a: i for i, a in enumerate(assessors)}
    short: dict[int, int] = {}
    for topic in sorted(need, key=lambda t: (-sizes.get(t, 0), t)):
        for _ in range(need[topic]):
            free = [a for a in assessors if a not in holders[topic] and (topic, a) in eligible]
            if not free:
                short[topic] = short.get(topic, 0) + 1
                continue
            chosen = min(free, key=lambda a: (loads[a], counts[a], rank[a]))
            holders[topic].add(chosen)
            loads[chosen] += sizes.get(topic, 0)
            counts[chosen] += 1
            slots.append(Slot(topic=topic, size=sizes.get(topic, 0), assessor=chosen))
    _improve(slots=slots, loads=loads, counts=counts, holders=holders, eligible=eligible, rank=rank)
    return Balance(slots=slots, loads=loads, topics=counts, short=short)


# A change: its gain (the change in the sum of squared loads), the slot, the assessor it goes to, and the slot
# that comes back in a swap (None: a move).
Change = tuple[int, Slot, int, Slot | None]


def _improve(
    *,
    slots: list[Slot],
    loads: dict[int, int],
    counts: dict[int, int],
    holders: dict[int, set[int]],
    eligible: set[tuple[int, int]],
    rank: dict[int, int],
) -> None:
    for _ in range(MAX_CHANGES):
        best = _best_move(slots=slots, loads=loads, holders=holders, eligible=eligible, rank=rank)
        best = _best_swap(slots=slots, loads=loads, holders=holders, eligible=eligible, rank=rank, best=best)
        if best is None:
            return
        _change_make(best, loads=loads, counts=counts, holders=holders)


def _may_take(assessor: int, slot: Slot, *, holders: dict[int, set[int]], eligible: set[tuple[int, int]]) -> bool:
    return assessor not in holders[slot.topic] and (slot.topic, assessor) in eligible


def _best_move(
    *,
    slots: list[Slot],
    loads: dict[int, int],
    holders: dict[int, set[int]],
    eligible: set[tuple[int, int]],
    rank: dict[int, int],
) -> Change | None:
    # The best change lowers the sum of squared loads the most: moving d pairs from load g to load r
    # changes it by 2d(r - g + d), negative while r + d < g. Ties go to the earlier slot and assessor.
    best: Change | None = None
    for slot in slots:
        g = loads[slot.assessor]
        for r in sorted(loads, key=lambda a: rank[a]):
            if loads[r] + slot.size < g and _may_take(r, slot, holders=holders, eligible=eligible):
                gain = 2 * slot.size * (loads[r] - g + slot.size)
                if best is None or gain < best[0]:
                    best = (gain, slot, r, None)
    return best


def _best_swap(
    *,
    slots: list[Slot],
    loads: dict[int, int],
    holders: dict[int, set[int]],
    eligible: set[tuple[int, int]],
    rank: dict[int, int],
    best: Change | None,
) -> Change | None:
    """The best swap if it beats `best` (the best move), else `best`."""
    heavy = max(loads, key=lambda a: (loads[a], -rank[a]), default=None)
    light = min(loads, key=lambda a: (loads[a], rank[a]), default=None)
    # Swaps only between the heaviest assessor and another, or another and the lightest: enough to even
    # out what moves cannot, at a cost linear in the slots.
    pairs = [(one, other) for one in slots if one.assessor == heavy for other in slots] + [
        (one, other) for other in slots if other.assessor == light for one in slots
    ]
    for one, other in pairs:
        d = one.size - other.size
        if d <= 0 or one.assessor == other.assessor:
            continue
        g, r = loads[one.assessor], loads[other.assessor]
        if (
            r + d < g
            and _may_take(other.assessor, one, holders=holders, eligible=eligible)
            and _may_take(one.assessor, other, holders=holders, eligible=eligible)
        ):
            gain = 2 * d * (r - g + d)
            if best is None or gain < best[0]:
                best = (gain, one, other.assessor, other)
    return best


def _change_make(
    change: Change, *, loads: dict[int, int], counts: dict[int, int], holders: dict[int, set[int]]
) -> None:
    _, slot, to, swapped = change
    frm = slot.assessor
    holders[slot.topic].discard(frm)
    if swapped is None:
        loads[frm] -= slot.size
        counts[frm] -= 1
        slot.assessor = to
        holders[slot.topic].add(to)
        loads[to] += slot.size
        counts[to] += 1
        return
    holders[swapped.topic].discard(to)
    loads[frm] += swapped.size - slot.size
    loads[to] += slot.size - swapped.size
    slot.assessor, swapped.assessor = to, frm
    holders[slot.topic].add(to)
    holders[swapped.topic].add(frm)


def load_ratio(loads: dict[int, int]) -> float | None:
    """max / min pairs per assessor; None when an assessor has none (the ratio is unbounded)."""
    values = list(loads.values())
    if not values or min(values) == 0:
        return None
    return max(values) / min(values)
