"""The relevance kind's test data: three topics of the repository's UMBRELA qrels (SOURCES.md), their passages
loaded through the passage importer from the segments file beside the qrels, read here with the standard
library only (independent of the project's code)."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

QRELS = "segments/rag24-test.umbrela-relevant.ljy03-51d3fc8.qrels.txt"
SEGMENTS = "segments/rag24-test.umbrela-relevant.ljy03-51d3fc8.jsonl.gz"
NIST_QRELS = "excerpts/qrels.rag24.test.excerpt.txt"
TOPICS = ("2024-25003", "2024-135747", "2024-113215")  # 9, 11 and 46 pairs in the file


def qrels_lines(path: Path) -> list[str]:
    return [line.rstrip("\n") for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


def qrels_of(path: Path, topics: tuple[str, ...] | None = None) -> dict[tuple[str, str], int]:
    grades = {}
    for line in qrels_lines(path):
        topic, _, passage, grade = line.split()
        if topics is None or topic in topics:
            grades[(topic, passage)] = int(grade)
    return grades


@pytest.fixture
def umbrela_loaded(db: Any, data_dir: Path, tmp_path: Path) -> dict[tuple[str, str], int]:
    """The three topics, UMBRELA's whole qrels as source `umbrela`, and the texts of those topics' passages
    (filtered from the segments file to keep the test quick, then loaded by the passage importer)."""
    from assess.importers.passages import passages_import
    from assess.importers.qrels import relevance_import
    from tests.factories import TopicFactory

    pairs = qrels_of(data_dir / QRELS, TOPICS)
    wanted = {p for _, p in pairs}
    subset = tmp_path / "segments.jsonl"
    with gzip.open(data_dir / SEGMENTS, "rt", encoding="utf-8") as src, subset.open("w", encoding="utf-8") as out:
        for line in src:
            if json.loads(line)["docid"] in wanted:
                out.write(line)
    for topic in TOPICS:
        TopicFactory(topic_id=topic, text=f"the question of {topic}?")
    relevance_import(files=[data_dir / QRELS], source="umbrela")
    passages_import(files=[subset])
    return pairs


@pytest.fixture
def relevance_campaign(umbrela_loaded: Any) -> Any:
    from assess.models import Topic
    from judging.build import campaign_create_and_build
    from judging.models import JudgeKind
    from judging.services import judge_get_or_create

    campaign, _ = campaign_create_and_build(
        name="relevance-3",
        runs=[],
        topics=list(Topic.objects.filter(topic_id__in=TOPICS)),
        kind="relevance",
        build_options={"pool": "qrels", "source": "umbrela"},
        post_edit_judge=judge_get_or_create(name="umbrela", kind=JudgeKind.LLM),
    )
    return campaign
