"""Writes for the human-budget samples (issue 16): draw a campaign's sample with known inclusion probabilities
and a recorded seed, and assign it to assessors from scratch through judging's assignment service, so every
blindness guard applies."""

from __future__ import annotations

from collections.abc import Iterable

import numpy as np
from django.contrib.auth.models import User
from django.db import transaction

from assess.models import Topic
from judging import samples, services
from judging.blindness import BlindnessViolation
from judging.label_set_names import LabelSetError
from judging.labels import LabelSet, label_set_get
from judging.models import Assignment, Campaign, Condition, JudgeKind
from judging.scope import scope_for
from metrics.budget.estimators import Design, inclusion_probabilities, poisson_sample
from metrics.budget.models import BudgetSample, BudgetSampleItem
from metrics.budget.selectors import Frame, frame_get, llm_expected_errors


class BudgetError(ValueError):
    """A request an organizer can correct: unknown label set, pairs without LLM labels, a budget out of range."""


@transaction.atomic
def budget_sample_draw(
    *,
    campaign: Campaign,
    llm: str,
    design: str = Design.UNIFORM,
    pairs: int | None = None,
    share: float | None = None,
    second_llm: str = "",
    reference: str = "",
    seed: int = 0,
    allow_unlabelled: bool = False,
    created_by: User | None = None,
) -> BudgetSample:
    """Draw the human sample of a campaign whose pairs all have a label from the `llm` set: Poisson sampling,
    each (topic, pair) of the pool independently with its inclusion probability (uniform, stratified toward the
    LLM's Partial labels, weighted toward pairs where `second_llm` disagrees, or active: toward the pairs where
    the LLM's expected error, learnt from the human set `reference`, times the pair's weight is largest), averaging the budget (`pairs`,
    or `share` of the pool). The generator is numpy's, seeded with `seed`; the probabilities and the seed are
    stored, so the draw can be repeated and the estimates know the design. Each topic's queue order is shuffled
    with the same generator.

    Pairs without the LLM's label are refused unless `allow_unlabelled`: then they count with the LLM's mean
    weight, which keeps the estimate unbiased (only its width suffers), and the stratified design takes them
    at the highest weight."""
    if (pairs is None) == (share is None):
        raise BudgetError("give the budget as a number of pairs or as a share of the pairs, not both")
    llm_set, second_set = _label_sets(llm=llm, second_llm=second_llm, design=design)
    if not campaign.campaign_pairs.exists():
        raise BudgetError(f"campaign {campaign.name!r} has no pairs: build it first")
    frame = frame_get(campaign=campaign, llm=llm_set, second_llm=second_set)
    n = len(frame.pair_id)
    missing = _unlabelled(frame, llm=llm_set, allowed=allow_unlabelled)
    budget = _budget_share(pairs=pairs, share=share, frame=n)
    pi = _probabilities(
        campaign, frame, llm=llm_set, budget=budget, design=design, second=second_set, reference=reference
    )
    rng = np.random.default_rng(seed)
    drawn = poisson_sample(pi, rng)
    sample = BudgetSample.objects.create(
        campaign=campaign,
        llm=llm_set.spec,
        second_llm=second_set.spec if second_set else "",
        reference=label_set_get(reference).spec if design == Design.ACTIVE else "",
        design=design,
        budget_pairs=pairs,
        budget_share=share,
        seed=seed,
        frame=n,
        unlabelled=missing,
        expected=float(pi.sum()),
        created_by=created_by,
    )
    items = BudgetSampleItem.objects.bulk_create(_drawn_items(sample, frame=frame, drawn=drawn, pi=pi, rng=rng))
    _judging_sample_write(sample, items)
    return sample


def _judging_sample_write(sample: BudgetSample, items: list[BudgetSampleItem]) -> None:
    """What judging's queue reads of the sample: its pairs of each topic in the drawn order."""
    sample.sample = samples.sample_create(
        campaign=sample.campaign,
        name=f"budget sample #{sample.pk}",
        condition=Condition.FROM_SCRATCH,
        pairs=[(item.topic_id, item.pair_id) for item in items],
    )
    sample.save(update_fields=["sample"])


def _probabilities(
    campaign: Campaign,
    frame: Frame,
    *,
    llm: LabelSet,
    budget: float,
    design: str,
    second: LabelSet | None,
    reference: str,
) -> np.ndarray:
    """The frame units' inclusion probabilities under the design (`estimators.inclusion_probabilities`)."""
    try:
        return inclusion_probabilities(
            frame.llm_code,
            budget=budget,
            design=design,
            second_code=frame.second_code if second else None,
            expected_error=_active_errors(campaign, frame, llm=llm, reference=reference, design=design),
            weight=frame.weight,
        )
    except ValueError as error:
        raise BudgetError(str(error)) from None


def _active_errors(
    campaign: Campaign, frame: Frame, *, llm: LabelSet, reference: str, design: str
) -> np.ndarray | None:
    """The active design's expected LLM error per frame unit, learnt from `reference` (human labels already made)
    on the campaign's first citations, else on everything loaded (`selectors.llm_expected_errors`)."""
    if design != Design.ACTIVE:
        return None
    if not reference:
        raise BudgetError("the active design needs a human label set to learn the LLM's errors from (reference)")
    try:
        reference_set = label_set_get(reference)
        try:
            by_code = llm_expected_errors(llm=llm, reference=reference_set, scope=scope_for(campaign=campaign, depth=1))
        except ValueError:
            by_code = llm_expected_errors(llm=llm, reference=reference_set, scope=scope_for(depth=1))
    except (LabelSetError, ValueError) as error:
        raise BudgetError(str(error)) from None
    pooled = float(np.mean(list(by_code.values())))
    return np.array([by_code.get(int(code), pooled) for code in frame.llm_code])


def _label_sets(*, llm: str, second_llm: str, design: str) -> tuple[LabelSet, LabelSet | None]:
    """The draw's LLM label set and its second one (the disagreement design's), each checked for the design."""
    if design not in Design.values:
        raise BudgetError(f"unknown design {design!r}: one of {', '.join(Design.values)}")
    try:
        llm_set = label_set_get(llm)
        second_set = label_set_get(second_llm) if second_llm else None
    except LabelSetError as error:
        raise BudgetError(str(error)) from None
    if llm_set.judge_kind != JudgeKind.LLM:
        raise BudgetError(f"{llm_set.spec} is not an LLM's label set: the sample corrects an LLM's labels")
    if design == Design.DISAGREEMENT and second_set is None:
        raise BudgetError("the disagreement design needs a second LLM label set")
    if second_set is not None and second_set.spec == llm_set.spec:
        raise BudgetError("the second LLM label set must differ from the first")
    return llm_set, second_set


def _unlabelled(frame: Frame, *, llm: LabelSet, allowed: bool) -> int:
    """The frame's pairs without the LLM's label; refused unless `allowed`."""
    missing = int((frame.llm_code < 0).sum())
    if missing and not allowed:
        raise BudgetError(
            f"{missing} of the campaign's {len(frame.pair_id)} pairs have no label from {llm.spec}: pre-label them "
            "first or draw anyway: those pairs then count with the LLM's mean weight (unbiased, wider intervals)"
        )
    return missing


def _budget_share(*, pairs: int | None, share: float | None, frame: int) -> float:
    """The budget as the mean inclusion probability, from a number of pairs or a share of the frame's."""
    if pairs is not None:
        if not 1 <= pairs <= frame:
            raise BudgetError(f"the budget must be between 1 and the campaign's {frame} pairs")
        return pairs / frame
    assert share is not None
    if not 0 < share <= 1:
        raise BudgetError("the budget share must be above 0 and at most 1 (e.g. 0.1 for 10%)")
    return share


def _drawn_items(
    sample: BudgetSample, *, frame: Frame, drawn: np.ndarray, pi: np.ndarray, rng: np.random.Generator
) -> list[BudgetSampleItem]:
    """The drawn units as items, each topic's in an order shuffled with the draw's generator (after the draw)."""
    items = []
    for topic_pk in np.unique(frame.topic_pk[drawn]):
        in_topic = np.flatnonzero(drawn & (frame.topic_pk == topic_pk))
        for order, at in enumerate(rng.permutation(in_topic)):
            items.append(
                BudgetSampleItem(
                    sample=sample,
                    topic_id=int(topic_pk),
                    pair_id=int(frame.pair_id[at]),
                    inclusion_probability=float(pi[at]),
                    order=order,
                )
            )
    return items


@transaction.atomic
def budget_assign(*, sample: BudgetSample, assessor: User, topics: Iterable[Topic] | None = None) -> list[Assignment]:
    """Give an assessor a `from_scratch` assignment per topic of the sample that has drawn pairs: their queue is the
    topic's drawn pairs in the drawn order, with nothing shown of how they were drawn.

    Goes through `judging.services.assignments_create`, so the blindness rules hold (one condition per topic
    across campaigns sharing pairs: nobody who saw the LLM's labels on a topic judges it here). Refused for an
    assessor who already judges the topic's whole pool from scratch in this campaign, or another sample of it."""
    drawn_topics = set(BudgetSampleItem.objects.filter(sample=sample).values_list("topic_id", flat=True))
    candidates = list(topics) if topics is not None else list(sample.campaign.topics.order_by("topic_id"))
    chosen = [t for t in candidates if t.pk in drawn_topics]
    if not chosen:
        raise BudgetError("the sample has no drawn pairs in these topics")
    existing = {
        a.topic_id: a
        for a in Assignment.objects.filter(
            campaign=sample.campaign, assessor=assessor, topic__in=chosen, condition=Condition.FROM_SCRATCH
        ).prefetch_related("budget_samples")
    }
    for topic in chosen:
        held = existing.get(topic.pk)
        if held is None:
            continue
        others = [s.pk for s in held.budget_samples.all() if s.pk != sample.pk]
        if others:
            raise BudgetError(
                f"{assessor.get_username()} already judges budget sample #{others[0]} on topic {topic.topic_id}"
            )
        if not any(s.pk == sample.pk for s in held.budget_samples.all()):
            raise BudgetError(
                f"{assessor.get_username()} already judges all of topic {topic.topic_id} from scratch in "
                f"{sample.campaign.name}: choose another assessor for the sample"
            )
    try:
        made = services.assignments_create(
            campaign=sample.campaign, assessor=assessor, topics=chosen, condition=Condition.FROM_SCRATCH
        )
    except BlindnessViolation as violation:
        raise BudgetError(violation.message) from violation
    if sample.sample is None:  # every draw writes one (older draws: migration humanbudget/0002)
        raise BudgetError(f"budget sample #{sample.pk} has no sample in judging's tables")
    samples.sample_assign(sample=sample.sample, assignments=made)
    sample.assignments.add(*made)
    for assignment in made:
        services.assignment_refresh_status(assignment=assignment)
    return made
