"""The rows the judgment exports write: each label set's labels (`judging.labels`) of the citations in a scope."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

import numpy as np
from django.db.models import Q, Value
from django.db.models.functions import Coalesce

from assess.models import Citation, Passage, Sentence
from core.arrays import int_columns
from judging.exchange.nist import NIST_SUPPORT_CODE
from judging.exchange.qrels import QrelsLevel
from judging.labels import LABEL_CODE, CitationLabels, LabelSet, citation_labels, labels_as_dict
from judging.models import NOT_JUDGED, FinalLabel, Judgment, NistKeys, NistSentence
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
        decided = material.labels(label_set)
        labels = labels_as_dict(decided, material.citation_id)
        # The set's "cannot judge" on a citation: a row without a label, with the newest such judgment's reason.
        # Only an assessor's, made in an assignment: an imported "not judged" (NIST's -1) has no row, as before.
        for citation_id, judgment_id in _not_judged(label_set, material.citation_id, decided).items():
            labels[citation_id] = ("", judgment_id)
        details = _judgment_details({judgment_id for _, judgment_id in labels.values()})
        for citation_id, answer_id, sentence_index, slot, passage in citations:
            found = labels.get(citation_id)
            if found is None:
                continue
            label, judgment_id = found
            topic_id, run_id = material.answers[answer_id]
            judge_name, judge_kind, condition, shown, seconds, created, flagged, comment, reason = details[judgment_id]
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
                "flagged": flagged,
                "comment": comment,
                "not_judged_reason": reason if not label else "",
            }


class NistKeyChoice:
    """Which spelling the NIST-style export writes: each answer's source's (`source`), or one for all."""

    SOURCE = "source"
    CHOICES = (SOURCE, NistKeys.WEBASSESS.value, NistKeys.FINAL.value)


def nist_rows(*, scope: Scope, label_set: LabelSet, keys: str = NistKeyChoice.SOURCE) -> Iterator[dict[str, Any]]:
    """NIST-style support judgments: one object per answer in scope on the topics the set labelled (an answer
    without a citation or with none judged included; for a set read from a NIST file, only the answers that
    file described or the set labelled), `support` "2", "1", "0", or "-1" where the set has no
    label. Where the set's labels came from a NIST file (`NistSentence`), each sentence is written as that
    file wrote it: its key spelling, `verification_worthy`, `citationsCombibed` and citation list with
    NIST's `citationId`s, in NIST's order (then any other citation the set labelled); elsewhere every
    citation in scope in slot order. `keys` forces one spelling: `sentenceId`/`citationId` (the Webassess
    file: citationId indexes the answer's references) or `sentenceID`/`citationID` (the 2024-10-25 files:
    citationID is the citation's position in the sentence's list)."""
    if keys not in NistKeyChoice.CHOICES:
        raise ValueError(f"unknown NIST key spelling {keys!r}: {', '.join(NistKeyChoice.CHOICES)}")
    material = _in_scope(scope)
    labels_ = material.labels(label_set)
    labels = labels_as_dict(labels_, material.citation_id)
    labelled_topics = {material.answers[a][0] for a in set(material.citation_answer[labels_.labelled].tolist())}
    in_scope: dict[int, dict[int, list[tuple[int, int]]]] = {}  # answer -> sentence -> [(citation, passage)]
    for citation_id, answer_id, sentence_index, passage in zip(
        material.citation_id.tolist(),
        material.citation_answer.tolist(),
        material.citation_sentence_index.tolist(),
        material.citation_passage.tolist(),
        strict=True,
    ):
        in_scope.setdefault(answer_id, {}).setdefault(sentence_index, []).append((citation_id, passage))
    passage_ids = _passage_ids(set(material.citation_passage.tolist()))
    source = (
        (label_set.judge_ids[0], label_set.condition)
        if not label_set.several and label_set.campaign_id is None and label_set.judge_ids
        else None
    )
    answer_ids = sorted(
        (pk for pk, (topic_id, _) in material.answers.items() if topic_id in labelled_topics),
        key=material.answers.__getitem__,
    )
    # A set read from a NIST file writes the answers that file described (or that the set labelled since), never
    # another run's answers as all "-1": NIST did not leave those unjudged, it never saw them.
    from_file = source is not None and NistSentence.objects.filter(judge_id=source[0], condition=source[1]).exists()
    labelled_answers = set(material.citation_answer[labels_.labelled].tolist())
    for start in range(0, len(answer_ids), 500):
        batch = answer_ids[start : start + 500]
        sentences: dict[int, list[tuple[int, int, str]]] = {}
        for pk, answer_id, index, text in (
            Sentence.objects.filter(answer_id__in=batch)
            .order_by("answer_id", "index")
            .values_list("pk", "answer_id", "index", "text")
        ):
            sentences.setdefault(answer_id, []).append((pk, index, text))
        reference_index = dict(
            Citation.objects.filter(sentence__answer_id__in=batch).values_list("pk", "reference_index")
        )
        written: dict[int, NistSentence] = {}
        if source is not None:
            written = {
                n.sentence_id: n
                for n in NistSentence.objects.filter(
                    judge_id=source[0], condition=source[1], sentence__answer_id__in=batch
                )
            }
        for answer_id in batch:
            topic_id, run_id = material.answers[answer_id]
            answer_sentences = sentences.get(answer_id, [])
            if (
                from_file
                and answer_id not in labelled_answers
                and not any(pk in written for pk, _, _ in answer_sentences)
            ):
                continue
            style = keys
            if style == NistKeyChoice.SOURCE:
                style = next(
                    (written[pk].keys for pk, _, _ in answer_sentences if pk in written), NistKeys.WEBASSESS.value
                )
            yield {
                "topic_id": topic_id,
                "run_id": run_id,
                "label_set": label_set.spec,
                "sentences": [
                    _nist_sentence(
                        index,
                        text,
                        written.get(pk),
                        in_scope.get(answer_id, {}).get(index, []),
                        style=style,
                        support=lambda citation_id: (
                            NIST_SUPPORT_CODE[labels[citation_id][0]] if citation_id in labels else "-1"
                        ),
                        passage_ids=passage_ids,
                        reference_index=reference_index,
                    )
                    for pk, index, text in answer_sentences
                ],
            }


def _nist_sentence(
    index: int,
    text: str,
    written: NistSentence | None,
    citations: list[tuple[int, int]],
    *,
    style: str,
    support: Callable[[int], str],
    passage_ids: dict[int, str],
    reference_index: dict[int, int],
) -> dict[str, Any]:
    """One sentence as NIST writes it (`nist_rows`)."""
    by_passage = {passage_ids[passage]: citation_id for citation_id, passage in citations}
    listed: list[tuple[int | None, str]] = []  # (NIST's citationId when it is this style's, reference)
    if written is not None:
        same_style = written.keys == style
        listed = [(cid if same_style else None, ref) for cid, ref in written.citations if ref in by_passage]
    in_list = {ref for _, ref in listed}
    listed += [
        (None, passage_ids[passage])
        for citation_id, passage in citations
        if passage_ids[passage] not in in_list and (written is None or support(citation_id) != "-1")
    ]
    webassess = style == NistKeys.WEBASSESS
    out: dict[str, Any] = {"sentenceId" if webassess else "sentenceID": index}
    if written is not None and written.verification_worthy:
        out["verification_worthy"] = written.verification_worthy
    if written is not None and written.citations_combined:
        out["citationsCombibed"] = written.citations_combined
    out["text"] = text
    out["citations"] = [
        {
            "citationId" if webassess else "citationID": (
                cid if cid is not None else reference_index[by_passage[ref]] if webassess else position
            ),
            "reference": ref,
            "support": support(by_passage[ref]),
        }
        for position, (cid, ref) in enumerate(listed)
    ]
    return out


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


def _not_judged(label_set: LabelSet, citation_ids: np.ndarray, decided: CitationLabels) -> dict[int, int]:
    """citation id -> the judgment that recorded the set's "cannot judge" of it (the newest of the set's
    "cannot judge" judgments on the citation, else on its stored pair)."""
    at = np.nonzero(decided.not_judged)[0]
    if not len(at):
        return {}
    citations = citation_ids[at].tolist()
    pairs = decided.pair_ids[at].tolist()
    rows = (
        label_set.judgments()
        .filter(label=NOT_JUDGED, assignment__isnull=False)
        .filter(Q(citation_id__in=citations) | Q(pair_id__in=[p for p in pairs if p]))
        .order_by("pk")
        .values_list("pk", "citation_id", "pair_id")
    )
    by_citation: dict[int, int] = {}
    by_pair: dict[int, int] = {}
    for pk, citation, pair in rows:  # oldest first: the newest wins
        if citation is not None:
            by_citation[citation] = pk
        by_pair[pair] = pk
    out: dict[int, int] = {}
    for citation, pair in zip(citations, pairs, strict=True):
        found = by_citation.get(citation) or by_pair.get(pair)
        if found:
            out[int(citation)] = found
    return out


JudgmentDetails = tuple[str, str, str, str, float | None, Any, bool, str, str]


def _judgment_details(pks: set[int]) -> dict[int, JudgmentDetails]:
    """judge, kind, condition, shown label, seconds, created, flagged, comment, not-judged reason, by judgment."""
    ids = list(pks)
    found: dict[int, JudgmentDetails] = {}
    fields = ["judge__name", "judge__kind", "condition", "shown_label", "seconds", "created_at"]
    fields += ["flagged", "comment", "not_judged_reason"]
    for start in range(0, len(ids), CHUNK):
        for pk, *rest in Judgment.objects.filter(pk__in=ids[start : start + CHUNK]).values_list("pk", *fields):
            found[pk] = tuple(rest)  # type: ignore[assignment]
    # A final label set's reviewed labels (`judging.labels`: a final label's id, negated) name their reviewer.
    finals = [-pk for pk in ids if pk < 0]
    for start in range(0, len(finals), CHUNK):
        for pk, reviewer, created in FinalLabel.objects.filter(pk__in=finals[start : start + CHUNK]).values_list(
            "pk", "reviewer__username", "created_at"
        ):
            found[-pk] = (reviewer, "human", "", "", None, created, False, "", "")
    return found
