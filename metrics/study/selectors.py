"""Reads for the disagreement study (DESIGN §6): the pool citations its sample is drawn from, the labels of
two label sets on them (the one rule of `judging.labels`), and the study's table."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from django.db.models import QuerySet

from assess.models import Citation
from judging.labels import LabelSet, citation_labels, labels_as_dict
from judging.models import Campaign, CampaignPair, Condition, Judgment
from metrics.study.models import Study, StudyItem

CHUNK = 5000


@dataclass(frozen=True)
class PoolCitation:
    """A citation of the campaign's pool (within its depth), with the pair it is judged as."""

    citation_id: int
    topic_pk: int
    pair_id: int
    context: bool  # the citation the judging page shows for this pair


def pool_citations(*, campaign: Campaign) -> list[PoolCitation]:
    """Every citation of the campaign's runs and topics within its depth whose stored pair is in the pool,
    ordered by topic, pair and citation id."""
    pool = {
        (topic_pk, pair_id): context_id
        for topic_pk, pair_id, context_id in CampaignPair.objects.filter(campaign=campaign).values_list(
            "topic_id", "pair_id", "context_citation_id"
        )
    }
    if not pool:
        return []
    citations = Citation.objects.filter(
        sentence__answer__run__in=campaign.runs.all(),
        sentence__answer__topic__in=campaign.topics.all(),
        slot__lt=campaign.depth,
        stored_pair__isnull=False,
    ).values_list("pk", "sentence__answer__topic_id", "stored_pair__pair_id")
    found: list[PoolCitation] = []
    for citation_id, topic_pk, pair_id in citations.iterator(chunk_size=CHUNK):
        context = pool.get((topic_pk, pair_id))
        if context is not None:
            found.append(PoolCitation(citation_id, topic_pk, pair_id, citation_id == context))
    found.sort(key=lambda c: (c.topic_pk, c.pair_id, c.citation_id))
    return found


def pool_labels(*, label_set: LabelSet, citations: list[PoolCitation]) -> dict[int, str]:
    """The label set's label of each pool citation that has one."""
    ids = np.array([c.citation_id for c in citations], dtype=np.int64)
    pairs = np.array([c.pair_id for c in citations], dtype=np.int64)
    labels = citation_labels(label_set, citation_ids=ids, citation_pairs=pairs)
    return {citation_id: label for citation_id, (label, _judgment) in labels_as_dict(labels, ids).items()}


# --- a study's sample and its labels --------------------------------------------------------------


def study_list(*, campaign: Campaign | None = None) -> QuerySet[Study]:
    qs = Study.objects.select_related("campaign", "second_judge")
    return qs.filter(campaign=campaign) if campaign is not None else qs


def study_get(*, study_id: int) -> Study | None:
    return Study.objects.select_related("campaign", "second_judge").filter(pk=study_id).first()


@dataclass
class StudyRow:
    """One sampled pair with every judge's label on it ('' where a judge has not labelled it yet)."""

    order: int
    topic_id: str
    pair_id: int
    run_id: str
    sentence_index: int
    citation_slot: int
    passage_id: str
    sentence: str
    label_a: str
    label_b: str
    independent: str = ""
    independent_judge: str = ""
    second: str = ""


@dataclass
class StudyTable:
    study: Study
    rows: list[StudyRow]
    topics: list[dict[str, object]]  # the sampling summary per topic
    adjudicators: list[str] = field(default_factory=list)


def study_table(*, study: Study) -> StudyTable:
    """The sample in topic and queue order with the frozen labels of `a` and `b`, the independent assessors'
    label (newest adjudication judgment made in the study's assignments) and the second LLM judge's label."""
    items = list(
        StudyItem.objects.filter(study=study)
        .select_related("topic", "pair__passage", "citation__sentence__answer__run")
        .order_by("topic__topic_id", "order")
    )
    pair_ids = [item.pair_id for item in items]
    independent: dict[tuple[int, int], tuple[str, str]] = {}
    for topic_pk, pair_id, label, judge_name in (
        Judgment.objects.filter(assignment__studies=study, pair_id__in=pair_ids, condition=Condition.ADJUDICATION)
        .order_by("pk")
        .values_list("assignment__topic_id", "pair_id", "label", "judge__name")
    ):
        independent[(topic_pk, pair_id)] = (label, judge_name)
    second: dict[int, str] = {}
    if study.second_judge_id is not None:
        second = dict(
            Judgment.objects.filter(judge_id=study.second_judge_id, pair_id__in=pair_ids)
            .order_by("pk")
            .values_list("pair_id", "label")
        )
    rows = []
    for item in items:
        sentence = item.citation.sentence
        label, judge_name = independent.get((item.topic_id, item.pair_id), ("", ""))
        rows.append(
            StudyRow(
                order=item.order,
                topic_id=item.topic.topic_id,
                pair_id=item.pair_id,
                run_id=sentence.answer.run.run_id,
                sentence_index=sentence.index,
                citation_slot=item.citation.slot,
                passage_id=item.pair.passage.passage_id,
                sentence=item.pair.text,
                label_a=item.label_a,
                label_b=item.label_b,
                independent=label,
                independent_judge=judge_name,
                second=second.get(item.pair_id, ""),
            )
        )
    adjudicators = sorted(
        set(study.assignments.values_list("assessor__username", flat=True)),
    )
    return StudyTable(study=study, rows=rows, topics=list(study.summary.get("topics", [])), adjudicators=adjudicators)


def study_pair_ids(*, study: Study) -> list[int]:
    return sorted(set(StudyItem.objects.filter(study=study).values_list("pair_id", flat=True)))
