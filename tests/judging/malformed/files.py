"""How a malformed file of the corpus is described and made: the `Bad` case, the lines it starts from, and the
generated big files (streamed: a 1 MB gzip that expands to 1 GiB is never held in memory)."""

from __future__ import annotations

import json
import zlib
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

REF = [f"msmarco_v2.1_doc_00_{i}#0_{i * 100}" for i in range(3)]
MB = 1 << 20


def run_line(**overrides):
    obj = {
        "run_id": "team.new",
        "topic_id": "2024-1",
        "topic": "first question",
        "references": REF[:2],
        "response_length": 4,
        "answer": [{"text": "Alpha beta.", "citations": [0]}, {"text": "Gamma delta.", "citations": [1, 0]}],
    }
    obj.update(overrides)
    return obj


def nist_line(**overrides):
    obj = {
        "topic_id": "2024-1",
        "run_id": "team.old",
        "sentences": [
            {"sentenceID": 0, "text": "Alpha beta.", "citations": [{"reference": REF[0], "support": "2"}]},
            {"sentenceID": 1, "text": "Gamma delta.", "citations": [{"reference": REF[1], "support": "1"}]},
        ],
    }
    obj.update(overrides)
    return obj


def jl(*objs) -> bytes:
    return "".join(o if isinstance(o, str) else json.dumps(o) + "\n" for o in objs).encode()


CSV_HEADER = "topic_id,run_id,sentence_index,citation_slot,judge,judge_kind,label,seconds\n"


def csv_rows(*rows: str) -> bytes:
    return (CSV_HEADER + "".join(r + "\n" for r in rows)).encode()


GOOD_ROW = "2024-1,team.old,0,0,ext,llm,FS,3"


def exchange_row(**overrides):
    obj = {
        "topic_id": "2024-1",
        "run_id": "team.old",
        "sentence_index": 0,
        "citation_slot": 0,
        "judge": "ext",
        "judge_kind": "llm",
        "label": "FS",
    }
    obj.update(overrides)
    return obj


def deep(n: int) -> str:
    return "[" * n + "]" * n


def gzip_bomb(path: Path, *, chunk: bytes, chunks: int) -> None:
    """A gzip of `chunk` repeated `chunks` times, written streaming: about 1 MB for 1 GiB of zeros."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    with open(path, "wb") as out:
        for _ in range(chunks):
            out.write(packer.compress(chunk))
        out.write(packer.flush())


def huge_line(path: Path, *, prefix: bytes, size: int) -> None:
    """One line of `size` bytes and no newline, written in pieces."""
    with open(path, "wb") as out:
        out.write(prefix)
        for _ in range(size // MB):
            out.write(b"a" * MB)


@dataclass(frozen=True)
class Bad:
    id: str
    kind: str  # topics, passages, runs, nist-runs, exchange, nist-judgments
    name: str
    data: bytes | Callable[[Path], None]
    first_error: str  # how the first error reads: `file:line: field: text` (its start), or `re:` a pattern
    options: dict = field(default_factory=dict)


NUL = "\u0000"
BOMB = lambda path: gzip_bomb(path, chunk=bytes(MB), chunks=1024)  # noqa: E731  1 MB -> 1 GiB, no newline
BLANK_BOMB = lambda path: gzip_bomb(path, chunk=(b" " * 1023 + b"\n") * 1024, chunks=1024)  # noqa: E731
LONG_LINE = 9 * MB
LINE_LIMIT = "the line is longer than 8,388,608 bytes (the limit)"
