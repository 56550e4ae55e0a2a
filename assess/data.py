"""Where the TREC 2024 RAG files live: the repository's own copy (`data/trec-rag-2024/`, see its SOURCES.md), or
the copy the `ASSESS_DATA_DIR` setting names. The demo, the tests and the benchmarks all find it here."""

from __future__ import annotations

from pathlib import Path

SETTING = "ASSESS_DATA_DIR"
# A file every copy of the set holds: a path without it is the wrong folder, not an empty set.
MARKER = "topics.rag24.test.txt"


class DataDirError(Exception):
    """The data directory is missing or is not a copy of the set; the message is one line that says what to do."""


def data_dir_check(path: Path) -> Path:
    if not path.is_dir():
        raise DataDirError(
            f"{SETTING}={path} is not a directory: set {SETTING} to a copy of data/trec-rag-2024/ or unset it"
        )
    if not (path / MARKER).is_file():
        raise DataDirError(
            f"{SETTING}={path} holds no {MARKER}: set {SETTING} to a copy of data/trec-rag-2024/ or unset it"
        )
    return path


def data_dir() -> Path:
    from django.conf import settings

    return data_dir_check(Path(getattr(settings, SETTING)))
