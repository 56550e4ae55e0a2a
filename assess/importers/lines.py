"""Reading input files line by line (plain or gzip, JSON lines or text), with the line context for messages."""

from __future__ import annotations

import gzip
import io
import json
import os
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from assess.importers.report import ImportReport, Line

ProgressCallback = Callable[[int, int], None]
"""Called with (bytes done, bytes total) as a file is read."""


@dataclass(frozen=True)
class InputFile:
    """A file to import and the name its messages use (the upload's name, not the stored path)."""

    path: Path
    name: str

    @classmethod
    def of(cls, path: str | Path, name: str | None = None) -> InputFile:
        return cls(Path(path), name or os.path.basename(str(path)))

    @property
    def size(self) -> int:
        return self.path.stat().st_size


def as_inputs(files: Iterable[InputFile | str | Path]) -> list[InputFile]:
    return [f if isinstance(f, InputFile) else InputFile.of(f) for f in files]


def with_offsets(inputs: list[InputFile]) -> Iterator[tuple[InputFile, int, int]]:
    """(file, bytes before it, bytes of all files): several files report one combined progress."""
    total = sum(f.size for f in inputs)
    offset = 0
    for f in inputs:
        yield f, offset, total
        offset += f.size


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


def read_text_lines(
    report: ImportReport,
    f: InputFile,
    *,
    progress: ProgressCallback | None = None,
    offset: int = 0,
    total: int | None = None,
) -> Iterator[tuple[Line, str]]:
    """Yield (line context, text) for each non-blank line; a file that cannot be read is an error at its line."""
    try:
        for number, text in iter_lines(f.path, progress=progress, offset=offset, total=total):
            if text.strip():
                yield report.at(f.name, number), text
    except FileUnreadable as exc:
        report.error(f.name, exc.line, "", exc.text)


def read_json_lines(
    report: ImportReport,
    f: InputFile,
    *,
    progress: ProgressCallback | None = None,
    offset: int = 0,
    total: int | None = None,
) -> Iterator[tuple[Line, dict[str, Any]]]:
    """Yield (line context, object) for each non-blank line that parses; record the others as errors."""
    for line, text in read_text_lines(report, f, progress=progress, offset=offset, total=total):
        obj = parse_json_line(line, text)
        if obj is not None:
            yield line, obj


def parse_json_line(line: Line, text: str) -> dict[str, Any] | None:
    """Parse one JSONL line; NaN is accepted (NIST's files use it for a missing sentence text)."""
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        line.error("", f"invalid JSON: {exc.msg} at column {exc.colno}")
        return None
    if not isinstance(value, dict):
        line.error("", f"expected a JSON object, got {type(value).__name__}")
        return None
    return value
