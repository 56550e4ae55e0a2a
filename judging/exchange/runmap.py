"""The run map of a judgment import: which loaded run each run id of the labels file stands for.

NIST names runs by team and run (`coordinators.baseline_frag_rag24.test_gpt-4o_top20`) where the run files
name them otherwise (`baseline_rag24.test_gpt-4o_top20`). A run map is a text file of two columns, the
file's run id and the loaded run id, separated by a tab or spaces; blank lines and lines starting with `#`
are skipped (docs/formats.md). Every problem names the map file, its line and the column.
"""

from __future__ import annotations

from assess.importers.lines import InputFile, read_text_lines
from assess.importers.report import ImportReport
from assess.importers.schema import column_length
from assess.models import Run
from judging.exchange.reading import RunMap, RunMapEntry


def run_map_read(report: ImportReport, f: InputFile) -> RunMap:
    """The map in `f`: each source run id once, each loaded run named once and loaded."""
    max_run_id = column_length(Run, "run_id")
    mapped: RunMap = {}
    targets: dict[str, tuple[str, int]] = {}
    for line, text in read_text_lines(report, f):
        if text.lstrip().startswith("#"):
            continue
        columns = text.split()
        number = line.number or 0
        if len(columns) != 2:
            line.error("", f"expected two columns (the file's run id, the loaded run id), got {len(columns)}")
            continue
        source, target = columns
        if len(source) > max_run_id or len(target) > max_run_id:
            line.error("", f"a run id is longer than {max_run_id} characters")
            continue
        if source in mapped:
            line.error("column 1", f"run {source} is mapped twice (also line {mapped[source].line})")
            continue
        if target in targets:
            line.error(
                "column 2",
                f"run {target} is the target of both {targets[target][0]} (line {targets[target][1]}) and {source}: "
                "their labels would fall on the same answers",
            )
            continue
        mapped[source] = RunMapEntry(run_id=target, file=f.name, line=number)
        targets[target] = (source, number)
    loaded = set(Run.objects.filter(run_id__in=targets).values_list("run_id", flat=True))
    for source, entry in mapped.items():
        if entry.run_id not in loaded:
            report.error(f.name, entry.line, "column 2", f"run {entry.run_id} (for {source}) is not loaded")
    if report.ok and not mapped:
        report.error(f.name, None, "", "the run map is empty")
    return mapped
