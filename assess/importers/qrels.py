"""Relevance qrels import: the track's graded topical relevance of passages (`Relevance`), by source.

A line is `topic_id <col2> passage_id grade`, separated by spaces or tabs, as `trec_eval` reads it. The
second column means nothing to the platform (`Q0` or `0` in most files; 1 to 5 in NIST's rag24 qrels,
undocumented; trec_eval ignores it too); it is kept as written (`Relevance.iteration`) for the export. The grade is 0 to 3 (UMBRELA's and NIST's scale). All or nothing: every error names file,
line and column. A source that already holds grades is refused unless `replace` is set, which replaces all
of that source's grades.
"""

from __future__ import annotations

from collections.abc import Iterable
from pathlib import Path

from django.db import transaction

from assess.importers.fields import empty_file_error
from assess.importers.lines import InputFile, ProgressCallback, as_inputs, read_text_lines, with_offsets
from assess.importers.report import ImportReport, reject_if_errors
from assess.importers.schema import RelevanceLine, line_check
from assess.models import Relevance

MAX_SOURCE = Relevance._meta.get_field("source").max_length or 64
MAX_ITERATION = Relevance._meta.get_field("iteration").max_length or 16
GRADES = range(0, 4)  # RelevanceLine's range
BATCH = 5000


def relevance_import(
    *,
    files: Iterable[InputFile | str | Path],
    source: str,
    replace: bool = False,
    progress: ProgressCallback | None = None,
) -> ImportReport:
    """Import graded relevance qrels as one source's grades; raises ImportRejected (nothing changed) on error."""
    inputs = as_inputs(files)
    report = ImportReport()
    source = source.strip()
    first = inputs[0].name if inputs else ""
    if not source or len(source) > MAX_SOURCE:
        report.error(first, None, "source", f"give the source a name of 1 to {MAX_SOURCE} characters (--source)")
    reject_if_errors(report)
    grades, iterations = _grades_read(report, inputs, progress)
    with transaction.atomic():
        existing = Relevance.objects.filter(source=source)
        if existing.exists() and not replace:
            report.error(
                first,
                None,
                "source",
                f"source {source!r} already has {existing.count():,} grades (replace them with --replace)",
            )
        reject_if_errors(report)
        replaced = existing.delete()[0] if replace else 0
        Relevance.objects.bulk_create(
            [
                Relevance(source=source, topic_id=t, iteration=iterations[(t, p)], passage_id=p, grade=g)
                for (t, p), (g, _, _) in grades.items()
            ],
            batch_size=BATCH,
        )
    report.add("grades", len(grades))
    report.add("topics", len({t for t, _ in grades}))
    if replaced:
        report.add("replaced", replaced)
    for grade in GRADES:
        report.add(f"grade_{grade}", sum(1 for g, _, _ in grades.values() if g == grade))
    return report


def _grades_read(
    report: ImportReport, inputs: list[InputFile], progress: ProgressCallback | None
) -> tuple[dict[tuple[str, str], tuple[int, str, int]], dict[tuple[str, str], str]]:
    """Every line's grade, read and checked: (topic, passage) -> (grade, file, line), and its second column; the
    errors go to the report. A repeated line with the same grade is collapsed (its first second column kept),
    one with another grade is an error."""
    grades: dict[tuple[str, str], tuple[int, str, int]] = {}
    iterations: dict[tuple[str, str], str] = {}
    for f, offset, total in with_offsets(inputs):
        found = 0
        for line, text in read_text_lines(report, f, progress=progress, offset=offset, total=total):
            found += 1
            columns = text.split()
            if len(columns) != 4:
                line.error(
                    "", f"expected 4 columns (topic_id, an ignored column, passage_id, grade), got {len(columns)}"
                )
                continue
            checked = line_check(
                line, RelevanceLine, {"column 1": columns[0], "column 3": columns[2], "column 4": columns[3]}
            )
            if len(columns[1]) > MAX_ITERATION:
                line.error("column 2", f"at most {MAX_ITERATION} characters (trec_eval's iteration column)")
                continue
            if checked is None:
                continue
            topic_id, passage_id, grade = checked.topic_id, checked.passage_id, checked.grade
            earlier = grades.get((topic_id, passage_id))
            if earlier is not None and earlier[0] != grade:
                line.error(
                    "column 4",
                    f"{topic_id} {passage_id} is graded {grade} here and {earlier[0]} at {earlier[1]}:{earlier[2]}",
                )
                continue
            if earlier is not None:
                report.add("duplicates_collapsed")
                continue
            grades[(topic_id, passage_id)] = (grade, f.name, line.number or 0)
            iterations[(topic_id, passage_id)] = columns[1]
        if not found and not report.has_errors_in(f.name):
            empty_file_error(report, f, "qrels")
    return grades, iterations
