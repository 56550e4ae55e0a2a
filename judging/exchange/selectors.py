"""The rows the judgment exports write: each label set's labels (`judging.labels`) of the citations in a scope."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import Value
from django.db.models.functions import Coalesce

from assess.arrays import int_columns
from assess.models import Citation, Passage, Sentence
from judging.exchange.nist import NIST_SUPPORT_CODE
from judging.exchange.qrels import QrelsLevel
from judging.labels import LABEL_CODE, CitationLabels, LabelSet, citation_labels, labels_as_dict
from judging.models import Judgment
from judging.scope import Scope

CHUNK = 5000
LABEL_OF_CODE = {code: label for label, code in LABEL_CODE.items()}


@dataclass(frozen=True)
class _InScope:
    """The answers in scope and their citations within the depth, in (answer, sentence index, slot) order."""

    answers: dict[int, tuple[str, str]]  # answer id -> (topic_id, run_id)
    citation_id: np.ndarray
    citation_answer: np.ndarray
    citation_sentence_index: np.ndarray
    citation_slot: np.ndarray
    citation_passage: np.ndarray  # passage pk
    citation_pair: np.ndarray  # the citation's stored pair (0: none stored)

    def labels(self, label_set: LabelSet) -> CitationLabels:
        return citation_labels(label_set, citation_ids=self.citation_id, citation_pairs=self.citation_pair)


def _in_scope(scope: Scope) -> _InScope:
    columns = int_columns(
        scope.citations()
        .order_by("sentence__answer_id", "sentence__index", "slot")
        .annotate(pair_or_zero=Coalesce("stored_pair__pair_id", Value(0)))
        .values_list("pk", "sentence__answer_id", "sentence__index", "slot", "passage_id", "pair_or_zero"),
        6,
    )
    answers = {pk: (t, r) for pk, t, r in scope.answers().values_list("pk", "topic__topic_id", "run__run_id")}
    return _InScope(answers, *columns)


def exchange_rows(*, scope: Scope, label_sets: Iterable[LabelSet]) -> Iterator[dict[str, Any]]:
    """The judgments exchange rows: each set's label of each citation in scope that it labelled, with the
    judgment that decided it and the set it comes from."""
    material = _in_scope(scope)
    passage_ids = _passage_ids(set(material.citation_passage.tolist()))
    citations = list(
        zip(
            material.citation_id.tolist(),
            material.citation_answer.tolist(),
            material.citation_sentence_index.tolist(),
            material.citation_slot.tolist(),
            material.citation_passage.tolist(),
            strict=True,
        )
    )
    for label_set in label_sets:
        labels = labels_as_dict(material.labels(label_set), material.citation_id)
        details = _judgment_details({judgment_id for _, judgment_id in labels.values()})
        for citation_id, answer_id, sentence_index, slot, passage in citations:
            found = labels.get(citation_id)
            if found is None:
                continue
            label, judgment_id = found
            topic_id, run_id = material.answers[answer_id]
            judge_name, judge_kind, condition, shown, seconds, created = details[judgment_id]
            yield {
                "topic_id": topic_id,
                "run_id": run_id,
                "sentence_index": sentence_index,
                "citation_slot": slot,
                "passage_id": passage_ids[passage],
                "judge": judge_name,
                "judge_kind": judge_kind,
                "condition": condition,
                "label": label,
                "shown_label": shown,
                "seconds": seconds,
                "created_at": created.isoformat(),
                "label_set": label_set.spec,
            }


def nist_rows(*, scope: Scope, label_set: LabelSet) -> Iterator[dict[str, Any]]:
    """NIST-style support judgments, one object per (topic, run) the set labelled; `citationId` indexes the
    run's references and `support` is "2", "1", "0", or "-1" for a citation the set did not label."""
    material = _in_scope(scope)
    labels_ = material.labels(label_set)
    labels = labels_as_dict(labels_, material.citation_id)
    touched = set(material.citation_answer[labels_.labelled | labels_.not_judged | labels_.tied].tolist())
    passage_ids = _passage_ids(set(material.citation_passage.tolist()))
    by_answer: dict[int, list[tuple[int, int, int]]] = {}
    for citation_id, answer_id, sentence_index, passage in zip(
        material.citation_id.tolist(),
        material.citation_answer.tolist(),
        material.citation_sentence_index.tolist(),
        material.citation_passage.tolist(),
        strict=True,
    ):
        by_answer.setdefault(answer_id, []).append((citation_id, sentence_index, passage))
    answer_ids = sorted((pk for pk in material.answers if pk in touched), key=material.answers.__getitem__)
    for start in range(0, len(answer_ids), 500):
        batch = answer_ids[start : start + 500]
        texts: dict[int, list[str]] = {}
        for answer_id, text in (
            Sentence.objects.filter(answer_id__in=batch).order_by("answer_id", "index").values_list("answer_id", "text")
        ):
            texts.setdefault(answer_id, []).append(text)
        reference_index = dict(
            Citation.objects.filter(sentence__answer_id__in=batch).values_list("pk", "reference_index")
        )
        for answer_id in batch:
            topic_id, run_id = material.answers[answer_id]
            cites: dict[int, list[dict[str, Any]]] = {}
            for citation_id, sentence_index, passage in by_answer[answer_id]:
                found = labels.get(citation_id)
                cites.setdefault(sentence_index, []).append(
                    {
                        "citationId": reference_index[citation_id],
                        "reference": passage_ids[passage],
                        "support": NIST_SUPPORT_CODE[found[0]] if found else "-1",
                    }
                )
            yield {
                "topic_id": topic_id,
                "run_id": run_id,
                "label_set": label_set.spec,
                "sentences": [
                    {"sentenceId": i, "text": text, "citations": cites.get(i, [])}
                    for i, text in enumerate(texts.get(answer_id, []))
                ],
            }


def qrels_rows(*, scope: Scope, label_set: LabelSet, level: str) -> list[tuple[str, str, int]]:
    """(qid, docid, grade) of one label set's labelled citations, sorted; see `QRELS_LEVEL_HELP`. A (qid,
    docid) that several citations give (one passage cited twice in a sentence, or in several sentences or
    runs of a topic) gets the highest of their grades."""
    if level not in QrelsLevel.CHOICES:
        raise ValueError(f"unknown qrels level {level!r}: {' or '.join(QrelsLevel.CHOICES)}")
    material = _in_scope(scope)
    labels = material.labels(label_set)
    labelled = np.flatnonzero(labels.labelled)
    passage_ids = _passage_ids({int(p) for p in material.citation_passage[labelled]})
    best: dict[tuple[str, str, int, str], int] = {}
    for position in labelled.tolist():
        topic_id, run_id = material.answers[int(material.citation_answer[position])]
        key = (
            (topic_id, run_id, int(material.citation_sentence_index[position]))
            if level == QrelsLevel.SENTENCE
            else (topic_id, "", -1)
        ) + (passage_ids[int(material.citation_passage[position])],)
        grade = int(NIST_SUPPORT_CODE[LABEL_OF_CODE[int(labels.codes[position])]])  # NIST's grades: FS 2, PS 1, NS 0
        if grade > best.get(key, -1):
            best[key] = grade
    return [
        (f"{topic_id}/{run_id}/{index}" if level == QrelsLevel.SENTENCE else topic_id, docid, grade)
        for (topic_id, run_id, index, docid), grade in sorted(best.items())
    ]


def _passage_ids(pks: set[int]) -> dict[int, str]:
    ids = list(pks)
    found: dict[int, str] = {}
    for start in range(0, len(ids), CHUNK):
        found.update(Passage.objects.filter(pk__in=ids[start : start + CHUNK]).values_list("pk", "passage_id"))
    return found


def _judgment_details(pks: set[int]) -> dict[int, tuple[str, str, str, str, float | None, Any]]:
    ids = list(pks)
    found: dict[int, tuple[str, str, str, str, float | None, Any]] = {}
    for start in range(0, len(ids), CHUNK):
        for pk, name, kind, condition, shown, seconds, created in Judgment.objects.filter(
            pk__in=ids[start : start + CHUNK]
        ).values_list("pk", "judge__name", "judge__kind", "condition", "shown_label", "seconds", "created_at"):
            found[pk] = (name, kind, condition, shown, seconds, created)
    return found
