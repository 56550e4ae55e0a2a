"""`trec_eval` qrels of one label set, written (never read)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from core.writable import Writable


class QrelsLevel:
    SENTENCE = "sentence"
    TOPIC = "topic"
    CHOICES = (SENTENCE, TOPIC)


QRELS_LEVEL_HELP = (
    "sentence: qid topic_id/run_id/sentence_index, docid the cited passage, grade 2 FS, 1 PS, 0 NS; "
    "topic: qid topic_id, docid the passage, grade the highest any labelled citation of that passage in the "
    "topic got. Only labelled citations (not judged, ties and unlabelled ones are left out)"
)


def qrels_write(
    out: Writable, rows: Iterable[tuple[str, str, int]], iterations: Mapping[tuple[str, str], str] | None = None
) -> int:
    """`trec_eval` qrels lines `qid 0 docid grade`, no header; returns the number of lines. The second column is
    `0` unless `iterations` gives a (qid, docid) the one its file had (`Q0`). The fields are separated by
    spaces, so an id holding white space is refused before anything is written."""
    lines = list(rows)
    iterations = iterations or {}
    for qid, docid, _grade in lines:
        if qid.split() != [qid] or docid.split() != [docid]:
            raise ValueError(f"a qrels id cannot hold white space: {qid!r} {docid!r}")
    for qid, docid, grade in lines:
        out.write(f"{qid} {iterations.get((qid, docid), '0')} {docid} {grade}\n")
    return len(lines)
