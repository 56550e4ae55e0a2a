"""The metrics pages and API: dashboard, drill-down, exports, uploads; organizers only."""

from __future__ import annotations

import csv
import io

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile

from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.models import Judgment
from tests.conftest import PASSWORD, browser_login, nist_excerpts_import

pytestmark = pytest.mark.usefixtures("fresh_cache")

ZEPH = "IITD-IRL.zeph_test_rag_rrf_expand_query"


@pytest.fixture
def two_judges(db, data_dir):
    """NIST's labels and Opus's for the excerpt topics (runs from the NIST excerpts)."""
    excerpts = data_dir / "excerpts"
    nist_excerpts_import(data_dir)
    judgments_import(
        files=[excerpts / "opus48_nist_verdicts.excerpt.jsonl"],
        fmt=JudgmentFormat.EXCHANGE,
        options=JudgmentImportOptions(judge="opus", kind="llm", label_field="opus_nist_label"),
    )


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


def test_the_dashboard_shows_both_judges_scores_and_the_plots(two_judges, staff_client):
    # when
    response = staff_client.get("/metrics/", {"a": "nist", "b": "opus"})

    # then
    body = response.content.decode()
    assert response.status_code == 200
    assert 'id="run-scores"' in body
    assert body.count('data-run="') == 10
    assert body.count("<svg") == 3
    assert "Kendall τ = " in body
    assert 'class="run-point"' in body


def test_the_dashboard_sorts_by_the_column_asked_for(two_judges, staff_client):
    # when
    response = staff_client.get("/metrics/", {"a": "nist", "b": "opus", "sort": "run_id", "dir": "asc"})

    # then
    rows = response.context["rows"]
    assert [r["run_id"] for r in rows] == sorted(r["run_id"] for r in rows)


def test_the_dashboard_shows_the_agreement_figures(two_judges, staff_client):
    # when
    response = staff_client.get("/metrics/", {"a": "nist", "b": "opus", "depth": 1})

    # then
    labels = response.context["labels"]
    assert labels["n"] == 128
    assert sum(map(sum, labels["matrix"])) == 128


def test_the_drill_down_lists_the_pairs_the_judges_disagree_on(two_judges, staff_client):
    # when
    response = staff_client.get("/metrics/topics/2024-32912/", {"a": "nist", "b": "opus"})

    # then
    rows = response.context["rows"]
    assert response.status_code == 200
    assert rows
    assert all(r.label_a != r.label_b for r in rows)
    assert rows[0].sentence in response.content.decode()


def test_assessors_cannot_see_the_metrics(two_judges, client, assessor):
    # given
    client.force_login(assessor)

    # when / then
    assert client.get("/metrics/").status_code == 403
    assert client.get("/api/metrics/agreement/", {"a": "nist", "b": "opus"}).status_code == 403
    assert client.get("/metrics/export/judgments/csv/").status_code == 403


def test_the_page_exports_the_judgments_as_csv(two_judges, staff_client):
    # when
    response = staff_client.get("/metrics/export/judgments/csv/", {"labels": "opus"})

    # then
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert response["Content-Disposition"].startswith("attachment")
    assert len(rows) == 131
    assert {r["judge"] for r in rows} == {"opus"}


def test_the_api_gives_scores_and_says_why_two_topics_have_no_intervals(two_judges, staff_client):
    # when
    response = staff_client.get("/api/metrics/scores/", {"labels": "nist", "resamples": 100})

    # then
    data = response.json()
    assert response.status_code == 200
    assert len(data["runs"]) == 10
    top = data["runs"][0]
    # the excerpt has two topics: too few for an interval, and the report says so
    assert (top["precision_low"], top["precision_high"]) == (None, None)
    assert data["intervals"]["note"] == "no intervals: 2 topics, fewer than the 5 an interval needs"
    assert data["label_set"]["spec"] == "nist/from_scratch"


def test_the_api_answers_an_unknown_label_set_with_400_and_what_to_write(two_judges, staff_client):
    # when
    response = staff_client.get("/api/metrics/scores/", {"labels": "nobody"})

    # then
    assert response.status_code == 400
    (message,) = response.json()["labels"]
    assert message.startswith("no judge named 'nobody': a label set is a judge")


def test_the_api_gives_table_3(two_judges, staff_client):
    # when
    response = staff_client.get("/api/metrics/stats/")

    # then
    rows = {r["judge"]: r for r in response.json()["rows"]}
    assert rows["opus"]["judged"] == 128
    assert rows["nist"]["topics"] == 2


def test_the_api_imports_an_exchange_file(two_judges, staff_client):
    # given
    upload = SimpleUploadedFile(
        "more.csv", f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},0,0,PS\n".encode()
    )

    # when
    response = staff_client.post(
        "/api/metrics/judgments/import/", {"files": [upload], "format": "exchange", "judge": "carol"}
    )

    # then
    assert response.status_code == 200
    assert response.json()["counts"]["judgments"] == 1
    assert Judgment.objects.filter(judge__name="carol", label="PS").count() == 1


def test_the_api_rejects_a_malformed_file_naming_file_line_and_field(two_judges, staff_client):
    # given
    before = Judgment.objects.count()
    upload = SimpleUploadedFile(
        "bad.csv", f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},-1,0,PS\n".encode()
    )

    # when
    response = staff_client.post(
        "/api/metrics/judgments/import/", {"files": [upload], "format": "exchange", "judge": "carol"}
    )

    # then
    assert response.status_code == 400
    (error,) = response.json()["errors"]
    assert (error["file"], error["line"], error["field"]) == ("bad.csv", 2, "sentence_index")
    assert Judgment.objects.count() == before


def test_the_page_upload_shows_every_error(two_judges, staff_client):
    # given
    upload = SimpleUploadedFile("bad.jsonl", b'{"topic_id": "2024-32912"}\n')

    # when
    response = staff_client.post("/judgments/import/", {"uploads": [upload], "format": "exchange", "judge": "carol"})

    # then
    body = response.content.decode()
    assert response.status_code == 400
    assert "bad.jsonl:1: run_id: missing field" in body


def test_a_new_judgment_changes_the_cached_scores(two_judges, staff_client):
    # given
    first = staff_client.get("/api/metrics/scores/", {"labels": "nist", "resamples": 0}).json()
    upload = SimpleUploadedFile(
        "fix.csv", f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},1,0,FS\n".encode()
    )
    staff_client.post(
        "/api/metrics/judgments/import/",
        {"files": [upload], "format": "exchange", "judge": "nist", "condition": "from_scratch"},
    )

    # when
    second = staff_client.get("/api/metrics/scores/", {"labels": "nist", "resamples": 0}).json()

    # then
    before = {r["run_id"]: r["weighted_precision"] for r in first["runs"]}
    after = {r["run_id"]: r["weighted_precision"] for r in second["runs"]}
    assert after[ZEPH] != before[ZEPH]


@pytest.mark.browser
def test_an_organizer_sorts_the_scores_and_opens_a_topic(two_judges, live_server, page, organizer):
    # given
    organizer.set_password(PASSWORD)
    organizer.save()
    browser_login(page, live_server, organizer.username)
    page.goto(f"{live_server.url}/metrics/?a=nist&b=opus")

    # when
    page.click("a[data-sort=recall_b]")
    page.wait_for_load_state("networkidle")

    # then
    values = [float(v.split()[0]) for v in page.locator("#run-scores tbody tr td:nth-child(7)").all_inner_texts()]
    assert values == sorted(values, reverse=True)
    page.click("#topic-disagreements a >> nth=0")
    page.wait_for_load_state("networkidle")
    assert page.locator(".disagreement").count() > 0
