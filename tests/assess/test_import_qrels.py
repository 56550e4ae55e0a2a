"""Relevance qrels import (issue 15, point 1): NIST's and UMBRELA's graded qrels, by source, all or nothing.

Data: NIST's rag24 relevance qrels (excerpt, castorini/anserini-tools) and UMBRELA's grades of 66 test topics
(ljy03/rag-context-indexing); SOURCES.md. Expected counts are read from the files with plain Python."""

from __future__ import annotations

import io
from collections import Counter
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.importers.qrels import relevance_import
from assess.importers.report import ImportRejected
from assess.models import Relevance


def _plain(path: Path) -> dict[tuple[str, str], int]:
    with open(path, encoding="utf-8") as f:
        return {(t, d): int(g) for t, _, d, g in (line.split() for line in f if line.strip())}


@pytest.mark.parametrize(
    ("name", "source"),
    [
        ("excerpts/qrels.rag24.test.excerpt.txt", "nist"),
        ("segments/rag24-test.umbrela-relevant.ljy03-51d3fc8.qrels.txt", "umbrela"),
    ],
)
def test_it_imports_the_tracks_qrels_as_one_sources_grades(db, data_dir, name, source):
    # given
    expected = _plain(data_dir / name)

    # when
    out = io.StringIO()
    call_command("import_qrels", str(data_dir / name), source=source, stdout=out, verbosity=0)

    # then
    got = {(r.topic_id, r.passage_id): r.grade for r in Relevance.objects.filter(source=source)}
    assert got == expected
    counts = Counter(expected.values())
    assert f"grades {len(expected)}" in out.getvalue()
    assert f"grade_3 {counts[3]}" in out.getvalue()


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("2024-1 Q0 msmarco_a 1 extra\n", "q.txt:1: expected 4 columns"),
        ("2024-1 Q0 msmarco_a 4\n", "q.txt:1: column 4: expected a grade 0, 1, 2 or 3, got '4'"),
        ("2024-1 Q0 msmarco_a x\n", "q.txt:1: column 4: expected a grade 0, 1, 2 or 3, got 'x'"),
        (
            "2024-1 Q0 msmarco_a 1\n2024-1 0 msmarco_a 2\n",
            "q.txt:2: column 4: 2024-1 msmarco_a is graded 2 here and 1 at q.txt:1",
        ),
        ("", "q.txt: the file is empty"),
    ],
)
def test_it_refuses_a_bad_line_naming_file_line_and_column(db, tmp_path, content, message):
    # given
    path = tmp_path / "q.txt"
    path.write_text(content, encoding="utf-8")

    # when
    with pytest.raises(ImportRejected) as caught:
        relevance_import(files=[path], source="nist")

    # then
    assert any(str(e).startswith(message) for e in caught.value.report.errors), caught.value.report.errors
    assert not Relevance.objects.exists()


def test_it_refuses_a_source_already_loaded_unless_replacing(db, tmp_path):
    # given
    path = tmp_path / "q.txt"
    path.write_text("2024-1 Q0 msmarco_a 1\n2024-1 Q0 msmarco_b 0\n", encoding="utf-8")
    relevance_import(files=[path], source="nist")
    path.write_text("2024-1 Q0 msmarco_a 3\n", encoding="utf-8")

    # when
    with pytest.raises(CommandError):
        call_command("import_qrels", str(path), source="nist", stderr=io.StringIO(), verbosity=0)
    before = dict(Relevance.objects.values_list("passage_id", "grade"))
    report = relevance_import(files=[path], source="nist", replace=True)

    # then
    assert before == {"msmarco_a": 1, "msmarco_b": 0}
    assert dict(Relevance.objects.values_list("passage_id", "grade")) == {"msmarco_a": 3}
    assert report.counts["replaced"] == 2
