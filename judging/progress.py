"""How far a piece of work is, written once: pairs done of pairs to do, as a share every page, API and command
shows the same way. The figures themselves (what counts as done, per condition, per assignment) are read by
the selectors (`judging.selectors.campaigns_progress`, `judging.queue`); this is how they are shown."""

from __future__ import annotations

import math
from dataclasses import dataclass

NOTHING_TO_DO = "—"


def percent_done(done: int, total: int) -> float | None:
    """`done` of `total` in percent, rounded down to 0.1 (an unfinished share never reads 100%); None when there
    is nothing to do: an empty campaign, job or condition is "—", never 0% or 100%."""
    return math.floor(1000 * done / total) / 10 if total else None


@dataclass(frozen=True)
class Share:
    """Pairs done of pairs to do."""

    done: int
    total: int

    @property
    def percent(self) -> float | None:
        return percent_done(self.done, self.total)

    @property
    def text(self) -> str:
        return NOTHING_TO_DO if self.percent is None else f"{self.percent:.1f}%"
