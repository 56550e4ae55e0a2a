"""Relevance label sets written as `trec_eval` qrels (`topic_id ITER passage_id grade`): a campaign's grades in a
condition, an imported source (its second column as its file wrote it), an LLM judge's grades."""

from __future__ import annotations

from core.writable import Writable
from judging.exchange.qrels import qrels_write
from judging.label_set_names import LabelSetKind, LabelSetName
from kinds.relevance.selectors import label_set_qrels, source_iterations


def label_set_qrels_write(out: Writable, spec: str) -> int:
    """Write the label set's grades as qrels, sorted by topic and passage; returns the number of lines.
    LabelSetError when the set does not exist."""
    qrels = label_set_qrels(spec)
    parsed = LabelSetName.parse(spec)
    iterations = source_iterations(parsed.name) if parsed.kind == LabelSetKind.JUDGE else None
    rows = [(t, p, g) for (t, p), g in sorted(qrels.items())]
    return qrels_write(out, rows, iterations)


def qrels_filename(spec: str) -> str:
    safe = "".join(c if c.isalnum() or c in "-_." else "_" for c in spec)
    return f"relevance-{safe}.qrels"
