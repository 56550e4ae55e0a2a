"""The NIST-style export of a label set read from NIST's file writes the answers that file described, never
another run's answers as all "-1" (NIST did not leave those unjudged: it never saw them under these ids).

Data: TREC 2024 RAG Track support judgments by NIST and the organizers' baseline runs (SOURCES.md)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command

from assess.importers.runs import RunOptions, runs_import
from tests.conftest import nist_excerpts_import

pytestmark = pytest.mark.usefixtures("fresh_cache")


def _run_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("baseline_rag24.test_*.jsonl.fixed"))


def test_the_nist_export_writes_only_the_answers_nists_file_described(db, data_dir, tmp_path):
    # given: NIST's labels of the two excerpt topics, and the organizers' baseline runs loaded from their own
    # files for those topics (answers NIST described under other run ids)
    nist_excerpts_import(data_dir)
    topics = ["2024-32912", "2024-129925"]
    runs_import(files=_run_files(data_dir / "runs"), options=RunOptions(topics=topics))
    excerpts = data_dir / "excerpts"
    described = set()
    for name in (
        "final.citation_judgments_without_prediction.20241025.excerpt.jsonl",
        "final.citation_judgments_Webassess.20241031.excerpt.jsonl",
    ):
        with open(excerpts / name, encoding="utf-8") as f:
            described |= {(str(o["topic_id"]), o["run_id"]) for o in map(json.loads, f)}

    # when
    out = tmp_path / "nist.jsonl"
    call_command("export_judgments", str(out), format="nist", labels=["nist/from_scratch"], stderr=io.StringIO())

    # then: every answer NIST described, and not one baseline answer written as all "-1"
    with open(out, encoding="utf-8") as f:
        written = {(r["topic_id"], r["run_id"]) for r in map(json.loads, f)}
    assert written == described
    assert not any(run_id.startswith("baseline_") for _, run_id in written)
