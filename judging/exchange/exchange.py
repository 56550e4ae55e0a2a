"""The judgments exchange file, both ways: one row per label (CSV with a header line, or JSON lines), read
into labels and written from `selectors.exchange_rows`."""

from __future__ import annotations

import csv
import io
import json
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
from assess.importers.schema import line_check, unknown_fields_hint
from core.csvsafe import SafeCsvWriter
from core.writable import Writable
from judging.exchange.reading import JudgmentImportOptions, LabelsRead, ReadLabel
from judging.exchange.schema import ExchangeRow, judge_name_problem
from judging.models import Label

EXCHANGE_COLUMNS = tuple(ExchangeRow.model_fields)  # the export writes the columns the schema defines
LABEL_SPELLINGS: dict[str, str] = {
    "fs": Label.FULL,
    "ps": Label.PARTIAL,
    "ns": Label.NONE,
    "full support": Label.FULL,
    "partial support": Label.PARTIAL,
    "no support": Label.NONE,
}


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
        try:
            values = next(csv.reader(io.StringIO(text)))
        except csv.Error as exc:
            line.error("", f"not a CSV line: {exc}")
            continue
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
        for _, text in iter_lines(f.path, name=f.name):
            if text.strip():
                return text.strip()
    except FileUnreadable:
        pass
    return ""


def _exchange_label(line: Line, row: dict[str, Any], options: JudgmentImportOptions) -> ReadLabel | None:
    """The row's label, or None after recording every problem it has. Each value is checked by
    `schema.ExchangeRow`; what follows reads the label and the options that stand for columns."""
    shape = line_check(line, ExchangeRow, row)
    if shape is None:
        return None
    if shape.label is None and shape.not_judged_reason and (options.label_field or "label") == "label":
        return None  # an assessor's "cannot judge" (the export writes it): no label to import
    n_errors = line.error_count
    label_field = options.label_field or "label"
    raw_label = shape.label if label_field == "label" else row.get(label_field)
    label = _as_label(line, label_field, raw_label, hint=unknown_fields_hint(ExchangeRow, row, (label_field,)))
    judge = options.judge or shape.judge
    if not judge:
        line.error(
            "judge",
            "missing field (or give a judge name with --judge)" + unknown_fields_hint(ExchangeRow, row, ("judge",)),
        )
    elif not options.judge:
        problem = judge_name_problem(judge)
        if problem is not None:
            line.error("judge", problem)
    kind = options.kind or shape.judge_kind or ""
    condition = options.condition if options.condition is not None else (shape.condition or "")
    shown_label = LABEL_SPELLINGS.get(shape.shown_label.lower()) if shape.shown_label else ""
    if shown_label is None:
        line.error("shown_label", f"expected FS, PS, NS or nothing, got {shape.shown_label!r}")
    if line.error_count > n_errors or label is None or not judge:
        return None
    return ReadLabel(
        file=line.file,
        line=line.number or 0,
        judge=judge.strip(),
        kind=str(kind),
        topic_id=shape.topic_id,
        run_id=shape.run_id,
        sentence_index=shape.sentence_index,
        condition=str(condition),
        label=label,
        label_field=label_field,
        sentence_field="sentence_index",
        slot=shape.citation_slot,
        passage_id=shape.passage_id,
        shown_label=shown_label or "",
        seconds=shape.seconds,
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


def _as_label(line: Line, label_field: str, raw: Any, *, hint: str = "") -> str | None:
    label = LABEL_SPELLINGS.get(raw.strip().lower()) if isinstance(raw, str) else None
    if raw is None or raw == "":
        line.error(label_field, "missing field" + hint)
    elif label is None:
        line.error(label_field, f"expected FS, PS or NS, got {raw!r}")
    return label


# --- write ------------------------------------------------------------------------------------------


def exchange_csv_write(out: Writable, rows: Iterable[dict[str, Any]]) -> int:
    """The rows as CSV with a header line, each cell safe to open in a spreadsheet; returns the rows written."""
    writer = SafeCsvWriter(out)
    writer.writerow(EXCHANGE_COLUMNS)
    count = 0
    for row in rows:
        writer.writerow(_csv_bool(v) if isinstance(v, bool) else v for v in map(row.get, EXCHANGE_COLUMNS))
        count += 1
    return count


def _csv_bool(value: bool) -> str:
    return "true" if value else "false"  # as JSON spells it; the schema reads either


def exchange_jsonl_write(out: Writable, rows: Iterable[dict[str, Any]]) -> int:
    count = 0
    for row in rows:
        out.write(json.dumps(row, ensure_ascii=False) + "\n")
        count += 1
    return count
