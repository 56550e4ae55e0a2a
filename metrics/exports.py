"""Writers for the exports (DESIGN §7): the judgments exchange file as CSV or JSONL, NIST-style JSONL, the
per-run scores CSV and the agreement JSON. Commands, pages and the API all write through these."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, Protocol

from judging.labels import LabelSet, LabelSetKind, label_sets_available
from metrics.reports import SCORE_COLUMNS, ScoresReport
from metrics.selectors import EXCHANGE_COLUMNS, Scope, exchange_rows, nist_rows


class Writable(Protocol):
    def write(self, s: str, /) -> Any: ...


class ExportFormat:
    CSV = "csv"
    JSONL = "jsonl"
    NIST = "nist"
    CHOICES = (CSV, JSONL, NIST)


def _cell(value: Any) -> Any:
    return "" if value is None else value


def judgments_export(out: Writable, *, fmt: str, scope: Scope, label_sets: Iterable[LabelSet] | None = None) -> int:
    """Write the labels of the given sets in one of the formats; returns the number of rows (NIST: answers)
    written. Each row names its label set. NIST-style output holds exactly one set; the exchange file holds
    every one-judge set when none is given."""
    sets = list(label_sets or [])
    count = 0
    if fmt == ExportFormat.NIST:
        if len(sets) != 1:
            raise ValueError("the NIST format holds one label set's labels: name exactly one")
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


def _fmt(value: Any) -> Any:
    if isinstance(value, float):
        return f"{value:.6f}"
    return _cell(value)


def agreement_json(out: Writable, report: dict[str, Any]) -> None:
    json.dump(report, out, indent=2)
    out.write("\n")
