"""Reads for the human budget: the frame a sample is drawn from (the campaign's pairs with the LLM's labels), the
population the estimates are computed over (a sample's campaign; or a truth set's or the labels already made
over a scope, for the simulation and the plan), as plain arrays for the estimators; and the samples."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from django.db.models import Count, QuerySet

from judging.counts import assignments_with_progress
from judging.label_set_names import LabelSetKind, LabelSetName
from judging.labels import CitationLabels, LabelSet, label_set_get
from judging.models import Assignment, Campaign, CampaignPair, Condition, Judgment
from judging.scope import Scope, scope_for
from metrics.budget.estimators import Population, _calibrated, expected_errors
from metrics.budget.models import BudgetSample, BudgetSampleItem
from metrics.material import Material, labels_get, material_get


@dataclass(frozen=True)
class Frame:
    """The campaign's pairs at depth 1, one sampling unit per (topic, pair) of its pool, with an LLM label each."""

    topic_pk: np.ndarray
    pair_id: np.ndarray
    llm_code: np.ndarray  # the LLM set's label on the pair (its context citation's, else any of its citations')
    second_code: np.ndarray  # the second LLM set's (-1: none, or no second set)
    weight: np.ndarray  # the pair's weight in the run scores: Σ over its citations of (c_precision + c_recall) / 2


@dataclass(frozen=True)
class CampaignPopulation:
    """Every first citation of the campaign's pool, for the estimates: the population (with each citation's unit
    an index into the frame), run and topic names, and each citation's frame unit."""

    population: Population
    runs: list[str]
    topics: list[str]
    citation_unit: np.ndarray
    citation_topic_pk: np.ndarray
    frame_topic_pk: np.ndarray
    frame_pair_id: np.ndarray


def _pool_citations(campaign: Campaign) -> tuple[Material, np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    """(material, positions of the first citations in the pool, their topic pk, their frame unit, frame keys)."""
    material = material_get(scope_for(campaign=campaign, depth=1))
    pool = np.array(
        list(
            CampaignPair.objects.filter(campaign=campaign)
            .order_by("topic_id", "pair_id")
            .values_list("topic_id", "pair_id")
        ),
        dtype=np.int64,
    ).reshape(-1, 2)
    topic_pk_of = dict(campaign.topics.values_list("topic_id", "pk"))
    answer_topic = {a: topic_pk_of.get(t, 0) for a, (t, _r, _n) in material.answers.items()}
    citation_topic = np.array([answer_topic[int(a)] for a in material.citation_answer], dtype=np.int64)
    width = int(max(material.citation_pair.max(initial=0), pool[:, 1].max(initial=0))) + 1
    keys = pool[:, 0] * width + pool[:, 1]
    citation_keys = citation_topic * width + material.citation_pair
    unit = np.searchsorted(keys, citation_keys)
    unit = np.clip(unit, 0, max(len(keys) - 1, 0))
    in_pool = (
        (material.citation_pair > 0) & (len(keys) > 0) & (keys[unit] == citation_keys)
        if len(keys)
        else np.zeros(len(citation_keys), dtype=bool)
    )
    positions = np.flatnonzero(in_pool)
    return material, positions, citation_topic[positions], unit[positions], pool


def frame_get(*, campaign: Campaign, llm: LabelSet, second_llm: LabelSet | None = None) -> Frame:
    """The sampling frame: one unit per pool pair of the campaign's topics, with the LLM's label on it. A unit's
    label is that of the first of its citations the set labels (platform labels are per pair, so all agree)."""
    material, positions, topics, unit, pool = _pool_citations(campaign)
    codes = labels_get(llm, material).codes[positions]
    second = labels_get(second_llm, material).codes[positions] if second_llm is not None else None

    def per_unit(citation_codes: np.ndarray) -> np.ndarray:
        found = np.full(len(pool), -1, dtype=np.int64)
        labelled = citation_codes >= 0
        # Reversed so that the first labelled citation of a unit is written last and wins.
        found[unit[labelled][::-1]] = citation_codes[labelled][::-1]
        return found

    return Frame(
        topic_pk=pool[:, 0],
        pair_id=pool[:, 1],
        llm_code=per_unit(codes),
        second_code=per_unit(second) if second is not None else np.full(len(pool), -1, dtype=np.int64),
        weight=_unit_weights(material, positions=positions, unit=unit, units=len(pool), topics=len(np.unique(topics))),
    )


def _unit_weights(
    material: Material, *, positions: np.ndarray, unit: np.ndarray, units: int, topics: int
) -> np.ndarray:
    """Each frame unit's weight in the run scores (`Population.coefficients`, summed over its citations): a pair
    cited by a short answer weighs more than one of a long answer (the active design's |c|)."""
    _runs, _topics, sentences = material.answer_columns
    answer = material.citation_answer_position[positions]
    judged = np.bincount(answer, minlength=len(sentences)).astype(float)
    per_citation = (1 / np.maximum(judged[answer], 1) + 1 / np.maximum(sentences[answer], 1)) / (2 * max(topics, 1))
    return np.bincount(unit, weights=per_citation, minlength=units)


def _judged_units(
    *, sample: BudgetSample, pool: np.ndarray, citation_unit: np.ndarray, human_codes: np.ndarray
) -> tuple[np.ndarray, np.ndarray]:
    """Per frame unit: whether it was drawn and judged (the human set labels one of its citations), and its
    probability of that, π times the judged share of its topic's draw (the two-phase design)."""
    items = list(
        BudgetSampleItem.objects.filter(sample=sample).values_list("topic_id", "pair_id", "inclusion_probability")
    )
    width = int(pool[:, 1].max(initial=0)) + 1
    keys = pool[:, 0] * width + pool[:, 1]
    unit_pi = np.zeros(len(pool))
    drawn_units = np.zeros(len(pool), dtype=bool)
    for topic_pk, pair_id, probability in items:
        at = int(np.searchsorted(keys, topic_pk * width + pair_id))
        if at < len(keys) and keys[at] == topic_pk * width + pair_id:
            unit_pi[at] = probability
            drawn_units[at] = True
    # A unit is judged when the human set labels one of its citations.
    unit_judged = np.zeros(len(pool), dtype=bool)
    unit_judged[citation_unit[human_codes >= 0]] = True
    unit_judged &= drawn_units
    phase_two = np.ones(len(pool))
    for topic_pk in np.unique(pool[:, 0]):
        in_topic = pool[:, 0] == topic_pk
        drawn = int(drawn_units[in_topic].sum())
        if drawn:
            phase_two[in_topic] = unit_judged[in_topic].sum() / drawn
    effective_pi = unit_pi * phase_two
    return unit_judged, effective_pi


def budget_campaign_population(*, sample: BudgetSample) -> tuple[CampaignPopulation, np.ndarray, np.ndarray, LabelSet]:
    """The population of the sample's campaign and, per citation, whether its unit was drawn and judged and the
    probability it had of that: (population, judged, pi, the human label set).

    Human labels are the campaign's from-scratch set (`campaign:NAME/from_scratch`), read on drawn units only.
    While judging goes on, a topic's judged units are the first of its shuffled queue: a random part of the
    topic's draw, so each judged unit's probability is its π times (judged / drawn in its topic), a two-phase
    design. A unit drawn but not yet judged (or skipped, or tied) counts as not drawn."""
    campaign = sample.campaign
    material, positions, citation_topic, unit, pool = _pool_citations(campaign)
    llm = label_set_get(sample.llm)
    human = label_set_get(LabelSetName(LabelSetKind.CAMPAIGN, campaign.name, Condition.FROM_SCRATCH).format())
    llm_codes = labels_get(llm, material).codes[positions].astype(np.int64)
    # A campaign set with no assessor yet has no judges: nothing is labelled (labels_get needs a judge).
    human_codes = (
        labels_get(human, material).codes[positions].astype(np.int64)
        if human.judge_ids
        else np.full(len(positions), -1, dtype=np.int64)
    )
    unit_judged, effective_pi = _judged_units(sample=sample, pool=pool, citation_unit=unit, human_codes=human_codes)
    answer_run, _answer_topic, sentence_counts = material.answer_columns
    answer_position = material.citation_answer_position[positions]
    population = Population(
        answer=answer_position,
        llm_code=llm_codes,
        human_code=np.where(unit_judged[unit], human_codes, -1),
        answer_run=np.where(answer_run >= 0, answer_run, 0),
        answer_judged=np.bincount(answer_position, minlength=len(sentence_counts)).astype(float),
        answer_sentences=sentence_counts.astype(float),
        n_runs=len(material.run_names),
        n_topics=len(material.topic_names),
        unit=unit,
    )
    judged = unit_judged[unit] & (human_codes >= 0)
    return (
        CampaignPopulation(
            population=population,
            runs=list(material.run_names),
            topics=list(material.topic_names),
            citation_unit=unit,
            citation_topic_pk=citation_topic,
            frame_topic_pk=pool[:, 0],
            frame_pair_id=pool[:, 1],
        ),
        judged,
        np.where(judged, effective_pi[unit], 0.0),
        human,
    )


def llm_expected_errors(*, llm: LabelSet, reference: LabelSet, scope: Scope) -> dict[int, float]:
    """The LLM's expected error per label code (-1: no label), √E[d²], from the first citations in `scope` that
    `reference` (human labels already made) labels beside the LLM (`estimators.expected_errors`: residuals
    against the LLM recalibrated on them, each label shrunk toward the pooled value)."""
    population, known, _runs, _topics = plan_population(llm=llm, human=reference, scope=scope)
    known &= population.llm_code >= 0
    if known.sum() < 10:
        raise ValueError(
            f"{reference.spec} labels fewer than 10 first citations beside {llm.spec}: nothing to learn from"
        )
    human = np.nan_to_num(population.human_weights())
    residual = human - _calibrated(population.llm_weights(), human, known, np.ones(len(human)))
    error = expected_errors(population.llm_code, known=known, residual=residual)
    return {int(code): float(error[population.llm_code == code][0]) for code in np.unique(population.llm_code)}


def plan_label_sets(sets: list[LabelSet]) -> list[str]:
    """The specs of these human sets, the one with the most from-scratch judgments first (the likeliest to plan
    from: an imported source such as NIST's, or an earlier campaign)."""
    counts = dict(
        Judgment.objects.filter(condition=Condition.FROM_SCRATCH)
        .values("judge_id")
        .annotate(n=Count("pk"))
        .values_list("judge_id", "n")
    )
    return [s.spec for s in sorted(sets, key=lambda s: -sum(counts.get(j, 0) for j in s.judge_ids))]


# --- label sets over a scope, no sample: the simulation's population (a truth set), the plan's (labels made) --


def _labelled_population(
    material: Material,
    *,
    human: CitationLabels,
    machine: CitationLabels,
    labelled: np.ndarray,
    sentences_judged_only: bool,
) -> tuple[Population, np.ndarray]:
    """(population, topic positions): the first citations `labelled` marks, over the topics where it marks one,
    with the human and the LLM label of each. Recall's denominators are the answers' sentences, less those with
    no labelled citation when `sentences_judged_only` (a truth set that left them out)."""
    answer_run, answer_topic, sentence_counts = material.answer_columns
    position = material.citation_answer_position
    topics = np.unique(answer_topic[position[labelled]])
    in_topics = np.isin(answer_topic, topics) & (answer_run >= 0)
    keep = labelled & in_topics[position]
    sentences = sentence_counts
    if sentences_judged_only:
        sentence_of, sentence_answer = material.sentence_positions
        sentence_judged = np.bincount(sentence_of, weights=labelled, minlength=len(sentence_answer))
        sentences = sentence_counts - np.bincount(
            sentence_answer, weights=sentence_judged == 0, minlength=len(sentence_counts)
        )
    population = Population(
        answer=position[keep],
        llm_code=machine.codes[keep].astype(np.int64),
        human_code=human.codes[keep].astype(np.int64),
        answer_run=np.where(in_topics, answer_run, 0),
        answer_judged=np.bincount(position[keep], minlength=len(sentence_counts)).astype(float),
        answer_sentences=np.where(in_topics, sentences, 0).astype(float),
        n_runs=len(material.run_names),
        n_topics=len(topics),
    )
    return population, topics


def budget_population(*, truth: LabelSet, llm: LabelSet, scope: Scope) -> tuple[Population, list[str], list[str]]:
    """(population, run ids, topic ids): every citation the truth set labels at depth 1, over the topics it
    judged, with the LLM set's label (-1 where it has none). Recall is linear in the labels only at depth 1."""
    if scope.depth != 1:
        raise ValueError("the budget estimates are defined at depth 1 (first citations), as the paper's scores")
    material = material_get(scope)
    human, machine = labels_get(truth, material), labels_get(llm, material)
    population, topics = _labelled_population(
        material, human=human, machine=machine, labelled=human.labelled, sentences_judged_only=True
    )
    return population, list(material.run_names), [material.topic_names[int(t)] for t in topics]


def plan_population(
    *, llm: LabelSet, human: LabelSet, scope: Scope
) -> tuple[Population, np.ndarray, list[str], list[str]]:
    """(population, known, run ids, topic ids) for planning: every first citation in scope that the LLM set or
    the human set labels, over the topics where either labels one; `known` marks those the human set labels.
    Denominators are the answers' first citations and sentences (what a full judging would count)."""
    if scope.depth != 1:
        raise ValueError("the budget estimates are defined at depth 1 (first citations), as the paper's scores")
    for label_set in (llm, human):
        if not label_set.judge_ids:
            raise ValueError(f"{label_set.spec} has no labels yet: planning needs a set with labels")
    material = material_get(scope)
    human_labels, machine = labels_get(human, material), labels_get(llm, material)
    population, topics = _labelled_population(
        material,
        human=human_labels,
        machine=machine,
        labelled=human_labels.labelled | machine.labelled,
        sentences_judged_only=False,
    )
    known = population.human_code >= 0
    return population, known, list(material.run_names), [material.topic_names[int(t)] for t in topics]


# --- the samples ------------------------------------------------------------------------------------


def _samples() -> QuerySet[BudgetSample]:
    """The samples with their campaign and `drawn`, the number of pairs drawn, in the one query."""
    return BudgetSample.objects.select_related("campaign").annotate(drawn=Count("items"))


def budget_sample_list(*, campaign: Campaign | None = None) -> QuerySet[BudgetSample]:
    return _samples().filter(campaign=campaign) if campaign is not None else _samples()


def budget_sample_get(*, sample_id: int) -> BudgetSample | None:
    return _samples().filter(pk=sample_id).first()


def budget_sample_topics(*, sample: BudgetSample) -> list[tuple[int, str, int]]:
    """(topic pk, topic id, pairs drawn) per topic of the campaign, in topic id order."""
    drawn = dict(
        BudgetSampleItem.objects.filter(sample=sample)
        .values("topic_id")
        .annotate(n=Count("pk"))
        .values_list("topic_id", "n")
    )
    return [
        (pk, topic_id, drawn.get(pk, 0))
        for pk, topic_id in sample.campaign.topics.order_by("topic_id").values_list("pk", "topic_id")
    ]


def budget_sample_assignments(*, sample: BudgetSample) -> QuerySet[Assignment]:
    """The sample's assignments by assessor and order, each with its progress (`done`, `total`)."""
    return assignments_with_progress(
        sample.assignments.select_related("assessor", "topic").order_by("assessor__username", "order")
    )
