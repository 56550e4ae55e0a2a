"""The label vocabularies, each written once: a judgment kind's labels with their names, ordinal codes,
weights and titles. Every model, score, figure, export and page reads them from here.

Support (DESIGN §2) is the first vocabulary: does the cited passage back up the sentence? A label's **name**
is how it is stored and exchanged (`FS`), its **code** its place in the ordinal order, lowest first (NS 0,
PS 1, FS 2: what the label arrays of the metrics hold), its **weight** what it counts for in weighted
precision and recall, its **title** how a page or a figure writes it.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np


@dataclass(frozen=True)
class Term:
    """One label of a vocabulary."""

    name: str  # as stored and exchanged: "FS"
    title: str  # as a page writes it: "Full support"
    weight: float  # what it counts for in a score


@dataclass(frozen=True)
class Vocabulary:
    """A judgment kind's labels, in ordinal order (lowest first): a label's code is its place in `terms`."""

    kind: str
    terms: tuple[Term, ...]

    @cached_property
    def names(self) -> tuple[str, ...]:
        """The label names in ordinal order, lowest first (code order)."""
        return tuple(t.name for t in self.terms)

    @cached_property
    def highest_first(self) -> tuple[str, ...]:
        """The label names as a page lists them: most support first."""
        return self.names[::-1]

    @cached_property
    def code_of(self) -> dict[str, int]:
        return {t.name: code for code, t in enumerate(self.terms)}

    @cached_property
    def name_of_code(self) -> dict[int, str]:
        return dict(enumerate(self.names))

    @cached_property
    def titles(self) -> dict[str, str]:
        return {t.name: t.title for t in self.terms}

    @cached_property
    def weight_of(self) -> dict[str, float]:
        return {t.name: t.weight for t in self.terms}

    @cached_property
    def weight_of_code(self) -> np.ndarray:
        """Each code's weight, as an array that label codes index."""
        return np.array([t.weight for t in self.terms])

    def choice(self, name: str) -> tuple[str, str]:
        """(name, title) of one label, as a model's choices take it."""
        return name, self.titles[name]


SUPPORT = Vocabulary(
    kind="support",
    terms=(
        Term(name="NS", title="No support", weight=0.0),
        Term(name="PS", title="Partial support", weight=0.5),
        Term(name="FS", title="Full support", weight=1.0),
    ),
)
