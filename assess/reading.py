"""Streaming readers and the report every importer returns: messages that name file, line and field."""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

ProgressCallback = Callable[[int, int], None]
"""Called with (bytes done, bytes total) as a file is read."""

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


@dataclass
class ImportReport:
    """What an import found. Only the first few hundred messages are kept; the counts are exact."""

    errors: list[Message] = field(default_factory=list)
    warnings: list[Message] = field(default_factory=list)
    error_count: int = 0
    warning_count: int = 0
    counts: dict[str, int] = field(default_factory=dict)

    def error(self, file: str, line: int | None, field_name: str, text: str) -> None:
        self.error_count += 1
        if len(self.errors) < MAX_LISTED_ERRORS:
            self.errors.append(Message(file, line, field_name, text))

    def warn(self, file: str, line: int | None, field_name: str, text: str) -> None:
        self.warning_count += 1
        if len(self.warnings) < MAX_LISTED_WARNINGS:
            self.warnings.append(Message(file, line, field_name, text))

    def add(self, key: str, n: int = 1) -> None:
        self.counts[key] = self.counts.get(key, 0) + n

    @property
    def ok(self) -> bool:
        return self.error_count == 0

    def as_dict(self) -> dict[str, Any]:
        return {
            "ok": self.ok,
            "errors": [m.as_dict() for m in self.errors],
            "warnings": [m.as_dict() for m in self.warnings],
            "error_count": self.error_count,
            "warning_count": self.warning_count,
            "counts": dict(self.counts),
        }


class ImportRejected(Exception):
    """Raised inside an import's transaction so that nothing of a file with errors is kept."""

    def __init__(self, report: ImportReport) -> None:
        self.report = report
        first = str(report.errors[0]) if report.errors else "rejected"
        more = f" (and {report.error_count - 1} more errors)" if report.error_count > 1 else ""
        super().__init__(first + more)


class FileUnreadable(Exception):
    """A file that cannot be read as text past some line (bad encoding, truncated gzip)."""

    def __init__(self, line: int, text: str) -> None:
        self.line = line
        self.text = text
        super().__init__(text)


class _CountingReader(io.RawIOBase):
    """Wraps a binary file and counts the bytes taken from it (the compressed bytes for .gz)."""

    def __init__(self, raw: IO[bytes]) -> None:
        self.raw = raw
        self.count = 0

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        data = self.raw.read(len(buffer))
        n = len(data)
        buffer[:n] = data
        self.count += n
        return n

    def close(self) -> None:
        self.raw.close()
        super().close()


def display_name(path: str | Path, name: str | None = None) -> str:
    return name or os.path.basename(str(path))


def iter_lines(
    path: str | Path, *, progress: ProgressCallback | None = None, offset: int = 0, total: int | None = None
) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line without its newline) from a text file, plain or gzip, one at a time.

    Each line is decoded on its own, so a byte that is not UTF-8 is reported on its own line. `offset` and
    `total` let several files report one combined progress (in bytes read from disk).
    """
    path = Path(path)
    size = path.stat().st_size
    total = total if total is not None else size
    with open(path, "rb") as raw:
        counter = _CountingReader(raw)
        stream: Any = gzip.GzipFile(fileobj=counter) if _is_gzip(path) else io.BufferedReader(counter, 1 << 20)
        last_reported = 0
        number = 0
        lines = iter(stream)
        while True:
            # Only the reading is guarded: an error raised by the progress callback stays its own.
            try:
                data = next(lines)
            except StopIteration:
                break
            except EOFError as exc:
                raise FileUnreadable(number + 1, f"the file ends early (truncated gzip?): {exc}") from exc
            except (OSError, zlib.error) as exc:
                raise FileUnreadable(number + 1, f"cannot read the file: {exc}") from exc
            number += 1
            if progress is not None and counter.count - last_reported >= 256 * 1024:
                last_reported = counter.count
                progress(offset + counter.count, total)
            try:
                line = data.decode("utf-8")
            except UnicodeDecodeError as exc:
                raise FileUnreadable(
                    number, f"not UTF-8 text (byte {exc.start + 1} of the line: {exc.reason})"
                ) from exc
            if number == 1 and line.startswith("\ufeff"):
                line = line[1:]
            yield number, line.rstrip("\r\n")
    if progress is not None:
        progress(offset + size, total)


def _is_gzip(path: Path) -> bool:
    with open(path, "rb") as f:
        return f.read(2) == b"\x1f\x8b"


def read_json_lines(
    report: ImportReport,
    path: Path,
    name: str,
    *,
    progress: ProgressCallback | None = None,
    offset: int = 0,
    total: int | None = None,
) -> Iterator[tuple[int, dict[str, Any]]]:
    """Yield (line number, object) for each non-blank line that parses; record the others as errors."""
    try:
        for number, line in iter_lines(path, progress=progress, offset=offset, total=total):
            if not line.strip():
                continue
            obj = parse_json_line(report, name, number, line)
            if obj is not None:
                yield number, obj
    except FileUnreadable as exc:
        report.error(name, exc.line, "", exc.text)


def parse_json_line(report: ImportReport, file: str, number: int, line: str) -> dict[str, Any] | None:
    """Parse one JSONL line; NaN is accepted (NIST's files use it for a missing sentence text)."""
    try:
        value = json.loads(line)
    except json.JSONDecodeError as exc:
        report.error(file, number, "", f"invalid JSON: {exc.msg} at column {exc.colno}")
        return None
    if not isinstance(value, dict):
        report.error(file, number, "", f"expected a JSON object, got {type(value).__name__}")
        return None
    return value


def files_total_size(paths: list[Path]) -> int:
    return sum(p.stat().st_size for p in paths)
