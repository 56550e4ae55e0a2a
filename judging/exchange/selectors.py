"""The rows the judgment exports write: each label set's labels (`judging.labels`) of the citations in a scope."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from functools import cached_property
from typing import Any

import numpy as np
from django.db.models import Q, Value
from django.db.models.functions import Coalesce

from assess.models import Passage, Sentence
from core.arrays import int_columns
from judging.exchange.nist import NIST_SUPPORT_CODE
from judging.exchange.qrels import QrelsLevel
from judging.labels import LABEL_CODE, CitationLabels, LabelSet, citation_labels, labels_as_dict
from judging.models import NOT_JUDGED, FinalLabel, Judgment, NistKeys, NistSentence
from judging.scope import Scope

CHUNK = 5000
NIST_BATCH = 2000  # answers whose sentences are read at once
LABEL_OF_CODE = {code: label for label, code in LABEL_CODE.items()}


@dataclass
class ExportMaterial:
    """The answers in scope and their citations within the depth, in (answer, sentence index, slot) order: what
    every judgment export reads. Read once (`export_material`) it can be handed to several writers, with
    `labels_of` giving each label set's labels read once too (the deliverables zip)."""

    answers: dict[int, tuple[str, str]]  # answer id -> (topic_id, run_id)
    citation_id: np.ndarray
    citation_answer: np.ndarray
    citation_sentence_index: np.ndarray
    citation_slot: np.ndarray
    citation_passage: np.ndarray  # passage pk
    citation_pair: np.ndarray  # the citation's stored pair (0: none stored)
    labels_of: Callable[[LabelSet], CitationLabels] | None = None

    def labels(self, label_set: LabelSet) -> CitationLabels:
        """The set's label of each citation (`judging.labels.citation_labels`)."""
        if self.labels_of is not None:
            return self.labels_of(label_set)
        return citation_labels(label_set, citation_ids=self.citation_id, citation_pairs=self.citation_pair)

    @cached_property
    def passage_ids(self) -> dict[int, str]:
        """passage pk -> passage id, of every passage cited in scope."""
        return _passage_ids(set(self.citation_passage.tolist()))


def export_material(scope: Scope) -> ExportMaterial:
    columns = int_columns(
        scope.citations()
        .order_by("sentence__answer_id", "sentence__index", "slot")
        .annotate(pair_or_zero=Coalesce("stored_pair__pair_id", Value(0)))
        .values_list("pk", "sentence__answer_id", "sentence__index", "slot", "passage_id", "pair_or_zero"),
        6,
    )
    answers = {pk: (t, r) for pk, t, r in scope.answers().values_list("pk", "topic__topic_id", "run__run_id")}
    citation_id, answer, sentence_index, slot, passage, pair = columns
    return ExportMaterial(answers, citation_id, answer, sentence_index, slot, passage, pair)


def exchange_rows(
    *, scope: Scope, label_sets: Iterable[LabelSet], material: ExportMaterial | None = None
) -> Iterator[dict[str, Any]]:
    """The judgments exchange rows: each set's label of each citation in scope that it labelled, with the
    judgment that decided it and the set it comes from. `material`: the scope's, when it was read already."""
    material = material if material is not None else export_material(scope)
    passage_ids = material.passage_ids
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


def nist_rows(
    *,
    scope: Scope,
    label_set: LabelSet,
    keys: str = NistKeyChoice.SOURCE,
    material: ExportMaterial | None = None,
) -> Iterator[dict[str, Any]]:
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
    material = material if material is not None else export_material(scope)
    labels_ = material.labels(label_set)
    labels = labels_as_dict(labels_, material.citation_id)
    labelled_topics = {material.answers[a][0] for a in set(material.citation_answer[labels_.labelled].tolist())}
    # answer -> sentence -> [(citation, passage, reference index)]
    in_scope: dict[int, dict[int, list[tuple[int, int, int]]]] = {}
    for citation_id, answer_id, sentence_index, passage, reference in zip(
        material.citation_id.tolist(),
        material.citation_answer.tolist(),
        material.citation_sentence_index.tolist(),
        material.citation_passage.tolist(),
        _reference_indexes(scope, material.citation_id).tolist(),
        strict=True,
    ):
        in_scope.setdefault(answer_id, {}).setdefault(sentence_index, []).append((citation_id, passage, reference))
    passage_ids = material.passage_ids
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
    for start in range(0, len(answer_ids), NIST_BATCH):
        batch = answer_ids[start : start + NIST_BATCH]
        sentences: dict[int, list[tuple[int, int, str]]] = {}
        for pk, answer_id, index, text in (
            Sentence.objects.filter(answer_id__in=batch)
            .order_by("answer_id", "index")
            .values_list("pk", "answer_id", "index", "text")
        ):
            sentences.setdefault(answer_id, []).append((pk, index, text))
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
                    )
                    for pk, index, text in answer_sentences
                ],
            }


def _nist_sentence(
    index: int,
    text: str,
    written: NistSentence | None,
    citations: list[tuple[int, int, int]],
    *,
    style: str,
    support: Callable[[int], str],
    passage_ids: dict[int, str],
) -> dict[str, Any]:
    """One sentence as NIST writes it (`nist_rows`); `citations`: (citation, passage, reference index) in scope."""
    by_passage = {passage_ids[passage]: citation_id for citation_id, passage, _ in citations}
    reference_index = {citation_id: reference for citation_id, _, reference in citations}
    listed: list[tuple[int | None, str]] = []  # (NIST's citationId when it is this style's, reference)
    if written is not None:
        same_style = written.keys == style
        listed = [(cid if same_style else None, ref) for cid, ref in written.citations if ref in by_passage]
    in_list = {ref for _, ref in listed}
    listed += [
        (None, passage_ids[passage])
        for citation_id, passage, _ in citations
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


def qrels_rows(
    *, scope: Scope, label_set: LabelSet, level: str, material: ExportMaterial | None = None
) -> list[tuple[str, str, int]]:
    """(qid, docid, grade) of one label set's labelled citations, sorted; see `QRELS_LEVEL_HELP`. A (qid,
    docid) that several citations give (one passage cited twice in a sentence, or in several sentences or
    runs of a topic) gets the highest of their grades."""
    if level not in QrelsLevel.CHOICES:
        raise ValueError(f"unknown qrels level {level!r}: {' or '.join(QrelsLevel.CHOICES)}")
    material = material if material is not None else export_material(scope)
    labels = material.labels(label_set)
    at = np.flatnonzero(labels.labelled)
    grade_of_code = np.array([int(NIST_SUPPORT_CODE[LABEL_OF_CODE[c]]) for c in range(3)])  # FS 2, PS 1, NS 0
    grades = grade_of_code[labels.codes[at]]
    # Each name as its rank among the names, so that sorting the ranks sorts the names (as Python compares them).
    answer_ids, answer_of = np.unique(material.citation_answer[at], return_inverse=True)
    names = [material.answers[int(a)] for a in answer_ids]
    topics = sorted({t for t, _ in names})
    runs = sorted({r for _, r in names})
    topic_rank = {t: i for i, t in enumerate(topics)}
    run_rank = {r: i for i, r in enumerate(runs)}
    topic_of = np.array([topic_rank[t] for t, _ in names], dtype=np.int64)[answer_of]
    run_of = np.array([run_rank[r] for _, r in names], dtype=np.int64)[answer_of]
    passage_pks, passage_of = np.unique(material.citation_passage[at], return_inverse=True)
    docids = [material.passage_ids[int(p)] for p in passage_pks]
    doc_order = sorted(range(len(docids)), key=docids.__getitem__)
    doc_rank = np.empty(len(docids), dtype=np.int64)
    doc_rank[doc_order] = np.arange(len(docids))
    doc_of = doc_rank[passage_of]
    sentence_level = level == QrelsLevel.SENTENCE
    index_of = material.citation_sentence_index[at] if sentence_level else np.zeros(len(at), dtype=np.int64)
    if not sentence_level:
        run_of = np.zeros(len(at), dtype=np.int64)
    order = np.lexsort((doc_of, index_of, run_of, topic_of))
    keys = np.stack([topic_of, run_of, index_of, doc_of], axis=1)[order]
    starts = np.flatnonzero(np.r_[True, (keys[1:] != keys[:-1]).any(axis=1)]) if len(keys) else np.zeros(0, int)
    best = np.maximum.reduceat(grades[order], starts) if len(starts) else np.zeros(0, dtype=np.int64)
    docids_sorted = [docids[i] for i in doc_order]
    first = keys[starts]
    return [
        (f"{topics[t]}/{runs[r]}/{index}" if sentence_level else topics[t], docids_sorted[d], grade)
        for (t, r, index, d), grade in zip(first.tolist(), best.tolist(), strict=True)
    ]


def _reference_indexes(scope: Scope, citation_ids: np.ndarray) -> np.ndarray:
    """Each given citation's index into its answer's references (every citation given is in scope)."""
    pks, references = int_columns(scope.citations().order_by().values_list("pk", "reference_index"), 2)
    order = np.argsort(pks)
    return references[order][np.searchsorted(pks[order], citation_ids)]


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
