"""What an adjudication assignment re-judges: its topic's whole pool, or a sample of it.

An adjudication assignment judges its topic's pool like any other assignment, unless it re-judges a *sample*:
pairs of its topic that a feature above judging drew for blind re-judging (the disagreement study,
`metrics.study`), in an order of the sample's own. Judging does not know how a sample is drawn or stored: that
feature registers one `SampleSource` here from its `AppConfig.ready()`, and judging asks it in two places only:

- the queue (`judging.queue`) keeps such an assignment to the sample's pairs of its topic, in the sample's
  order, and counts its progress on them;
- blindness (`judging.blindness`) holds an adjudicator independent of the judges a sample compares. An
  adjudication assignment that re-judges no sample yet is held to every sample of its campaign, since it may
  later be given one of them.

With no source registered, no assignment re-judges a sample."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Protocol

from django.db.models import OuterRef, Subquery

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


_source: SampleSource | None = None


def samples_register(source: SampleSource) -> None:
    global _source
    _source = source


def sample_pairs(*, assignment: Assignment) -> list[int] | None:
    """The pairs of its topic that an adjudication assignment re-judges, in queue order; None for an assignment
    that judges its topic's whole pool (every other one). One query, kept on the instance."""
    if assignment.condition != Condition.ADJUDICATION or _source is None:
        return None
    if not hasattr(assignment, "_sample_pairs"):
        assignment._sample_pairs = _source.pairs(  # type: ignore[attr-defined]
            assignment_id=assignment.pk, topic_id=assignment.topic_id
        )
    return assignment._sample_pairs  # type: ignore[attr-defined, no-any-return]


def sample_pair_count(*, assignment_id: OuterRef, topic_id: OuterRef) -> Subquery | None:
    """For a queryset of assignments: the size of the sample each re-judges on its topic (NULL where it re-judges
    none), or None when no feature draws samples."""
    if _source is None:
        return None
    return _source.pair_count(assignment_id=assignment_id, topic_id=topic_id)


def campaign_samples(
    *, campaign_id: int, assignment_ids: Iterable[int] = ()
) -> tuple[list[SampleJudges], dict[int, list[SampleJudges]]]:
    """Every sample of the campaign, and those that each of `assignment_ids` re-judges."""
    if _source is None:
        return [], {}
    return _source.judges(campaign_id=campaign_id, assignment_ids=assignment_ids)
