"""Writers for the exports (DESIGN §7): the judgments exchange file as CSV or JSONL, NIST-style JSONL, the
per-run scores CSV and the agreement JSON. Commands, pages and the API all write through these."""

from __future__ import annotations

import csv
import json
from collections.abc import Iterable
from typing import Any, Protocol

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


def judgments_export(out: Writable, *, fmt: str, scope: Scope, judges: Iterable[str] | None = None) -> int:
    """Write the judgments in one of the formats; returns the number of rows (NIST: answers) written.
    NIST-style output needs exactly one judge (or `human`)."""
    judge_list = list(judges or [])
    count = 0
    if fmt == ExportFormat.NIST:
        if len(judge_list) != 1:
            raise ValueError("the NIST format holds one judge's labels: name exactly one judge")
        for row in nist_rows(scope=scope, judge=judge_list[0]):
            out.write(json.dumps(row, ensure_ascii=False) + "\n")
            count += 1
        return count
    if fmt == ExportFormat.CSV:
        writer = csv.DictWriter(out, fieldnames=list(EXCHANGE_COLUMNS), lineterminator="\n")
        writer.writeheader()
        for row in exchange_rows(scope=scope, judges=judge_list or None):
            writer.writerow({k: _cell(v) for k, v in row.items()})
            count += 1
        return count
    if fmt == ExportFormat.JSONL:
        for row in exchange_rows(scope=scope, judges=judge_list or None):
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
