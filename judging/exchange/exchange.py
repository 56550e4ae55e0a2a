"""The judgments exchange file, both ways: one row per label (CSV with a header line, or JSON lines), read
into labels and written from `selectors.exchange_rows`."""

from __future__ import annotations

import csv
import io
import json
import math
from collections.abc import Iterable, Iterator
from typing import Any

from assess.importers.lines import (
    FileUnreadable,
    InputFile,
    ProgressCallback,
    iter_lines,
    read_json_lines,
    read_text_lines,
    with_offsets,
)
from assess.importers.report import ImportReport, Line
from judging.csvsafe import csv_safe_cell
from judging.exchange.reading import JudgmentImportOptions, LabelsRead, ReadLabel
from judging.exchange.writable import Writable
from judging.models import Condition, JudgeKind, Label

EXCHANGE_COLUMNS = (
    "topic_id",
    "run_id",
    "sentence_index",
    "citation_slot",
    "passage_id",
    "judge",
    "judge_kind",
    "condition",
    "label",
    "shown_label",
    "seconds",
    "created_at",
    "label_set",
)
EXCHANGE_REQUIRED = ("topic_id", "run_id", "sentence_index", "citation_slot")
LABEL_SPELLINGS: dict[str, str] = {
    "fs": Label.FULL,
    "ps": Label.PARTIAL,
    "ns": Label.NONE,
    "full support": Label.FULL,
    "partial support": Label.PARTIAL,
    "no support": Label.NONE,
}
# Seconds spent on one label: finite (PostgreSQL stores infinity, which JSON cannot carry) and below a day.
SECONDS_LIMIT = 24 * 60 * 60


# --- read -------------------------------------------------------------------------------------------


def exchange_read(
    state: LabelsRead, inputs: list[InputFile], options: JudgmentImportOptions, progress: ProgressCallback | None
) -> None:
    for f, offset, total in with_offsets(inputs):
        rows = 0
        for line, row in _exchange_rows(state.report, f, progress, offset, total):
            rows += 1
            label = _exchange_label(line, row, options)
            if label is None or (options.topics is not None and label.topic_id not in options.topics):
                continue
            if _judge_kind_consistent(state, line, label):
                state.labels.append(label)
        if rows == 0 and not state.report.has_errors_in(f.name):
            state.report.error(f.name, None, "", "no rows found")


def _exchange_rows(
    report: ImportReport, f: InputFile, progress: ProgressCallback | None, offset: int, total: int
) -> Iterator[tuple[Line, dict[str, Any]]]:
    """(line, row) from a CSV file (header line first) or a JSONL file."""
    if _first_text(f).startswith("{"):
        yield from read_json_lines(report, f, progress=progress, offset=offset, total=total)
        return
    header: list[str] | None = None
    for line, text in read_text_lines(report, f, progress=progress, offset=offset, total=total):
        values = next(csv.reader(io.StringIO(text)))
        if header is None:
            header = [h.strip() for h in values]
            continue
        if len(values) != len(header):
            line.error("", f"expected {len(header)} columns as in the header, got {len(values)}")
            continue
        yield line, dict(zip(header, values, strict=True))


def _first_text(f: InputFile) -> str:
    """The first line that is not blank ("" when there is none, or the file cannot be read that far: the
    reading that follows reports where)."""
    try:
        for _, text in iter_lines(f.path):
            if text.strip():
                return text.strip()
    except FileUnreadable:
        pass
    return ""


def _exchange_label(line: Line, row: dict[str, Any], options: JudgmentImportOptions) -> ReadLabel | None:
    """The row's label, or None after recording every problem it has."""
    n_errors = line.error_count
    values: dict[str, Any] = {}
    for name in EXCHANGE_REQUIRED:
        value = row.get(name)
        if value is None or (isinstance(value, str) and not value.strip()):
            line.error(name, "missing field")
        values[name] = value
    topic_id = values["topic_id"]
    if topic_id is not None and (isinstance(topic_id, bool) or not isinstance(topic_id, (str, int))):
        line.error("topic_id", f"expected a string or a number, got {topic_id!r}")
    sentence_index = _as_index(line, "sentence_index", values["sentence_index"])
    slot = _as_index(line, "citation_slot", values["citation_slot"])
    label_field = options.label_field or "label"
    label = _as_label(line, label_field, row.get(label_field))
    judge = options.judge or row.get("judge")
    if not isinstance(judge, str) or not judge.strip():
        line.error("judge", "missing field (or give a judge name with --judge)")
        judge = ""
    kind = options.kind or (row.get("judge_kind") or "")
    if kind and kind not in JudgeKind.values:
        line.error("judge_kind", f"expected human or llm, got {kind!r}")
    condition = options.condition or (row.get("condition") or "")
    if condition not in Condition.values and condition != "":
        line.error("condition", f"expected one of {', '.join(Condition.values)}, got {condition!r}")
    shown = row.get("shown_label") or ""
    shown_label = LABEL_SPELLINGS.get(shown.strip().lower()) if isinstance(shown, str) and shown else ""
    if shown_label is None:
        line.error("shown_label", f"expected FS, PS, NS or nothing, got {shown!r}")
    seconds = _as_seconds(line, row.get("seconds"))
    passage_id = row.get("passage_id") or None
    if line.error_count > n_errors or sentence_index is None or slot is None or label is None:
        return None
    return ReadLabel(
        file=line.file,
        line=line.number or 0,
        judge=judge.strip(),
        kind=kind,
        topic_id=str(topic_id).strip(),
        run_id=str(values["run_id"]).strip(),
        sentence_index=sentence_index,
        condition=condition,
        label=label,
        label_field=label_field,
        sentence_field="sentence_index",
        slot=slot,
        passage_id=str(passage_id).strip() if passage_id else None,
        shown_label=shown_label or "",
        seconds=seconds,
    )


def _judge_kind_consistent(state: LabelsRead, line: Line, label: ReadLabel) -> bool:
    """A judge named with two kinds in one import is an error at the second."""
    name, kind = label.judge, label.kind
    if kind and name in state.judge_kinds and state.judge_kinds[name][0] != kind:
        first_kind, first_file, first_line = state.judge_kinds[name]
        line.error("judge_kind", f"judge {name} is {kind} here but {first_kind} at {first_file}:{first_line}")
        return False
    if kind:
        state.judge_kinds.setdefault(name, (kind, line.file, line.number or 0))
    return True


def _as_label(line: Line, label_field: str, raw: Any) -> str | None:
    label = LABEL_SPELLINGS.get(raw.strip().lower()) if isinstance(raw, str) else None
    if raw is None or raw == "":
        line.error(label_field, "missing field")
    elif label is None:
        line.error(label_field, f"expected FS, PS or NS, got {raw!r}")
    return label


def _as_index(line: Line, name: str, value: Any) -> int | None:
    if value is None or value == "":
        return None
    if isinstance(value, bool):
        line.error(name, f"expected a non-negative integer, got {value!r}")
        return None
    if isinstance(value, int):
        number = value
    else:
        try:
            number = int(str(value).strip())
        except ValueError:
            line.error(name, f"expected a non-negative integer, got {value!r}")
            return None
    if number < 0:
        line.error(name, f"expected a non-negative integer, got {value!r}")
        return None
    return number


def _as_seconds(line: Line, value: Any) -> float | None:
    if value is None or value == "":
        return None
    try:
        seconds = float(value)
    except (TypeError, ValueError, OverflowError):
        line.error("seconds", f"expected a number, got {value!r}")
        return None
    if not math.isfinite(seconds) or not 0 <= seconds < SECONDS_LIMIT:
        line.error("seconds", f"expected a number of seconds from 0 to below a day, got {value!r}")
        return None
    return seconds


# --- write ------------------------------------------------------------------------------------------


def exchange_csv_write(out: Writable, rows: Iterable[dict[str, Any]]) -> int:
    """The rows as CSV with a header line, each cell safe to open in a spreadsheet; returns the rows written."""
    writer = csv.DictWriter(out, fieldnames=list(EXCHANGE_COLUMNS), lineterminator="\n")
    writer.writeheader()
    count = 0
    for row in rows:
        writer.writerow({k: csv_safe_cell(v) for k, v in row.items()})
        count += 1
    return count


def exchange_jsonl_write(out: Writable, rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        count += 1
    return count
