"""What an assignment judges: its topic's whole pool, or a sample of it.

An assignment judges its topic's pool, unless it judges a *sample* (`Assignment.sample`): pairs of its topic
that a feature above judging drew, in an order of the sample's own. Two features draw samples, each for one
condition: the disagreement study (`metrics.study`) for blind re-judging (`adjudication`), and the human-budget
sample (`metrics.humanbudget`) judged `from_scratch`. Judging does not know how a sample is drawn: the feature
writes what judging needs into judging's own tables through the two writes here (`sample_create` with the
draw, `sample_assign` when it gives the sample to assignments), and judging reads them in two places only:

- the queue (`judging.queue`) keeps such an assignment to the sample's pairs of its topic, in the sample's
  order, and counts its progress on them. A from-scratch sample leaves out the pairs its assessor has already
  judged from scratch in another assignment: one person's second look at a pair is no independent judgment;
- blindness (`judging.blindness`) holds an adjudicator independent of the judges a sample compares
  (`Sample.independent_of`). An adjudication assignment that re-judges no sample yet is held to every sample
  of its campaign, since it may later be given one of them."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from django.db import transaction

from judging.counts import topic_counts_forget
from judging.models import Assignment, Campaign, Condition, Sample, SampleItem


@dataclass(frozen=True)
class SampleJudges:
    """The label sets a sample compares: its adjudicators must be none of their judges."""

    name: str  # how a refusal names the sample, e.g. "study #3"
    label_sets: tuple[tuple[str, str], ...]  # (side, label set spec), e.g. ("a", "nist/from_scratch")


class SampleTaken(ValueError):
    """The assignment judges another sample already: an assignment judges one sample at most."""

    def __init__(self, assignment: Assignment, other: Sample) -> None:
        self.other = other
        self.message = f"assignment {assignment.pk} already judges {other.name}"
        super().__init__(self.message)


@transaction.atomic
def sample_create(
    *,
    campaign: Campaign,
    name: str,
    condition: str,
    pairs: Iterable[tuple[int, int]],
    independent_of: Sequence[tuple[str, str]] = (),
) -> Sample:
    """Store a drawn sample: `pairs` are (topic id, pair id) in queue order within each topic; `independent_of`
    the (side, label set spec) whose judges may not adjudicate it."""
    if condition not in Condition.values:
        raise ValueError(f"unknown condition {condition!r}")
    sample = Sample.objects.create(
        campaign=campaign, name=name, condition=condition, independent_of=[list(s) for s in independent_of]
    )
    order: dict[int, int] = {}
    items = []
    for topic_id, pair_id in pairs:
        items.append(SampleItem(sample=sample, topic_id=topic_id, pair_id=pair_id, order=order.get(topic_id, 0)))
        order[topic_id] = order.get(topic_id, 0) + 1
    SampleItem.objects.bulk_create(items, batch_size=2000)
    return sample


@transaction.atomic
def sample_assign(*, sample: Sample, assignments: Iterable[Assignment]) -> None:
    """Give the sample to these assignments (of its campaign and condition): their queue becomes its pairs of
    their topic. An assignment that judges another sample already is refused as a whole (SampleTaken). Their
    status is the caller's to refresh (`services.assignment_refresh_status`), once the sample is set."""
    assignments = list(assignments)
    for assignment in assignments:
        if assignment.campaign_id != sample.campaign_id or assignment.condition != sample.condition:
            raise ValueError(f"assignment {assignment.pk} is not a {sample.condition} assignment of the campaign")
        if assignment.sample_id not in (None, sample.pk):
            raise SampleTaken(assignment, Sample.objects.get(pk=assignment.sample_id))
    Assignment.objects.filter(pk__in=[a.pk for a in assignments]).update(sample=sample)
    for assignment in assignments:
        assignment.sample = sample
    topic_counts_forget(assignments=assignments)  # their pools changed: count them again


def sample_judges(sample: Sample) -> SampleJudges:
    return SampleJudges(name=sample.name, label_sets=tuple((side, spec) for side, spec in sample.independent_of))


def campaign_samples(
    *, campaign_id: int, assignment_ids: Iterable[int] = ()
) -> tuple[list[SampleJudges], dict[int, list[SampleJudges]]]:
    """Every sample of the campaign whose judges an adjudicator must be independent of, and the one that each
    of `assignment_ids` re-judges (adjudication samples only: a from-scratch sample holds no one independent)."""
    samples = list(
        Sample.objects.filter(campaign_id=campaign_id, condition=Condition.ADJUDICATION).order_by("-created_at", "-pk")
    )
    every = {s.pk: sample_judges(s) for s in samples}
    ids = list(assignment_ids)
    links = Assignment.objects.filter(pk__in=ids, sample_id__in=every).values_list("pk", "sample_id") if ids else []
    return list(every.values()), {pk: [every[sample_id]] for pk, sample_id in links}
