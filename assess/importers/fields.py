"""The field rules the importers share (ids, texts) and the answer line that both run formats parse into."""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from typing import Any

from assess.importers.lines import InputFile
from assess.importers.report import ImportReport, Line
from assess.models import Passage, Run, Topic

MAX_INT = 2**31 - 1  # PositiveIntegerField's upper bound on PostgreSQL

# Column widths of the models, checked up front so that a long id is a clear error, not a database one.
MAX_TOPIC_ID = Topic._meta.get_field("topic_id").max_length or 64
MAX_PASSAGE_ID = Passage._meta.get_field("passage_id").max_length or 128
MAX_RUN_ID = Run._meta.get_field("run_id").max_length or 255
MAX_GROUP = Run._meta.get_field("group").max_length or 128

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


def clean_text(line: Line, where: str, text: str) -> str:
    """PostgreSQL cannot store NUL characters in text: drop them, with a warning."""
    if "\x00" in text:
        line.warn(where, "NUL characters removed from the text")
        return text.replace("\x00", "")
    return text


def sentence_text(line: Line, where: str, sentence: dict[str, Any]) -> str | None:
    """A sentence's `text`; a missing text (None or NaN, as in NIST's files) is kept as empty, with a warning."""
    if "text" not in sentence:
        line.error(f"{where}.text", "missing field")
        return None
    text = sentence["text"]
    if text is None or (isinstance(text, float) and math.isnan(text)):
        line.warn(f"{where}.text", "sentence text is missing; kept with empty text")
        text = ""
    elif not isinstance(text, str):
        line.error(f"{where}.text", f"expected a string, got {text!r}")
        return None
    return clean_text(line, f"{where}.text", text)


def first_present(obj: dict[str, Any], keys: tuple[str, ...]) -> Any:
    for key in keys:
        if key in obj and obj[key] is not None:
            return obj[key]
    return None


def topic_id_ok(line: Line, where: str, topic_id: str) -> bool:
    if not topic_id:
        line.error(where, "empty topic id")
        return False
    if len(topic_id) > MAX_TOPIC_ID:
        line.error(where, f"topic id is longer than {MAX_TOPIC_ID} characters")
        return False
    return True


def topic_id_value(line: Line, where: str, value: Any) -> str | None:
    if isinstance(value, bool) or not isinstance(value, (str, int)):
        line.error(where, f"expected a string or a number, got {value!r}")
        return None
    topic_id = str(value).strip()
    return topic_id if topic_id_ok(line, where, topic_id) else None


def run_id_value(line: Line, where: str, value: Any) -> str | None:
    if not isinstance(value, str) or not value.strip():
        line.error(where, f"expected a non-empty string, got {value!r}")
        return None
    if len(value.strip()) > MAX_RUN_ID:
        line.error(where, f"run id is longer than {MAX_RUN_ID} characters")
        return None
    return value.strip()


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
