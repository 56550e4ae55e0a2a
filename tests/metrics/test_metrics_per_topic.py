"""Per-(run, topic) scores: the rows a run score is the mean of, through the command, the API and the page."""

from __future__ import annotations

import csv
import io
import json

import numpy as np
import pytest
from django.core.management import call_command
from django.utils import timezone

from judging.labels import label_set_get
from judging.scope import scope_for
from metrics.reports import scores_report
from metrics.topic_scores import TOPIC_SCORE_COLUMNS, topic_scores_report
from tests.conftest import nist_excerpts_import

pytestmark = pytest.mark.usefixtures("fresh_cache")

BASELINE = "baseline_rag24.test_gpt-4o_top20"
ANSWERED, UNANSWERED = "2024-32912", "2024-142395"


@pytest.fixture
def excerpt_labels(db, data_dir):
    """NIST's labels of ten runs on two topics, and a baseline run that answers one of them, unjudged."""
    excerpts = data_dir / "excerpts"
    nist_excerpts_import(data_dir)
    call_command(
        "import_runs",
        str(excerpts / f"{BASELINE}.excerpt.jsonl.fixed"),
        "--topics",
        ANSWERED,
        verbosity=0,
        stdout=io.StringIO(),
        stderr=io.StringIO(),
    )


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


def by_run(rows):
    grouped: dict[str, list] = {}
    for row in rows:
        grouped.setdefault(row["run_id"], []).append(row)
    return grouped


@pytest.mark.parametrize("depth", [1, 3])
def test_it_gives_rows_whose_means_are_the_run_scores_exactly(excerpt_labels, depth):
    # given
    label_set, scope = label_set_get("nist"), scope_for(depth=depth)

    # when
    report = topic_scores_report(label_set=label_set, scope=scope)

    # then
    runs = scores_report(label_set=label_set, scope=scope, resamples=0).rows
    grouped = by_run(r.as_dict() for r in report.rows)
    assert len(runs) == 11
    for run in runs:
        rows = grouped[run.run_id]
        assert [r["topic_id"] for r in rows] == report.topics
        assert np.array([r["weighted_precision"] for r in rows]).sum() / len(rows) == run.weighted_precision
        assert np.array([r["weighted_recall"] for r in rows]).sum() / len(rows) == run.weighted_recall
        assert np.array([r["sentences"] for r in rows], dtype=float).sum() / len(rows) == run.mean_sentences


def test_it_gives_a_topic_the_run_did_not_answer_with_zero(excerpt_labels):
    # when
    report = topic_scores_report(label_set=label_set_get("nist"), scope=scope_for())

    # then
    rows = {r.topic_id: r for r in report.rows if r.run_id == BASELINE}
    assert set(rows) == {ANSWERED, UNANSWERED}
    assert rows[ANSWERED].sentences > 0
    assert rows[ANSWERED].judged_citations == 0
    assert (rows[UNANSWERED].sentences, rows[UNANSWERED].judged_citations) == (0, 0)
    assert (rows[UNANSWERED].weighted_precision, rows[UNANSWERED].weighted_recall) == (0.0, 0.0)


def test_it_sorts_the_rows_by_run_then_topic(excerpt_labels):
    # when
    report = topic_scores_report(label_set=label_set_get("nist"), scope=scope_for())

    # then
    keys = [(r.run_id, r.topic_id) for r in report.rows]
    assert keys == sorted(keys)
    assert len(keys) == 11 * 2


def test_the_command_csv_opens_in_a_dict_reader_with_the_columns_and_full_precision(excerpt_labels):
    # given
    out = io.StringIO()

    # when
    call_command("support_scores", labels="nist", per_topic=True, format="csv", stdout=out)

    # then
    rows = list(csv.DictReader(io.StringIO(out.getvalue())))
    assert tuple(rows[0]) == TOPIC_SCORE_COLUMNS
    assert {r["label_set"] for r in rows} == {"nist/from_scratch"}
    report = topic_scores_report(label_set=label_set_get("nist"), scope=scope_for())
    assert [float(r["weighted_precision"]) for r in rows] == [r.weighted_precision for r in report.rows]
    assert [int(r["judged_citations"]) for r in rows] == [r.judged_citations for r in report.rows]


def test_the_command_api_and_page_give_the_same_rows(excerpt_labels, staff_client):
    # given
    command_out = io.StringIO()

    # when
    call_command("support_scores", labels="nist", per_topic=True, format="csv", stdout=command_out)
    api = staff_client.get("/api/metrics/scores/", {"labels": "nist", "per_topic": "true", "fmt": "csv"})
    page = staff_client.get("/metrics/export/topic-scores.csv", {"a": "nist", "b": "nist"})

    # then
    assert api.status_code == page.status_code == 200
    # issue 24: named <campaign>-<label set>-<what>-<date>.<ext> (was topic-scores.csv)
    named = f"all-loaded-nist-from_scratch-topic-scores-{timezone.localdate().isoformat()}.csv"
    assert page["Content-Disposition"] == f'attachment; filename="{named}"'
    command_rows = list(csv.DictReader(io.StringIO(command_out.getvalue())))
    assert len(command_rows) == 22
    assert list(csv.DictReader(io.StringIO(api.content.decode()))) == command_rows
    assert list(csv.DictReader(io.StringIO(page.content.decode()))) == command_rows


def test_the_api_gives_the_rows_as_json(excerpt_labels, staff_client):
    # when
    response = staff_client.get("/api/metrics/scores/", {"labels": "nist", "per_topic": "true"})

    # then
    body = response.json()
    assert response.status_code == 200
    assert body["columns"] == list(TOPIC_SCORE_COLUMNS)
    assert body["topics"] == [UNANSWERED, ANSWERED]
    assert len(body["rows"]) == 22


def test_the_command_json_names_the_label_set_and_unit(excerpt_labels):
    # given
    out = io.StringIO()

    # when
    call_command("support_scores", labels="nist", per_topic=True, format="json", stdout=out)

    # then
    body = json.loads(out.getvalue())
    assert body["label_set"]["spec"] == "nist/from_scratch"
    assert body["unit"] == "first citations"


def test_the_dashboard_links_the_per_topic_csv(excerpt_labels, staff_client):
    # when
    response = staff_client.get("/metrics/", {"a": "nist", "b": "nist"})

    # then
    assert "/metrics/export/topic-scores.csv?" in response.content.decode()
    assert "per-topic scores CSV" in response.content.decode()
