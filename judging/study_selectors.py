"""Reads for the disagreement study (DESIGN §6): the labels the sample is drawn from, and the study's table.

A citation's label for a judge selection is that judge's newest judgment on this very citation, else its
newest on the citation's pair (DESIGN §2), the same rule as `metrics.selectors.citation_labels`; it is
written again here because judging must not import metrics. Adjudication judgments are left out of it: the
study compares the labels that existed before anyone re-judged."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field

from django.db.models import QuerySet

from assess.models import Citation
from judging.models import (
    Campaign,
    CampaignPair,
    Condition,
    Judge,
    JudgeKind,
    Judgment,
    Study,
    StudyItem,
)
from judging.services import normalize_sentence_text, text_hash

HUMAN = "human"  # the judge selection that means every human judge together
CHUNK = 5000


class UnknownJudge(ValueError):
    pass


def judge_ids_for(selection: str) -> tuple[int, ...]:
    """A judge by name, or `human`: every human judge together (as `--judge human` means in the metrics)."""
    if selection == HUMAN and not Judge.objects.filter(name=HUMAN).exists():
        ids = tuple(Judge.objects.filter(kind=JudgeKind.HUMAN).order_by("pk").values_list("pk", flat=True))
        if not ids:
            raise UnknownJudge("there is no human judge yet")
        return ids
    judge = Judge.objects.filter(name=selection).first()
    if judge is None:
        raise UnknownJudge(f"no judge named {selection!r}")
    return (judge.pk,)


@dataclass(frozen=True)
class PoolCitation:
    """A citation of the campaign's pool (within its depth), with the pair it is judged as."""

    citation_id: int
    topic_pk: int
    pair_id: int
    context: bool  # the citation the judging page shows for this pair


def pool_citations(*, campaign: Campaign) -> list[PoolCitation]:
    """Every citation of the campaign's runs and topics within its depth whose pair is in the pool, ordered by
    topic, pair and citation id."""
    pool: dict[tuple[int, str, int], tuple[int, int]] = {}
    for topic_pk, pair_id, text_hashed, passage_pk, context_id in CampaignPair.objects.filter(
        campaign=campaign
    ).values_list("topic_id", "pair_id", "pair__text_hash", "pair__passage_id", "context_citation_id"):
        pool[(topic_pk, text_hashed, passage_pk)] = (pair_id, context_id)
    if not pool:
        return []
    citations = Citation.objects.filter(
        sentence__answer__run__in=campaign.runs.all(),
        sentence__answer__topic__in=campaign.topics.all(),
        slot__lt=campaign.depth,
    ).values_list("pk", "sentence__answer__topic_id", "passage_id", "sentence__text")
    found: list[PoolCitation] = []
    for citation_id, topic_pk, passage_pk, text in citations.iterator(chunk_size=CHUNK):
        hit = pool.get((topic_pk, text_hash(normalize_sentence_text(text)), passage_pk))
        if hit is not None:
            found.append(PoolCitation(citation_id, topic_pk, hit[0], citation_id == hit[1]))
    found.sort(key=lambda c: (c.topic_pk, c.pair_id, c.citation_id))
    return found


def citation_labels(*, judge_ids: Iterable[int], citations: list[PoolCitation]) -> dict[int, str]:
    """The judge selection's label of each citation that has one (adjudication judgments left out)."""
    ids = list(judge_ids)
    wanted = {c.citation_id for c in citations}
    pair_ids = sorted({c.pair_id for c in citations})
    on_citation: dict[int, tuple[int, str]] = {}
    on_pair: dict[int, tuple[int, str]] = {}
    for start in range(0, len(pair_ids), CHUNK):
        rows = (
            Judgment.objects.filter(judge_id__in=ids, pair_id__in=pair_ids[start : start + CHUNK])
            .exclude(condition=Condition.ADJUDICATION)
            .values_list("pk", "citation_id", "pair_id", "label")
        )
        for pk, citation_id, pair_id, label in rows:
            if pk > on_pair.get(pair_id, (0, ""))[0]:
                on_pair[pair_id] = (pk, label)
            if citation_id in wanted and pk > on_citation.get(citation_id, (0, ""))[0]:
                on_citation[citation_id] = (pk, label)
    labels: dict[int, str] = {}
    for c in citations:
        found = on_citation.get(c.citation_id) or on_pair.get(c.pair_id)
        if found is not None:
            labels[c.citation_id] = found[1]
    return labels


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
