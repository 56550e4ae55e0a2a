"""Topic import: the track's topics file (`id<TAB>text`) or JSON lines (`{topic_id, text}`)."""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from django.db import transaction

from assess.importers.fields import empty_file_error
from assess.importers.lines import (
    InputFile,
    ProgressCallback,
    as_inputs,
    parse_json_line,
    read_text_lines,
    with_offsets,
)
from assess.importers.report import ImportReport, Line, reject_if_errors
from assess.importers.schema import TopicLine, line_check
from assess.models import Topic


def topics_import(*, files: Iterable[InputFile | str | Path], progress: ProgressCallback | None = None) -> ImportReport:
    """Import topics from TSV (`id<TAB>text`, the track's topics file) or JSONL (`{topic_id, text}`).

    A topic that is already loaded gets the new text; the same topic twice with two texts is an error.
    """
    report = ImportReport()
    rows: dict[str, str] = {}
    where: dict[str, tuple[str, int | None]] = {}
    for f, offset, total in with_offsets(as_inputs(files)):
        found = 0
        for line, topic_id, text in _topic_rows(report, f, progress, offset, total):
            found += 1
            if topic_id in where and rows[topic_id] != text:
                first_file, first_line = where[topic_id]
                line.error(
                    "topic_id",
                    f"topic {topic_id!r} appears again with another text (first at {first_file}:{first_line})",
                )
                continue
            rows[topic_id] = text
            where.setdefault(topic_id, (f.name, line.number))
        if not found and not report.has_errors_in(f.name):
            empty_file_error(report, f, "topics")
    reject_if_errors(report)
    with transaction.atomic():
        existing = set(Topic.objects.filter(topic_id__in=rows).values_list("topic_id", flat=True))
        Topic.objects.bulk_create(
            [Topic(topic_id=t, text=x) for t, x in rows.items()],
            update_conflicts=True,
            unique_fields=["topic_id"],
            update_fields=["text"],
            batch_size=1000,
        )
    report.add("topics", len(rows))
    report.add("topics_new", len(rows) - len(existing))
    return report


def _topic_rows(
    report: ImportReport, f: InputFile, progress: ProgressCallback | None, offset: int, total: int
) -> Iterator[tuple[Line, str, str]]:
    for line, text in read_text_lines(report, f, progress=progress, offset=offset, total=total):
        if text.lstrip().startswith("{"):
            obj: Any = parse_json_line(line, text)
            if obj is None:
                continue
        else:
            obj = _tsv_topic(line, text)
            if obj is None:
                continue
        topic = line_check(line, TopicLine, obj)
        if topic is not None:
            yield line, topic.topic_id, topic.text.strip()


def _tsv_topic(line: Line, text: str) -> dict[str, str] | None:
    """`topic_id<TAB>text`, read into the shape of a JSON topic line."""
    parts = text.split("\t", 1)
    if len(parts) != 2 or not parts[0].strip():
        line.error("topic_id", "expected `topic_id<TAB>text` or a JSON object")
        return None
    return {"topic_id": parts[0], "text": parts[1]}
