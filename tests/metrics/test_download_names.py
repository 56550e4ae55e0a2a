"""Every download is named `<campaign>-<label set>-<what>-<date>.<ext>` (issue 24), by one helper
(`core.downloads`), so exports of different campaigns, label sets or days never overwrite each other."""

from __future__ import annotations

import datetime

import pytest
from django.utils import timezone

from core.downloads import download_name
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from tests.conftest import nist_excerpts_import
from tests.factories import StudyFactory, study_campaign_build

pytestmark = pytest.mark.usefixtures("fresh_cache")


@pytest.fixture
def two_judges(db, data_dir):
    nist_excerpts_import(data_dir)
    judgments_import(
        files=[data_dir / "excerpts" / "opus48_nist_verdicts.excerpt.jsonl"],
        fmt=JudgmentFormat.EXCHANGE,
        options=JudgmentImportOptions(judge="opus", kind="llm", label_field="opus_nist_label"),
    )


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


def _filename(response) -> str:
    disposition = response["Content-Disposition"]
    assert disposition.startswith("attachment; "), disposition
    return disposition.split('filename="', 1)[1].rstrip('"')


def _today() -> str:
    return timezone.localdate().isoformat()


def test_it_names_a_file_by_campaign_label_sets_content_and_day():
    # when
    name = download_name(
        what="scores",
        ext="csv",
        campaign="demo 2024",
        label_sets=["campaign:demo/from_scratch", "opus-4.8-nist/none"],
        on=datetime.date(2026, 12, 4),
    )

    # then
    assert name == "demo-2024-campaign-demo-from_scratch-vs-opus-4.8-nist-scores-2026-12-04.csv"


def test_it_calls_a_download_over_everything_loaded_all_loaded_and_leaves_out_parts_that_do_not_apply():
    day = datetime.date(2026, 1, 2)

    assert download_name(what="scores", ext="csv", campaign="", label_sets=["nist/none"], on=day) == (
        "all-loaded-nist-scores-2026-01-02.csv"
    )
    assert download_name(what="ids", ext="txt", on=day) == "ids-2026-01-02.txt"


def test_the_dashboards_scores_are_named_for_their_label_sets(two_judges, staff_client):
    # when
    response = staff_client.get("/metrics/export/scores.csv", {"a": "nist", "b": "opus"})

    # then
    assert response.status_code == 200
    assert _filename(response) == f"all-loaded-nist-from_scratch-vs-opus-scores-{_today()}.csv"


def test_two_label_sets_judgments_get_two_names(two_judges, staff_client):
    # when
    opus = staff_client.get("/metrics/export/judgments/csv/", {"labels": "opus"})
    nist = staff_client.get("/metrics/export/judgments/csv/", {"labels": "nist"})

    # then
    assert _filename(opus) == f"all-loaded-opus-judgments-csv-{_today()}.csv"
    assert _filename(nist) == f"all-loaded-nist-from_scratch-judgments-csv-{_today()}.csv"


def test_the_apis_csv_scores_are_named_too(two_judges, staff_client):
    # when
    response = staff_client.get("/api/metrics/scores/", {"labels": "opus", "resamples": 0, "fmt": "csv"})

    # then
    assert response.status_code == 200
    assert _filename(response) == f"all-loaded-opus-scores-{_today()}.csv"


@pytest.mark.django_db
def test_a_studys_csv_is_named_for_its_campaign_and_judges(staff_client):
    # given
    campaign = study_campaign_build(name="spring")
    study = StudyFactory(campaign=campaign, a="nist/from_scratch", b="gpt-study/none")

    # when
    response = staff_client.get(f"/metrics/studies/{study.pk}/export.csv")

    # then
    assert _filename(response) == f"spring-nist-from_scratch-vs-gpt-study-study-{study.pk}-{_today()}.csv"
