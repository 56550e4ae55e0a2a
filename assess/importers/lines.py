"""Reading input files line by line (plain or gzip, JSON lines or text), with the line context for messages."""

from __future__ import annotations

import gzip
import io
import json
import os
import re
import zlib
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from django.conf import settings

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
    """A file that cannot be read as text past some line (bad encoding, truncated gzip, a line or a file
    too long); `line` is None when the whole file is refused before its first line."""

    def __init__(self, line: int | None, text: str) -> None:
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


@dataclass(frozen=True)
class ReadLimits:
    """How much one input file may hold. Every line is read with a bound, so memory stays bounded whatever
    the file is: a gzip bomb, a file without a newline, a sparse file of a gigabyte."""

    file_bytes: int  # on disk, and once decompressed
    line_bytes: int
    gzip_ratio: int  # a .gz may expand to at most this many times its size (after the first line's bound)

    @classmethod
    def from_settings(cls) -> ReadLimits:
        return cls(
            file_bytes=int(getattr(settings, "IMPORT_MAX_FILE_BYTES", 4 << 30)),
            line_bytes=int(getattr(settings, "IMPORT_MAX_LINE_BYTES", 8 << 20)),
            gzip_ratio=int(getattr(settings, "IMPORT_MAX_GZIP_RATIO", 100)),
        )


UTF16_BOMS = (b"\xff\xfe", b"\xfe\xff")


def iter_lines(
    path: str | Path,
    *,
    name: str | None = None,
    progress: ProgressCallback | None = None,
    offset: int = 0,
    total: int | None = None,
    limits: ReadLimits | None = None,
) -> Iterator[tuple[int, str]]:
    """Yield (1-based line number, line without its newline) from a text file, plain or gzip, one at a time.

    The rules of a readable input, for every importer: strict UTF-8 (a BOM at the start is dropped), each
    line decoded on its own so that a bad byte is reported at its line; no line longer than
    `limits.line_bytes` (read with a bound, never whole); no file larger than `limits.file_bytes`, on disk or
    once decompressed, and no gzip expanding more than `limits.gzip_ratio` times; a file named `.gz` must be
    gzip. `name` is the name messages use (the upload's). `offset` and `total` let several files report one
    combined progress (in bytes read from disk).
    """
    path = Path(path)
    name = name or path.name
    limits = limits or ReadLimits.from_settings()
    size = path.stat().st_size
    total = total if total is not None else size
    if size > limits.file_bytes:
        raise FileUnreadable(None, f"the file has {size:,} bytes; the limit is {limits.file_bytes:,}")
    packed = _is_gzip(path)
    if not packed and name.lower().endswith(".gz") and size:
        raise FileUnreadable(1, "the file is named .gz but is not gzip-compressed")
    most = min(limits.file_bytes, max(limits.line_bytes, limits.gzip_ratio * size)) if packed else size
    with open(path, "rb") as raw:
        counter = _CountingReader(raw)
        stream: Any = gzip.GzipFile(fileobj=counter) if packed else io.BufferedReader(counter, 1 << 20)
        last_reported = 0
        number = 0
        read = 0
        while True:
            # Only the reading is guarded: an error raised by the progress callback stays its own.
            try:
                data = stream.readline(limits.line_bytes + 1)
            except EOFError as exc:
                raise FileUnreadable(number + 1, f"the file ends early (truncated gzip?): {exc}") from exc
            except (OSError, zlib.error) as exc:
                raise FileUnreadable(number + 1, f"cannot read the file: {exc}") from exc
            if not data:
                break
            number += 1
            read += len(data)
            if len(data) > limits.line_bytes:
                raise FileUnreadable(number, f"the line is longer than {limits.line_bytes:,} bytes (the limit)")
            if read > most:
                raise FileUnreadable(
                    number, f"the gzip file expands to more than {most:,} bytes ({limits.gzip_ratio} times its size)"
                )
            if progress is not None and counter.count - last_reported >= 256 * 1024:
                last_reported = counter.count
                progress(offset + counter.count, total)
            yield number, _decode(number, data)
    if progress is not None:
        progress(offset + size, total)


def _decode(number: int, data: bytes) -> str:
    if number == 1 and data.startswith(UTF16_BOMS):
        raise FileUnreadable(1, "UTF-16 text; save the file as UTF-8")
    try:
        line = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        raise FileUnreadable(number, f"not UTF-8 text (byte {exc.start + 1} of the line: {exc.reason})") from exc
    if number == 1 and line.startswith("\ufeff"):
        line = line[1:]
    return line.rstrip("\r\n")


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
        for number, text in iter_lines(f.path, name=f.name, progress=progress, offset=offset, total=total):
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


MAX_JSON_DEPTH = 32
MAX_INT_DIGITS = 20
_BRACKETS = re.compile(r'"(?:[^"\\]|\\.)*"|[\[\]{}]')


class HugeNumber:
    """An integer of more digits than any column holds, kept as its digits: the line's schema then refuses
    it at its field (Python would refuse to convert past 4,300 digits, with no field named)."""

    def __init__(self, digits: str) -> None:
        self.digits = digits

    def __repr__(self) -> str:
        return f"a number of {len(self.digits.lstrip('-'))} digits"


def _parse_int(digits: str) -> int | HugeNumber:
    return int(digits) if len(digits) <= MAX_INT_DIGITS else HugeNumber(digits)


def json_depth_exceeds(text: str, limit: int = MAX_JSON_DEPTH) -> int | None:
    """The column at which `text` nests deeper than `limit`, or None. Free unless the line holds more
    brackets than the limit; then one pass over its strings and brackets."""
    if text.count("[") + text.count("{") <= limit:
        return None
    depth = 0
    for m in _BRACKETS.finditer(text):
        token = m.group()
        if token in "[{":
            depth += 1
            if depth > limit:
                return m.start() + 1
        elif token in "]}":
            depth -= 1
    return None


def parse_json_line(line: Line, text: str) -> dict[str, Any] | None:
    """Parse one JSONL line, nested at most MAX_JSON_DEPTH deep (no RecursionError); NaN is accepted (NIST's
    files use it for a missing sentence text); each line's schema then checks every value."""
    column = json_depth_exceeds(text)
    if column is not None:
        line.error("", f"JSON nested deeper than {MAX_JSON_DEPTH} levels at column {column}")
        return None
    try:
        value = json.loads(text, parse_int=_parse_int)
    except json.JSONDecodeError as exc:
        line.error("", f"invalid JSON: {exc.msg} at column {exc.colno}")
        return None
    if not isinstance(value, dict):
        line.error("", f"expected a JSON object, got {type(value).__name__}")
        return None
    return value
