"""The platform's sentence labels as NIST's Webassess JSONL (issue 26): one line per (topic, run) answer that
the label set labelled, every sentence of it in order; a labelled sentence carries `verification_worthy` and
`citationsCombibed` (NIST's spelling; "-1" where there is no combined label), an unlabelled one neither; each
citation carries NIST's `citationId` (its index into the run's references) and support "-1" (this kind does
not judge citations one by one). Imported back as NIST labels, the file gives the same sentence labels."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from assess.models import Citation, Sentence
from judging.exchange.nist import nist_write
from judging.models import NistSentence

from .selectors import NO_LABEL, SentenceLabelSet, sentence_labels
from .vocabulary import COMBINED, COMBINED_NIST

__all__ = ["nist_write", "webassess_rows"]


def webassess_rows(label_set: SentenceLabelSet) -> Iterator[dict[str, Any]]:
    labels = sentence_labels(label_set)
    by_sentence = {
        int(sid): (int(w), int(c))
        for sid, w, c in zip(labels.sentence_ids, labels.worthy, labels.combined, strict=True)
    }
    answers = set(Sentence.objects.filter(pk__in=list(by_sentence)).values_list("answer_id", flat=True))
    nist_ids = _nist_citation_ids(answers)
    citations: dict[int, list[dict[str, Any]]] = {}
    for sid, index, passage in (
        Citation.objects.filter(sentence__answer_id__in=answers)
        .order_by("sentence_id", "slot")
        .values_list("sentence_id", "reference_index", "passage__passage_id")
    ):
        citation_id = nist_ids.get((sid, passage), index)
        citations.setdefault(sid, []).append({"citationId": citation_id, "reference": passage, "support": "-1"})
    rows = (
        Sentence.objects.filter(answer_id__in=answers)
        .order_by("answer__topic__topic_id", "answer__run__run_id", "index")
        .values_list("pk", "answer_id", "answer__topic__topic_id", "answer__run__run_id", "index", "text")
    )
    current: dict[str, Any] | None = None
    for pk, answer_id, topic_id, run_id, index, text in rows:
        if current is None or current["_answer"] != answer_id:
            if current is not None:
                yield _finished(current)
            current = {"_answer": answer_id, "topic_id": topic_id, "run_id": run_id, "sentences": []}
        sentence: dict[str, Any] = {"sentenceId": index}
        if pk in by_sentence:
            worthy, combined = by_sentence[pk]
            sentence["verification_worthy"] = str(worthy)
            named = COMBINED.name_of_code[combined] if combined != NO_LABEL else ""
            sentence["citationsCombibed"] = COMBINED_NIST.get(named, "-1")
        sentence["text"] = text
        sentence["citations"] = citations.get(pk, [])
        current["sentences"].append(sentence)
    if current is not None:
        yield _finished(current)


def _nist_citation_ids(answers: set[int]) -> dict[tuple[int, str], int]:
    """NIST's own `citationId` of each (sentence, passage) an imported file named (the answer's references were
    rebuilt in order of first citation, so the reference index differs from it)."""
    ids: dict[tuple[int, str], int] = {}
    rows = NistSentence.objects.filter(sentence__answer_id__in=answers).values_list("sentence_id", "citations")
    for sid, cited in rows:
        for citation_id, passage in cited:
            if citation_id is not None:
                ids.setdefault((sid, passage), citation_id)
    return ids


def _finished(row: dict[str, Any]) -> dict[str, Any]:
    row.pop("_answer")
    return row
