"""Writers for the metrics' exports: the per-run and per-(run, topic) scores CSV and the agreement JSON. The
judgment exports (exchange, NIST-style, qrels) are `judging.exchange.export`."""

from __future__ import annotations

import json
from collections.abc import Iterable
from typing import Any

from core.csvsafe import SafeCsvWriter
from core.writable import Writable
from metrics.reports import SCORE_COLUMNS, TOPIC_SCORE_COLUMNS, ScoresReport, TopicScoresReport


def scores_csv(out: Writable, reports: Iterable[ScoresReport], *, intervals: bool = False) -> None:
    columns = list(SCORE_COLUMNS) + (
        ["precision_low", "precision_high", "recall_low", "recall_high"] if intervals else []
    )
    writer = SafeCsvWriter(out)
    writer.writerow(columns)
    for report in reports:
        for row in report.rows:
            values = row.as_dict()
            writer.writerow([_fmt(values[c]) for c in columns])


def topic_scores_csv(out: Writable, reports: Iterable[TopicScoresReport]) -> int:
    """One row per (run, topic) of each report; figures in full precision (`repr`), so that the mean of a
    run's rows is its run score exactly. Returns the number of rows."""
    writer = SafeCsvWriter(out)
    writer.writerow(TOPIC_SCORE_COLUMNS)
    count = 0
    for report in reports:
        for row in report.rows:
            # The row's fields by name (not `as_dict`: a deep copy per row is most of the time at TREC scale).
            writer.writerow(getattr(row, column) for column in TOPIC_SCORE_COLUMNS)
            count += 1
    return count


def _fmt(value: Any) -> Any:
    if value is None:  # a run that is not judged: no score, never 0
        return ""
    if isinstance(value, float):
        return f"{value:.6f}"
    return value


def agreement_json(out: Writable, report: dict[str, Any]) -> None:
    json.dump(report, out, indent=2)
    out.write("\n")
