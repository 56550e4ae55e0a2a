"""What an assignment judges: its topic's whole pool, or a sample of it.

An assignment judges its topic's pool, unless it judges a *sample*: pairs of its topic that a feature above
judging drew, in an order of the sample's own. Two features draw samples, each for one condition: the
disagreement study (`metrics.study`) for blind re-judging (`adjudication`), and the human-budget sample
(`metrics.humanbudget`) judged `from_scratch`. Judging does not know how a sample is drawn or stored: each
feature registers one `SampleSource` for its condition here from its `AppConfig.ready()`, and judging asks it
in two places only:

- the queue (`judging.queue`) keeps such an assignment to the sample's pairs of its topic, in the sample's
  order, and counts its progress on them;
- blindness (`judging.blindness`) holds an adjudicator independent of the judges a sample compares. An
  adjudication assignment that re-judges no sample yet is held to every sample of its campaign, since it may
  later be given one of them.

With no source registered for its condition, an assignment judges its topic's whole pool."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from django.db.models import OuterRef, Subquery
from django.db.models.functions import Coalesce

from judging.models import Assignment, Condition


@dataclass(frozen=True)
class SampleJudges:
    """The label sets a sample compares: its adjudicators must be none of their judges."""

    name: str  # how a refusal names the sample, e.g. "study #3"
    label_sets: tuple[tuple[str, str], ...]  # (side, label set spec), e.g. ("a", "nist/from_scratch")


class SampleSource(Protocol):
    def pairs(self, *, assignment_id: int, topic_id: int) -> list[int] | None:
        """The pairs of the topic that the assignment re-judges, in queue order; None if it re-judges no sample."""

    def pair_count(self, *, assignment_id: OuterRef, topic_id: OuterRef) -> Subquery:
        """A subquery: how many pairs of the topic the assignment re-judges (NULL if it re-judges no sample)."""

    def judges(
        self, *, campaign_id: int, assignment_ids: Iterable[int]
    ) -> tuple[list[SampleJudges], dict[int, list[SampleJudges]]]:
        """Every sample of the campaign, and the samples that each of these assignments re-judges."""


_sources: dict[str, SampleSource] = {}  # condition -> the one feature that draws samples judged in it


def samples_register(source: SampleSource, *, condition: str = Condition.ADJUDICATION) -> None:
    _sources[condition] = source


def sample_pairs(*, assignment: Assignment) -> list[int] | None:
    """The pairs of its topic that an assignment judges as a sample, in queue order; None for an assignment that
    judges its topic's whole pool. One query, kept on the instance."""
    source = _sources.get(assignment.condition)
    if source is None:
        return None
    if not hasattr(assignment, "_sample_pairs"):
        assignment._sample_pairs = source.pairs(  # type: ignore[attr-defined]
            assignment_id=assignment.pk, topic_id=assignment.topic_id
        )
    return assignment._sample_pairs  # type: ignore[attr-defined, no-any-return]


def sample_pair_count(*, assignment_id: OuterRef, topic_id: OuterRef) -> Coalesce | Subquery | None:
    """For a queryset of assignments: the size of the sample each judges on its topic (NULL where it judges
    none), or None when no feature draws samples. An assignment belongs to one source's samples at most (each
    source links only assignments of its own condition)."""
    counts = [source.pair_count(assignment_id=assignment_id, topic_id=topic_id) for source in _sources.values()]
    if not counts:
        return None
    return counts[0] if len(counts) == 1 else Coalesce(*counts)


def campaign_samples(
    *, campaign_id: int, assignment_ids: Iterable[int] = ()
) -> tuple[list[SampleJudges], dict[int, list[SampleJudges]]]:
    """Every sample of the campaign whose judges an adjudicator must be independent of, and those that each of
    `assignment_ids` re-judges (adjudication samples only: a from-scratch sample holds no one independent)."""
    source = _sources.get(Condition.ADJUDICATION)
    if source is None:
        return [], {}
    return source.judges(campaign_id=campaign_id, assignment_ids=assignment_ids)
