"""Topical relevance beside support (issue 15, point 1): the imported qrels as a scope filter on the scores
and as grades in the organizer's drill-down. The expected figures are computed from the files with plain
json, the way tests/reference/nist_files.py computes the paper's, with the filter applied.

Data: NIST's support labels and relevance qrels of the two excerpt topics, Opus's labels (SOURCES.md)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.importers.qrels import relevance_import
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.scope import relevance_filter_parse, scope_for
from metrics.reports import scores_report
from tests.conftest import nist_excerpts_import

pytestmark = pytest.mark.usefixtures("fresh_cache")

QRELS = "excerpts/qrels.rag24.test.excerpt.txt"
WEIGHT = {"2": 1.0, "1": 0.5, "0": 0.0}


@pytest.fixture
def graded(db, data_dir):
    nist_excerpts_import(data_dir)
    judgments_import(
        files=[data_dir / "excerpts/opus48_nist_verdicts.excerpt.jsonl"],
        fmt=JudgmentFormat.EXCHANGE,
        options=JudgmentImportOptions(judge="opus", kind="llm", label_field="opus_nist_label"),
    )
    relevance_import(files=[data_dir / QRELS], source="nist-qrels")


def _qrels(data_dir: Path) -> dict[tuple[str, str], int]:
    with open(data_dir / QRELS, encoding="utf-8") as f:
        return {(t, d): int(g) for t, _, d, g in (line.split() for line in f if line.strip())}


def _expected_scores(data_dir: Path, min_grade: int) -> dict[str, tuple[float, float]]:
    """Run -> (precision, recall) over first citations of passages graded >= min_grade; a sentence whose
    first citation is filtered out counts as a sentence without a citation in scope (0 in recall)."""
    qrels = _qrels(data_dir)
    per: dict[str, list[tuple[float, float]]] = {}
    for name in (
        "final.citation_judgments_without_prediction.20241025.excerpt.jsonl",
        "final.citation_judgments_Webassess.20241031.excerpt.jsonl",
    ):
        with open(data_dir / "excerpts" / name, encoding="utf-8") as f:
            for row in (json.loads(line) for line in f):
                judged, dropped, total = 0, 0, 0.0
                for sentence in row["sentences"]:
                    if not sentence["citations"]:
                        continue
                    first = sentence["citations"][0]
                    if qrels.get((row["topic_id"], first["reference"]), -1) < min_grade:
                        continue
                    if first["support"] == "-1":
                        dropped += 1
                        continue
                    judged += 1
                    total += WEIGHT[first["support"]]
                n = len(row["sentences"]) - dropped
                per.setdefault(row["run_id"], []).append((total / judged if judged else 0.0, total / n if n else 0.0))
    return {run: (sum(p for p, _ in v) / 2, sum(r for _, r in v) / 2) for run, v in per.items()}


def test_it_scores_only_the_citations_of_passages_graded_relevant(graded, data_dir):
    # given
    nist = label_set_get("nist")

    # when
    filtered = scores_report(
        label_set=nist, scope=scope_for(relevance=relevance_filter_parse("nist-qrels:2")), resamples=0
    )
    everything = scores_report(label_set=nist, scope=scope_for(), resamples=0)

    # then
    expected = _expected_scores(data_dir, 2)
    assert len(filtered.rows) == len(expected) == 10
    assert len(filtered.topics) == 2
    for row in filtered.rows:
        assert (row.weighted_precision, row.weighted_recall) == pytest.approx(expected[row.run_id], abs=1e-12)
    assert {r.run_id: r.weighted_precision for r in filtered.rows} != {
        r.run_id: r.weighted_precision for r in everything.rows
    }


def test_the_api_and_the_command_take_the_relevance_filter(graded, data_dir, client, organizer):
    # given
    client.force_login(organizer)
    expected = _expected_scores(data_dir, 1)

    # when
    api = client.get("/api/metrics/scores/", {"labels": "nist", "relevance": "nist-qrels:1", "resamples": 0})
    bad = client.get("/api/metrics/scores/", {"labels": "nist", "relevance": "umbrela:1", "resamples": 0})
    out = io.StringIO()
    call_command("support_scores", "--labels", "nist", "--relevance", "nist-qrels:1", "--resamples", "0", stdout=out)

    # then
    assert api.status_code == 200
    assert api.json()["relevance"] == "nist-qrels:1"
    for row in api.json()["runs"]:
        assert (row["weighted_precision"], row["weighted_recall"]) == pytest.approx(expected[row["run_id"]], abs=1e-12)
    assert bad.status_code == 400
    assert "no grades of source 'umbrela' are loaded" in bad.json()["detail"]
    assert "only citations of passages nist-qrels graded >= 1" in out.getvalue()


@pytest.mark.parametrize("spec", ["nist-qrels", "nist-qrels:4", ":1"])
def test_it_refuses_a_malformed_relevance_filter(graded, spec):
    with pytest.raises(CommandError, match="expected SOURCE:MIN"):
        call_command("support_scores", "--labels", "nist", "--relevance", spec, stdout=io.StringIO())


def test_the_drill_down_shows_each_passages_relevance_beside_its_support(graded, data_dir, client, organizer):
    # given
    client.force_login(organizer)
    qrels = _qrels(data_dir)

    # when
    response = client.get("/metrics/topics/2024-32912/", {"a": "nist", "b": "opus"})
    api = client.get("/api/metrics/disagreements/", {"a": "nist", "b": "opus", "topic": "2024-32912"})

    # then
    rows = response.context["rows"]
    assert rows
    for r in rows:
        grade = qrels.get((r.topic_id, r.passage_id))
        assert r.relevance == ((("nist-qrels", grade),) if grade is not None else ())
    assert any(r.relevance for r in rows)
    assert "Topical relevance (qrels, 0&ndash;3)" in response.content.decode()
    assert api.status_code == 200
    assert all("relevance" in row for row in api.json()["rows"])


def test_the_dashboard_filters_the_scores_by_relevance_and_says_so(graded, data_dir, client, organizer):
    # given
    client.force_login(organizer)
    expected = _expected_scores(data_dir, 2)

    # when
    response = client.get("/metrics/", {"a": "nist", "b": "opus", "relevance": "nist-qrels:2"})

    # then
    assert response.status_code == 200
    html = response.content.decode()
    assert 'id="relevance-filter"' in html
    assert "nist-qrels relevance \u2265 2" in html
    rows = response.context["report_a"].rows
    assert len(rows) == 10
    for row in rows:
        assert (row.weighted_precision, row.weighted_recall) == pytest.approx(expected[row.run_id], abs=1e-12)
