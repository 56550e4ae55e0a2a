"""NIST's JSONL both ways on the real from-scratch files (issue 15, point 2): the export writes back every
answer as NIST wrote it (citationId, verification_worthy, citationsCombibed, the key spelling), and importing
that export into an empty database gives the paper's figures for all 45 runs. The expected figures come from
reading NIST's files with plain json (tests/reference/nist_files.py), never from the code under test.

Data: TREC 2024 RAG Track support judgments by NIST (castorini/RAGDoll copies; SOURCES.md)."""

from __future__ import annotations

import io
import json
import math
from pathlib import Path
from typing import Any

import pytest
from django.core.cache import cache
from django.core.management import call_command
from django.core.management.base import CommandError

from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.scope import scope_for
from metrics.reports import scores_report
from metrics.selectors import support_stats
from tests.judging.test_metrics_nist import _wipe
from tests.reference import nist_files as reference

pytestmark = pytest.mark.usefixtures("fresh_cache")

NIST_FROM_SCRATCH = JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch")


def _export(path: Path, **options: Any) -> None:
    call_command(
        "export_judgments", str(path), format="nist", labels=["nist/from_scratch"], stderr=io.StringIO(), **options
    )


def _lines(path: Path) -> dict[tuple[str, str], dict[str, Any]]:
    with open(path, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f if line.strip()]
    by_answer = {(r["topic_id"], r["run_id"]): r for r in rows}
    assert len(by_answer) == len(rows)
    return by_answer


def _as_nist_wrote_it(row: dict[str, Any]) -> dict[str, Any]:
    """An original line as the platform keeps it: a missing (NaN) text is an empty text."""
    out = json.loads(json.dumps(row))
    for sentence in out["sentences"]:
        if isinstance(sentence["text"], float) and math.isnan(sentence["text"]):
            sentence["text"] = ""
    return out


@pytest.fixture(scope="module")
def round_trip(django_db_setup, django_db_blocker, tmp_path_factory):
    """NIST's two files imported, exported, the database emptied, and the export imported alone."""
    folder = tmp_path_factory.mktemp("nist-round-trip")
    exported = folder / "nist-export.jsonl"
    with django_db_blocker.unblock():
        _wipe()
        judgments_import(files=reference.FROM_SCRATCH, fmt=JudgmentFormat.NIST, options=NIST_FROM_SCRATCH)
        _export(exported)
        _wipe()
        report = judgments_import(files=[exported], fmt=JudgmentFormat.NIST, options=NIST_FROM_SCRATCH)
        cache.clear()
        yield exported, report
        _wipe()
        cache.clear()


@pytest.fixture(scope="module")
def originals():
    return reference.read_many(reference.FROM_SCRATCH)


def test_it_exports_every_answer_as_nist_wrote_it(round_trip, originals):
    # given
    exported, _ = round_trip

    # when
    lines = _lines(exported)

    # then: all 930 answers (the two without a citation and the one judged nowhere among them), each line
    # NIST's own line plus the label set it names
    assert len(lines) == len(originals) == 930
    for original in originals:
        line = dict(lines[(original["topic_id"], original["run_id"])])
        assert line.pop("label_set") == "nist/from_scratch"
        assert line == _as_nist_wrote_it(original), (original["topic_id"], original["run_id"])


def test_it_keeps_each_files_key_spelling_and_nists_citation_ids(round_trip):
    # given
    exported, _ = round_trip
    lines = _lines(exported)

    # when
    webassess = lines[("2024-129925", "citi.BEST_cot_gpt3.5")]["sentences"][1]
    final = lines[("2024-143869", "IITD-IRL.zeph_test_rag_rrf_expand_query")]["sentences"][0]

    # then
    assert list(webassess) == ["sentenceId", "verification_worthy", "citationsCombibed", "text", "citations"]
    assert webassess["citations"][0]["citationId"] == 11
    assert list(final) == ["sentenceID", "text", "citations"]
    assert list(final["citations"][0]) == ["citationID", "reference", "support"]


def test_it_gives_all_45_runs_the_same_scores_after_export_and_import(round_trip, originals, db):
    # when: the database holds only what the export said
    report = scores_report(label_set=label_set_get("nist/from_scratch"), scope=scope_for(), resamples=0)

    # then
    expected = reference.run_scores(originals)
    assert len(expected) == len(report.rows) == 45
    for row in report.rows:
        precision, recall, sentences, topics = expected[row.run_id]
        assert row.weighted_precision == pytest.approx(precision, abs=1e-9), row.run_id
        assert row.weighted_recall == pytest.approx(recall, abs=1e-9), row.run_id
        assert row.mean_sentences == pytest.approx(sentences, abs=1e-9), row.run_id
        assert row.topics == topics == 22
    zephyr = next(r for r in report.rows if r.run_id == "IRIT.ISIR-IRIT-zephyr_p2")
    assert round(zephyr.mean_sentences, 3) == 1.591


def test_it_gives_table_3_after_export_and_import(round_trip, originals, db):
    # when
    (row,) = [r for r in support_stats(scope_for(depth=1)) if r["label_set"] == "nist/from_scratch"]

    # then
    counts = reference.table3_counts(originals)
    assert (row["FS"], row["PS"], row["NS"], row["not_judged"]) == (counts["FS"], counts["PS"], counts["NS"], 50)
    assert (counts["FS"], counts["PS"], counts["NS"]) == (2752, 1652, 2338)


def test_it_writes_the_same_file_again_from_the_imported_export(round_trip, tmp_path, db):
    # given
    exported, report = round_trip
    assert report.counts["answers"] == 930

    # when
    again = tmp_path / "again.jsonl"
    _export(again)

    # then
    assert _lines(again) == _lines(exported)


@pytest.mark.parametrize(("keys", "sentence_key", "citation_key"), [("sentenceID", "sentenceID", "citationID")])
def test_it_writes_one_spelling_when_asked(round_trip, tmp_path, db, keys, sentence_key, citation_key):
    # when
    out = tmp_path / "one-spelling.jsonl"
    _export(out, nist_keys=keys)

    # then: citationID is then the citation's position in the sentence's list
    lines = _lines(out)
    sentence = lines[("2024-129925", "citi.BEST_cot_gpt3.5")]["sentences"][1]
    assert sentence_key in sentence
    assert "sentenceId" not in sentence
    assert sentence["verification_worthy"] == "1"
    assert [c[citation_key] for c in sentence["citations"]] == list(range(len(sentence["citations"])))


def test_a_failed_nist_export_leaves_no_file(round_trip, tmp_path, db):
    # given
    out = tmp_path / "never.jsonl"

    # when: the spelling is refused once the file is open (call_command passes it unchecked by argparse)
    with pytest.raises(CommandError, match="unknown NIST key spelling"):
        _export(out, nist_keys="sentenceid")

    # then
    assert not out.exists()
    assert not Path(f"{out}.partial").exists()
