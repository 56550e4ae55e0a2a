"""The report every importer returns: what it found, each message naming file, line and field."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

MAX_LISTED_WARNINGS = 200
MAX_LISTED_ERRORS = 200


@dataclass(frozen=True)
class Message:
    file: str
    line: int | None
    field: str
    text: str

    def __str__(self) -> str:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return f"{where}: {self.field}: {self.text}" if self.field else f"{where}: {self.text}"

    def as_dict(self) -> dict[str, Any]:
        return {"file": self.file, "line": self.line, "field": self.field, "message": self.text, "text": str(self)}


class ImportReport:
    """What an import found. Only the first few hundred messages are kept; the counts are exact.

    Messages are added only through `error` and `warn` (or a line's context from `at`), so that `ok` and
    the listed messages cannot disagree."""

    def __init__(self) -> None:
        self._errors: list[Message] = []
        self._warnings: list[Message] = []
        self._error_count = 0
        self._warning_count = 0
        self._counts: dict[str, int] = {}

    def error(self, file: str, line: int | None, field_name: str, text: str) -> None:
        self._error_count += 1
        if len(self._errors) < MAX_LISTED_ERRORS:
            self._errors.append(Message(file, line, field_name, text))

    def warn(self, file: str, line: int | None, field_name: str, text: str) -> None:
        self._warning_count += 1
        if len(self._warnings) < MAX_LISTED_WARNINGS:
            self._warnings.append(Message(file, line, field_name, text))

    def at(self, file: str, line: int | None) -> Line:
        """The context of one line of a file, for its messages."""
        return Line(self, file, line)

    def add(self, key: str, n: int = 1) -> None:
        self._counts[key] = self._counts.get(key, 0) + n

    @property
    def errors(self) -> tuple[Message, ...]:
        return tuple(self._errors)

    @property
    def warnings(self) -> tuple[Message, ...]:
        return tuple(self._warnings)

    @property
    def error_count(self) -> int:
        return self._error_count

    @property
    def warning_count(self) -> int:
        return self._warning_count

    @property
    def counts(self) -> dict[str, int]:
        return dict(self._counts)

    @property
    def ok(self) -> bool:
        return self._error_count == 0

    def has_errors_in(self, file: str) -> bool:
        return any(e.file == file for e in self._errors)

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "errors": [m.as_dict() for m in self._errors],
            "warnings": [m.as_dict() for m in self._warnings],
            "error_count": self._error_count,
            "warning_count": self._warning_count,
            "counts": dict(self._counts),
        }


@dataclass(frozen=True)
class Line:
    """One line of an input file: its messages need only the field and the text."""

    report: ImportReport
    file: str
    number: int | None

    def error(self, field_name: str, text: str) -> None:
        self.report.error(self.file, self.number, field_name, text)

    def warn(self, field_name: str, text: str) -> None:
        self.report.warn(self.file, self.number, field_name, text)

    @property
    def error_count(self) -> int:
        return self.report.error_count


class ImportRejected(Exception):
    """Raised inside an import's transaction so that nothing of a file with errors is kept."""

    def __init__(self, report: ImportReport) -> None:
        self.report = report
        first = str(report.errors[0]) if report.errors else "rejected"
        more = f" (and {report.error_count - 1} more errors)" if report.error_count > 1 else ""
        super().__init__(first + more)


def reject_if_errors(report: ImportReport) -> None:
    if not report.ok:
        raise ImportRejected(report)
