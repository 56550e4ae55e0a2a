"""Relevance figures as pure functions (no queries): runs ranked by nDCG under a set of qrels, computed by
`ir_measures` (trec_eval's measures through pytrec_eval), and a run's ranking as a TREC run file.

A run's ranking of a topic is its answer's references in order: rank 1 the first reference (score = -rank, so
the order survives any tie-breaking), a passage repeated in the references counted at its first place."""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence

import ir_measures
from ir_measures import Qrel, ScoredDoc

Qrels = Mapping[tuple[str, str], int]  # (topic_id, passage_id) -> grade
Rankings = Mapping[str, Sequence[str]]  # topic_id -> passage ids, best first
MEASURES = ("nDCG@10", "nDCG@20")


def scored_docs(rankings: Rankings) -> list[ScoredDoc]:
    """A run's rankings as TREC run rows (topic, passage, score = -rank)."""
    rows: list[ScoredDoc] = []
    for topic_id, passages in rankings.items():
        seen: set[str] = set()
        for rank, passage_id in enumerate(passages, start=1):
            if passage_id in seen:
                continue
            seen.add(passage_id)
            rows.append(ScoredDoc(topic_id, passage_id, float(-rank)))
    return rows


def run_file_lines(run_id: str, rankings: Rankings) -> list[str]:
    """The rankings as TREC run file lines `topic Q0 passage rank score run_id`."""
    lines = []
    for row in scored_docs(rankings):
        lines.append(f"{row.query_id} Q0 {row.doc_id} {int(-row.score)} {row.score:g} {run_id}")
    return lines


def ndcg_of_runs(
    qrels: Qrels, runs: Mapping[str, Rankings], topics: Iterable[str], measures: Sequence[str] = MEASURES
) -> dict[str, dict[str, float]]:
    """Each run's mean nDCG over `topics` (a topic the run did not answer counts 0, as trec_eval -c does)."""
    topics = sorted(set(topics))
    parsed = [ir_measures.parse_measure(m) for m in measures]
    qrel_rows = [Qrel(t, p, g) for (t, p), g in qrels.items() if t in topics]
    figures: dict[str, dict[str, float]] = {}
    for run_id, rankings in runs.items():
        per_topic: dict[str, dict[str, float]] = {str(m): dict.fromkeys(topics, 0.0) for m in parsed}
        rows = [r for r in scored_docs(rankings) if r.query_id in topics]
        for metric in ir_measures.iter_calc(parsed, qrel_rows, rows):
            per_topic[str(metric.measure)][metric.query_id] = float(metric.value)
        figures[run_id] = {
            name: (sum(v.values()) / len(v) if v else 0.0) for name, v in ((str(m), per_topic[str(m)]) for m in parsed)
        }
    return figures


def ranking_of(scores: Mapping[str, float]) -> list[str]:
    """Run ids, best score first (ties by run id)."""
    return sorted(scores, key=lambda r: (-scores[r], r))
