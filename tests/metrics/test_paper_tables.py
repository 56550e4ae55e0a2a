"""The paper's tables from NIST's real files, checked against an independent reading of the same files
(tests/reference/nist_files.py: the standard library only, none of the platform's code).

Data: TREC 2024 RAG Track support judgments by NIST, and Claude Opus 4.8's labels of the same citations
(castorini/RAGDoll); see data/trec-rag-2024/SOURCES.md. Paper: arXiv 2504.15205."""

from __future__ import annotations

import io
import json

import pytest
from django.core.cache import cache
from django.core.management import call_command

from judging.exchange.export import ExportFormat, judgments_export
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.scope import EVERY_CITATION, scope_for
from metrics.reports import agreement_report, answer_scores, scores_report
from metrics.selectors import support_stats
from tests.judging.test_metrics_nist import _wipe
from tests.reference import nist_files as reference

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture(scope="module")
def loaded(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        _wipe()
        for files, condition in ((reference.FROM_SCRATCH, "from_scratch"), (reference.POST_EDIT, "post_edit")):
            judgments_import(
                files=files,
                fmt=JudgmentFormat.NIST,
                options=JudgmentImportOptions(judge="nist", kind="human", condition=condition),
            )
        judgments_import(
            files=[reference.VERDICTS],
            fmt=JudgmentFormat.EXCHANGE,
            options=JudgmentImportOptions(judge="opus-4.8-nist", kind="llm", label_field="opus_nist_label"),
        )
        cache.clear()
        yield
        _wipe()
        cache.clear()


@pytest.fixture(scope="module")
def from_scratch_rows():
    return reference.read_many(reference.FROM_SCRATCH)


def _assert_runs_match(report, expected):
    assert {r.run_id for r in report.rows} == set(expected)
    for row in report.rows:
        precision, recall, sentences, topics = expected[row.run_id]
        assert row.weighted_precision == pytest.approx(precision, abs=1e-9), row.run_id
        assert row.weighted_recall == pytest.approx(recall, abs=1e-9), row.run_id
        assert row.mean_sentences == pytest.approx(sentences, abs=1e-9), row.run_id
        assert row.topics == topics


def test_it_gives_all_45_runs_of_table_5_from_the_from_scratch_files(loaded, db, from_scratch_rows):
    # when
    report = scores_report(label_set=label_set_get("nist/from_scratch"), scope=scope_for(), resamples=0)

    # then
    expected = reference.run_scores(from_scratch_rows)
    assert len(expected) == 45
    _assert_runs_match(report, expected)
    neurag = next(r for r in report.rows if r.run_id == "neu.neurag")
    assert (round(neurag.weighted_precision, 6), round(neurag.weighted_recall, 6)) == (0.643988, 0.397202)


def test_it_gives_table_7_from_the_post_edit_file(loaded, db):
    report = scores_report(label_set=label_set_get("nist/post_edit"), scope=scope_for(), resamples=0)

    expected = reference.run_scores(reference.read_many(reference.POST_EDIT))
    assert len(report.topics) == 14
    _assert_runs_match(report, expected)


def test_it_counts_in_table_3_exactly_the_labels_the_scores_use(loaded, db, from_scratch_rows):
    # when
    nist = label_set_get("nist/from_scratch")
    (row,) = [r for r in support_stats(scope_for(depth=1)) if r["label_set"] == nist.spec]
    used = sum(s.judged for s in answer_scores(label_set=nist, scope=scope_for(depth=1)))

    # then
    counts = reference.table3_counts(from_scratch_rows)
    assert (row["FS"], row["PS"], row["NS"], row["not_judged"]) == (
        counts["FS"],
        counts["PS"],
        counts["NS"],
        counts["-1"],
    )
    assert row["judged"] == used == counts["judged"] == 6742


def test_it_leaves_the_topic_with_unjudged_citations_as_nist_judged_it(loaded, db, from_scratch_rows):
    # given: neu.neurag on 2024-158677 has three -1 first citations whose pairs neu.neuragfix judged
    nist = label_set_get("nist/from_scratch")

    # when
    (score,) = [
        s
        for s in answer_scores(label_set=nist, scope=scope_for())
        if (s.topic_id, s.run_id) == ("2024-158677", "neu.neurag")
    ]

    # then
    sentences, judged, precision, recall = reference.answer_scores(from_scratch_rows)[("2024-158677", "neu.neurag")]
    assert (score.sentences, score.judged) == (sentences, judged) == (17, 9)
    assert score.precision == pytest.approx(precision, abs=1e-9)
    assert score.recall == pytest.approx(recall, abs=1e-9)


@pytest.mark.parametrize(("unit", "depth"), [("first", 1), ("every", EVERY_CITATION)])
def test_it_measures_nist_against_opus_in_the_unit_it_names(loaded, db, from_scratch_rows, unit, depth):
    # when
    report = agreement_report(
        a=label_set_get("nist/from_scratch"),
        b=label_set_get("opus-4.8-nist"),
        scope=scope_for(depth=depth),
        resamples=0,
    )

    # then
    expected = reference.opus_agreement(reference.VERDICTS, from_scratch_rows, unit=unit)
    labels = report["labels"]
    assert labels["n"] == expected["n"]
    assert labels["matrix"] == expected["confusion"]
    assert labels["agreement"] == pytest.approx(expected["agreement"], abs=1e-12)
    assert labels["kappa"] == pytest.approx(expected["kappa"], abs=1e-12)
    word = "first citations" if unit == "first" else "every citation"
    assert report["n_label"] == f"{word} both labelled: {expected['n']:,}"


def test_it_gives_the_same_scores_after_a_nist_export_and_import(loaded, db, tmp_path):
    # given
    nist = label_set_get("nist/from_scratch")
    before = scores_report(label_set=nist, scope=scope_for(), resamples=0)
    buffer = io.StringIO()
    judgments_export(buffer, fmt=ExportFormat.NIST, scope=scope_for(depth=EVERY_CITATION), label_sets=[nist])

    # when
    path = tmp_path / "roundtrip-nist.jsonl"
    path.write_text(buffer.getvalue(), encoding="utf-8")
    judgments_import(
        files=[path],
        fmt=JudgmentFormat.NIST,
        options=JudgmentImportOptions(judge="nist-again", kind="human", condition="from_scratch"),
    )
    after = scores_report(label_set=label_set_get("nist-again"), scope=scope_for(), resamples=0)

    # then
    assert [(r.run_id, r.weighted_precision, r.weighted_recall) for r in after.rows] == [
        (r.run_id, r.weighted_precision, r.weighted_recall) for r in before.rows
    ]


def test_the_page_the_api_and_the_command_give_the_same_agreement(loaded, db, client, organizer):
    # given
    client.force_login(organizer)
    query = {"a": "nist/from_scratch", "b": "opus-4.8-nist", "resamples": 50}

    # when
    api = client.get("/api/metrics/agreement/", query).json()
    page = client.get("/metrics/export/agreement.json", {"a": query["a"], "b": query["b"]})
    out = io.StringIO()
    call_command("agreement", "--a", query["a"], "--b", query["b"], "--resamples", "50", "--format", "json", stdout=out)
    command = json.loads(out.getvalue())

    # then
    assert api == command
    assert api["n_label"] == "first citations both labelled: 6,035"
    from_page = json.loads(page.content)  # the page's export bootstraps with its default 1000 resamples
    assert {k: v for k, v in from_page["labels"].items() if k != "kappa_ci"} == {
        k: v for k, v in api["labels"].items() if k != "kappa_ci"
    }
    assert from_page["tau"] == api["tau"]
    assert from_page["tau_ci"] == api["tau_ci"]
    html = client.get("/metrics/", {"a": query["a"], "b": query["b"]}).content.decode()
    assert 'id="agreement-n">6,035<' in html
    assert "A: nist (human, from scratch)" in html


def test_the_budget_simulation_starts_from_the_full_human_scores_of_table_5(loaded, db, from_scratch_rows):
    # given
    from metrics.budget.estimators import full_scores
    from metrics.budget.selectors import budget_population

    population, runs, topics = budget_population(
        truth=label_set_get("nist/from_scratch"), llm=label_set_get("opus-4.8-nist"), scope=scope_for(depth=1)
    )

    # when
    precision = dict(zip(runs, full_scores(population, metric="precision"), strict=True))
    recall = dict(zip(runs, full_scores(population, metric="recall"), strict=True))
    out = io.StringIO()
    call_command(
        "budget_simulate", "--truth", "nist/from_scratch", "--llm", "opus-4.8-nist", "--budgets", "0.2",
        "--repeats", "20", "--design", "uniform", "--metric", "precision", "--format", "json", stdout=out,
    )  # fmt: skip
    report = json.loads(out.getvalue())

    # then
    expected = reference.run_scores(from_scratch_rows)
    assert (len(topics), len(population.answer)) == (22, 6742)
    for run_id, (p, r, _sentences, _topics) in expected.items():
        assert precision[run_id] == pytest.approx(p, abs=1e-9)
        assert recall[run_id] == pytest.approx(r, abs=1e-9)
    (row,) = report["rows"]
    assert (row["budget"], row["design"], row["repeats"]) == (0.2, "uniform", 20)
    assert 0.8 < row["coverage"] <= 1.0
    assert row["width"] < row["width_human_only"]
