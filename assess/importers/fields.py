"""The field rules the importers share (ids, texts) and the answer line that both run formats parse into."""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass

from assess.importers.lines import InputFile
from assess.importers.report import ImportReport, Line
from assess.importers.schema import column_length
from assess.models import Run

MAX_GROUP = column_length(Run, "group")
MAX_SOURCE_FILE = column_length(Run, "source_file")

SEGMENT_ID = re.compile(r"^msmarco_v2\.1_doc_(?P<shard>\d+)_(?P<doc_offset>\d+)#(?P<index>\d+)_(?P<offset>\d+)$")

Sentences = list[tuple[str, list[tuple[int, str]]]]
"""An answer's sentences: (text, [(reference index, passage id)])."""


@dataclass
class ParsedAnswer:
    """One validated answer line, ready to be written."""

    line: int
    run_id: str
    topic_id: str
    topic_text: str | None  # None: the line does not give it (NIST, 2025 without narrative)
    references: list[str]
    response_length: int | None
    sentences: Sentences
    group: str | None = None


def sentence_text(line: Line, where: str, text: str | None) -> str:
    """A sentence's text as its schema read it; a missing text (None or NaN, as in NIST's files) is kept as
    empty, with a warning."""
    if text is None:
        line.warn(f"{where}.text", "sentence text is missing; kept with empty text")
        return ""
    return text


def count_words(text: str) -> int:
    """Words as the track's checker counts them: NFKC-normalised, stripped, split on whitespace."""
    return len(unicodedata.normalize("NFKC", text.strip()).split())


def group_of_run_id(run_id: str) -> str:
    """NIST's run ids are `group.run`: the group is what comes before the first dot."""
    return run_id.split(".", 1)[0] if "." in run_id else ""


def empty_file_error(report: ImportReport, f: InputFile, what: str) -> None:
    """A file that gave no rows: say whether it is empty or only holds nothing usable."""
    if f.size == 0:
        report.error(f.name, None, "", "the file is empty")
    else:
        report.error(f.name, None, "", f"no {what} found")
