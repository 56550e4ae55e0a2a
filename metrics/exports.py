"""Writers for the exports (DESIGN §7): the judgments exchange file as CSV or JSONL, NIST-style JSONL,
`trec_eval` qrels, the per-run and per-(run, topic) scores CSV and the agreement JSON. Commands, pages and the API all write through these."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, Protocol

from judging.labels import LabelSet, LabelSetKind, label_sets_available
from metrics.csvsafe import csv_safe_cell
from metrics.reports import SCORE_COLUMNS, TOPIC_SCORE_COLUMNS, ScoresReport, TopicScoresReport
from metrics.selectors import EXCHANGE_COLUMNS, QrelsLevel, Scope, exchange_rows, nist_rows, qrels_rows


class Writable(Protocol):
    def write(self, s: str, /) -> Any: ...


class ExportFormat:
    CSV = "csv"
    JSONL = "jsonl"
    NIST = "nist"
    QRELS = "qrels"
    CHOICES = (CSV, JSONL, NIST, QRELS)
    ONE_SET = (NIST, QRELS)


def _cell(value: Any) -> Any:
    return csv_safe_cell(value)


def judgments_export(
    out: Writable,
    *,
    fmt: str,
    scope: Scope,
    label_sets: Iterable[LabelSet] | None = None,
    qrels_level: str = QrelsLevel.SENTENCE,
) -> int:
    """Write the labels of the given sets in one of the formats; returns the number of rows (NIST: answers;
    qrels: lines) written. Each exchange and NIST row names its label set. NIST-style output and qrels hold
    exactly one set; the exchange file holds every one-judge set when none is given."""
    sets = list(label_sets or [])
    count = 0
    if fmt in ExportFormat.ONE_SET and len(sets) != 1:
        raise ValueError("NIST-style JSONL and qrels hold one label set's labels: name exactly one")
    if fmt == ExportFormat.QRELS:
        return qrels_write(out, qrels_rows(scope=scope, label_set=sets[0], level=qrels_level))
    if fmt == ExportFormat.NIST:
        for row in nist_rows(scope=scope, label_set=sets[0]):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
        return count
    if not sets:
        sets = [s for s in label_sets_available() if s.kind == LabelSetKind.JUDGE]
    if fmt == ExportFormat.CSV:
        writer = csv.DictWriter(out, fieldnames=list(EXCHANGE_COLUMNS), lineterminator="\n")
        writer.writeheader()
        for row in exchange_rows(scope=scope, label_sets=sets):
            writer.writerow({k: _cell(v) for k, v in row.items()})
            count += 1
        return count
    if fmt == ExportFormat.JSONL:
        for row in exchange_rows(scope=scope, label_sets=sets):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
        return count
    raise ValueError(f"unknown export format {fmt!r}")


def scores_csv(out: Writable, reports: Iterable[ScoresReport], *, intervals: bool = False) -> None:
    columns = list(SCORE_COLUMNS) + (
        ["precision_low", "precision_high", "recall_low", "recall_high"] if intervals else []
    )
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(columns)
    for report in reports:
        for row in report.rows:
            values = row.as_dict()
            writer.writerow([_fmt(values[c]) for c in columns])


def topic_scores_csv(out: Writable, reports: Iterable[TopicScoresReport]) -> int:
    """One row per (run, topic) of each report; figures in full precision (`repr`), so that the mean of a
    run's rows is its run score exactly. Returns the number of rows."""
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(TOPIC_SCORE_COLUMNS)
    count = 0
    for report in reports:
        for row in report.rows:
            values = row.as_dict()
            writer.writerow(
                [repr(v) if isinstance(v, float) else _cell(v) for v in map(values.get, TOPIC_SCORE_COLUMNS)]
            )
            count += 1
    return count


def qrels_write(out: Writable, rows: Iterable[tuple[str, str, int]]) -> int:
    """`trec_eval` qrels lines `qid 0 docid grade`, no header; returns the number of lines. The fields are
    separated by spaces, so an id holding white space is refused before anything is written."""
    lines = list(rows)
    for qid, docid, _grade in lines:
        if qid.split() != [qid] or docid.split() != [docid]:
            raise ValueError(f"a qrels id cannot hold white space: {qid!r} {docid!r}")
    for qid, docid, grade in lines:
        out.write(f"{qid} 0 {docid} {grade}\n")
    return len(lines)


def _fmt(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6f}"
    return _cell(value)


def agreement_json(out: Writable, report: dict[str, Any]) -> None:
    json.dump(report, out, indent=2)
    out.write("\n")
