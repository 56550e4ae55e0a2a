"""Fixtures of the import tests."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from assess.importers.topics import topics_import


@pytest.fixture
def topics(db: Any, data_dir: Path) -> None:
    """The TREC 2024 RAG test topics, loaded."""
    topics_import(files=[data_dir / "topics.rag24.test.txt"])
