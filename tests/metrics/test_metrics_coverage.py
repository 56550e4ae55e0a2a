"""Coverage (issue 24): every score says how much of its run the label set judged; a run it judged none of is
"not judged", never 0, in the report, the API, the command's CSV and the dashboard; τ and the scatter use the
runs both sets judged enough of, and say how many."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.management import call_command
from scipy.stats import kendalltau

from judging.labels import label_set_get
from judging.models import JudgeKind
from judging.scope import scope_for
from metrics.reports import agreement_report, scores_report
from metrics.scores import MIN_COVERAGE, Coverage
from tests.factories import JudgeFactory, JudgmentFactory, PassageFactory, RunFactory, TopicFactory, answer_build

pytestmark = pytest.mark.usefixtures("fresh_cache")

A_LABELS = {"R1": "FS FS FS", "R2": "FS PS NS", "R3": "NS NS PS", "R4": "PS PS PS", "R5": "FS NS NS"}
B_LABELS = {"R1": "FS FS PS", "R2": "NS NS NS", "R3": "PS PS FS", "R4": "FS"}  # R4: its first citation only


def _answer_citations(run, topic, n):
    answer = answer_build(
        run=run, topic=topic, sentences=[(f"{run.run_id} {topic.topic_id} s{i}", [PassageFactory()]) for i in range(n)]
    )
    return [s.citations.select_related("sentence").get() for s in answer.sentences.order_by("index")]


@pytest.fixture
def runs(db):
    """Four runs of three sentences on one topic. Judge `a` labels every citation; judge `b` (an LLM) labels all
    of R1-R3, one of R4's three, and none of R5's."""
    topic = TopicFactory(topic_id="t1")
    a, b = JudgeFactory(name="a"), JudgeFactory(name="b", kind=JudgeKind.LLM)
    for run_id, labels in A_LABELS.items():
        citations = _answer_citations(RunFactory(run_id=run_id), topic, 3)
        for citation, label in zip(citations, labels.split(), strict=True):
            JudgmentFactory(judge=a, citation=citation, label=label)
        for citation, label in zip(citations, B_LABELS.get(run_id, "").split(), strict=False):
            JudgmentFactory(judge=b, citation=citation, label=label)
    return a, b


def test_coverage_says_not_judged_for_none_and_counts_the_others():
    assert Coverage(0, 312).words == "not judged"
    assert Coverage(212, 312).words == "212 of 312 citations judged"
    assert Coverage(1, 3).enough(MIN_COVERAGE) is False
    assert Coverage(3, 3).enough(MIN_COVERAGE) is True


def test_a_run_the_set_never_judged_has_no_score_and_comes_last(runs):
    # when
    report = scores_report(label_set=label_set_get("b"), scope=scope_for(), resamples=0)

    # then
    rows = {r.run_id: r.as_dict() for r in report.rows}
    assert (rows["R5"]["weighted_precision"], rows["R5"]["weighted_recall"]) == (None, None)
    assert (rows["R5"]["judged_citations"], rows["R5"]["citations"], rows["R5"]["coverage"]) == (0, 3, "not judged")
    assert rows["R4"]["coverage"] == "1 of 3 citations judged"
    assert [r.run_id for r in report.rows][-2:] == ["R4", "R5"]
    assert report.as_dict()["coverage"]["runs_judged"] == 4


def test_the_api_gives_null_scores_and_the_coverage_of_a_run_not_judged(runs, client, organizer):
    # given
    client.force_login(organizer)

    # when
    data = client.get("/api/metrics/scores/", {"labels": "b", "resamples": 0}).json()

    # then
    r5 = next(r for r in data["runs"] if r["run_id"] == "R5")
    assert (r5["weighted_precision"], r5["weighted_recall"], r5["coverage"]) == (None, None, "not judged")
    assert data["coverage"]["runs_total"] == 5


def test_the_command_csv_has_judged_citations_and_leaves_a_run_not_judged_empty(runs):
    # given
    out = io.StringIO()

    # when
    call_command("support_scores", "--labels", "b", "--format", "csv", "--resamples", "0", stdout=out)

    # then
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(out.getvalue()))}
    assert (rows["R5"]["judged_citations"], rows["R5"]["citations"]) == ("0", "3")
    assert (rows["R5"]["weighted_precision"], rows["R5"]["weighted_recall"]) == ("", "")
    assert (rows["R1"]["judged_citations"], rows["R1"]["citations"]) == ("3", "3")
    assert float(rows["R1"]["weighted_precision"]) >= 0


def test_the_command_csv_leaves_the_intervals_of_a_run_not_judged_empty(db):
    # given: five topics, so that intervals are made; judge b labels run R1 only
    b = JudgeFactory(name="b", kind=JudgeKind.LLM)
    r1, r2 = RunFactory(run_id="R1"), RunFactory(run_id="R2")
    for t in range(5):
        topic = TopicFactory(topic_id=f"t{t}")
        for citation in _answer_citations(r1, topic, 2):
            JudgmentFactory(judge=b, citation=citation, label="FS")
        _answer_citations(r2, topic, 2)
    out = io.StringIO()

    # when
    call_command("support_scores", "--labels", "b", "--format", "csv", "--resamples", "50", stdout=out)

    # then
    rows = {r["run_id"]: r for r in csv.DictReader(io.StringIO(out.getvalue()))}
    assert rows["R1"]["precision_low"] != ""
    assert [rows["R2"][c] for c in ("precision_low", "precision_high", "recall_low", "recall_high")] == [""] * 4


def test_tau_and_the_scatter_use_the_runs_both_sets_judged_enough_of(runs):
    # given
    a, b = label_set_get("a"), label_set_get("b")

    # when
    report = agreement_report(a=a, b=b, scope=scope_for(), resamples=0)

    # then: R4 (1 of 3 judged by b) and R5 (none) are left out, and the report says so
    assert report["runs"]["run_id"] == ["R1", "R2", "R3"]
    assert (report["coverage"]["runs_used"], report["coverage"]["runs_total"]) == (3, 5)
    left_out = {r["run_id"]: r["b"] for r in report["coverage"]["left_out"]}
    assert left_out == {"R4": "1 of 3 citations judged", "R5": "not judged"}
    scores_a = {r.run_id: r.weighted_precision for r in scores_report(label_set=a, scope=scope_for(), resamples=0).rows}
    scores_b = {r.run_id: r.weighted_precision for r in scores_report(label_set=b, scope=scope_for(), resamples=0).rows}
    runs_used = ["R1", "R2", "R3"]
    expected = kendalltau([scores_a[r] for r in runs_used], [scores_b[r] for r in runs_used]).statistic
    assert expected == pytest.approx(1 / 3)
    assert report["tau"]["precision"] == pytest.approx(expected)


def test_the_dashboard_says_not_judged_and_how_many_runs_tau_uses(runs, client, organizer):
    # given
    client.force_login(organizer)

    # when
    html = client.get("/metrics/", {"a": "a", "b": "b"}).content.decode()

    # then
    row = html[html.index('data-run="R5"') :].split("</tr>")[0]
    assert 'data-score="b-not-judged">not judged<' in row
    assert "B: not judged" in row
    assert "0.000" not in row.split('data-score="b-not-judged"')[1]
    assert 'id="tau-runs-used">3<' in html
    assert "A: 3 of 3 citations judged · B: 1 of 3 citations judged" in html


def test_the_dashboard_never_sorts_a_run_not_judged_above_a_judged_one(runs, client, organizer):
    # given
    client.force_login(organizer)

    # when: ascending by B's precision, where a 0 would come first
    html = client.get("/metrics/", {"a": "a", "b": "b", "sort": "precision_b", "dir": "asc"}).content.decode()

    # then
    order = [chunk.split('"')[0] for chunk in html.split('<tr data-run="')[1:]]
    assert order[-1] == "R5"
