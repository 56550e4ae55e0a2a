"""The one rule for a CSV cell: text a spreadsheet would run as a formula is written with a leading `'`.

OWASP's advice on CSV injection: a cell that begins with `=`, `+`, `-`, `@`, a tab or a carriage return is
read by Excel, LibreOffice and Google Sheets as a formula (`=HYPERLINK(...)`, `=cmd|...`), so an uploaded run
id, sentence or judge name could run in the organizer's spreadsheet. A leading `'` makes it text, shown as
written. Numbers stay numbers, and so does text that is a plain number ("-0.5", "+1"): a spreadsheet reads it as
that number and runs nothing. Every CSV the platform writes goes through `SafeCsvWriter`, which passes each cell
through `csv_safe_cell`; JSONL keeps raw text.
"""

from __future__ import annotations

import csv
import re
from collections.abc import Iterable
from typing import Any

from core.writable import Writable

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
PLAIN_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")


def csv_safe_cell(value: Any) -> Any:
    """The value as a CSV cell: None as an empty cell, numbers as they are, formula-like text quoted."""
    if value is None:
        return ""
    if not isinstance(value, str):
        return value
    if value.startswith(FORMULA_STARTS) and not PLAIN_NUMBER.fullmatch(value):
        return f"'{value}"
    return value


class SafeCsvWriter:
    """The platform's one CSV writer: Unix line ends, and every cell through `csv_safe_cell` (the header too: a
    column named after an uploaded judge is text from outside). Cells are formatted by the caller; a float is
    written as Python's shortest repr, as `csv.writer` does."""

    def __init__(self, out: Writable) -> None:
        self._writer = csv.writer(out, lineterminator="\n")

    def writerow(self, cells: Iterable[Any]) -> None:
        self._writer.writerow([csv_safe_cell(cell) for cell in cells])

    def writerows(self, rows: Iterable[Iterable[Any]]) -> None:
        for cells in rows:
            self.writerow(cells)
