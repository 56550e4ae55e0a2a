"""Exports: the exchange file (CSV, JSONL) and NIST-style JSONL round-trip to the same scores."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from judging.exchange.exchange import EXCHANGE_COLUMNS
from judging.exchange.reading import JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.scope import scope_for
from metrics.exports import scores_csv
from metrics.reports import SCORE_COLUMNS, scores_report
from tests.conftest import nist_excerpts_import

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture
def excerpt_labels(db, data_dir):
    nist_excerpts_import(data_dir)


def scores(judge, depth=1):
    report = scores_report(label_set=label_set_get(judge), scope=scope_for(depth=depth), resamples=0)
    return {r.run_id: (r.weighted_precision, r.weighted_recall, r.mean_sentences, r.topics) for r in report.rows}


@pytest.mark.parametrize(("fmt", "import_fmt"), [("csv", "exchange"), ("jsonl", "exchange"), ("nist", "nist")])
def test_export_then_import_gives_the_same_scores(excerpt_labels, tmp_path, fmt, import_fmt):
    # given
    out = tmp_path / f"export.{fmt}"
    call_command("export_judgments", str(out), format=fmt, labels=["nist"], stderr=io.StringIO())

    # when: imported back under another judge's name
    judgments_import(
        files=[out], fmt=import_fmt, options=JudgmentImportOptions(judge="copy", kind="human", condition="from_scratch")
    )

    # then
    assert scores("copy") == scores("nist")
    assert scores("copy", depth=3) == scores("nist", depth=3)
    assert len(scores("nist")) == 10


def test_the_exchange_csv_has_the_design_columns(excerpt_labels, tmp_path):
    # given
    out = tmp_path / "qrels.csv"

    # when
    call_command("export_judgments", str(out), format="csv", stderr=io.StringIO())

    # then
    rows = list(csv.DictReader(out.open()))
    assert tuple(rows[0]) == EXCHANGE_COLUMNS
    assert {r["judge"] for r in rows} == {"nist"}
    assert {r["label"] for r in rows} == {"FS", "PS", "NS"}


def test_the_nist_export_marks_unlabelled_citations_minus_one(excerpt_labels, tmp_path):
    # given
    out = tmp_path / "nist.jsonl"

    # when
    call_command("export_judgments", str(out), format="nist", labels=["nist"], stderr=io.StringIO())

    # then
    rows = [json.loads(line) for line in out.open()]
    supports = {c["support"] for r in rows for s in r["sentences"] for c in s["citations"]}
    assert len(rows) == 20
    assert supports <= {"2", "1", "0", "-1"}


def test_the_scores_csv_has_the_papers_columns(excerpt_labels):
    # given
    out = io.StringIO()

    # when
    scores_csv(out, [scores_report(label_set=label_set_get("nist"), scope=scope_for(), resamples=0)])

    # then
    lines = out.getvalue().splitlines()
    assert tuple(lines[0].split(",")) == SCORE_COLUMNS
    assert len(lines) == 11
