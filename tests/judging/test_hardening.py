"""Hardening: CSV exports safe to open in a spreadsheet (the cell rule of core/csvsafe.py, through every
export), and imported seconds finite and below a day. Bounded request parameters: tests/assess/test_hardening.py."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import CommandError, call_command

from core.csvsafe import csv_safe_cell
from judging.build import campaign_build_pairs, campaign_create
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.models import Judgment
from metrics.study.services import study_create
from tests.factories import (
    PassageFactory,
    RunFactory,
    TopicFactory,
    answer_build,
    study_labels_seed,
)

pytestmark = pytest.mark.usefixtures("fresh_cache")

# Text a spreadsheet would run as a formula (no "/" in them: a judge name is a label set's spec).
FORMULAS = ['=HYPERLINK("http://evil.example","click")', "+1+cmd|calc!A0", "-cmd|calc!A0", "@SUM(1)"]


@pytest.fixture
def staff_client(client, organizer):
    client.force_login(organizer)
    return client


def _world(formula: str):
    """A run, its sentences and a human judge whose names all begin with `formula`; a study sampled on them."""
    topic = TopicFactory()
    run = RunFactory(run_id=formula)
    passages = [PassageFactory() for _ in range(3)]
    answer_build(run=run, topic=topic, sentences=[(f"{formula} sentence {i}", [p]) for i, p in enumerate(passages)])
    campaign = campaign_create(name="csv-campaign", runs=[run], topics=[topic], depth=1)
    campaign_build_pairs(campaign=campaign)
    judge = formula.replace("/", "")
    study_labels_seed(campaign, human=judge, llm="gpt-study")
    study = study_create(campaign=campaign, a=judge, b="gpt-study", per_topic=3, seed=1)
    return {"run_id": formula, "judge": judge, "study": study}


def _cells(body: bytes) -> list[str]:
    return [cell for row in csv.reader(io.StringIO(body.decode())) for cell in row]


def _assert_neutralised(cells: list[str], *texts: str) -> None:
    for text in texts:
        assert f"'{text}" in cells
        assert text not in cells
    assert not [c for c in cells if c[:1] in ("=", "+", "-", "@", "\t", "\r")]


# --- the cell rule ---------------------------------------------------------------------------------------


@pytest.mark.parametrize("text", ["=1+2", "+1+2", "-cmd", "@x", "\tx", "\r=1", "=", "-"])
def test_a_text_cell_a_spreadsheet_would_run_is_prefixed_with_a_quote(text):
    assert csv_safe_cell(text) == f"'{text}"


@pytest.mark.parametrize("value", ["-0.5", "+1", "-3", "1e-5", "-2.5E+3", "plain", "", "a=b", "'=x"])
def test_a_plain_number_or_harmless_text_stays_as_it_is(value):
    assert csv_safe_cell(value) == value


@pytest.mark.parametrize("value", [-0.5, 3, 0, -7])
def test_numbers_stay_numbers(value):
    assert csv_safe_cell(value) == value


def test_none_is_an_empty_cell():
    assert csv_safe_cell(None) == ""


# --- every CSV export --------------------------------------------------------------------------------------


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_exchange_csv_neutralises_a_run_id_and_a_judge_that_look_like_formulas(db, staff_client, formula):
    # given
    world = _world(formula)

    # when
    response = staff_client.get("/api/metrics/judgments/", {"fmt": "csv", "labels": world["judge"]})

    # then
    assert response.status_code == 200
    _assert_neutralised(_cells(response.content), world["run_id"], world["judge"])


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_exchange_page_export_neutralises_formulas(db, staff_client, formula):
    # given
    world = _world(formula)

    # when
    response = staff_client.get("/metrics/export/judgments/csv/", {"labels": world["judge"]})

    # then
    assert response.status_code == 200
    _assert_neutralised(_cells(response.content), world["run_id"], world["judge"])


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_jsonl_export_keeps_the_raw_text(db, staff_client, formula):
    # given
    world = _world(formula)

    # when
    response = staff_client.get("/api/metrics/judgments/", {"fmt": "jsonl", "labels": world["judge"]})

    # then
    rows = [json.loads(line) for line in response.content.decode().splitlines()]
    assert rows
    assert {r["run_id"] for r in rows} == {world["run_id"]}
    assert {r["judge"] for r in rows} == {world["judge"]}


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_scores_csv_neutralises_a_run_id_and_keeps_numbers(db, staff_client, formula):
    # given
    world = _world(formula)

    # when
    response = staff_client.get("/api/metrics/scores/", {"fmt": "csv", "labels": world["judge"], "resamples": 0})

    # then
    assert response.status_code == 200
    rows = list(csv.DictReader(io.StringIO(response.content.decode())))
    assert [r["run_id"] for r in rows] == [f"'{world['run_id']}"]
    assert float(rows[0]["weighted_precision"]) == 1.0
    _assert_neutralised(_cells(response.content), world["run_id"])


@pytest.mark.parametrize("formula", FORMULAS)
def test_the_study_csv_neutralises_a_run_id_and_a_sentence(db, staff_client, formula):
    # given
    world = _world(formula)

    # when
    page = staff_client.get(f"/metrics/studies/{world['study'].pk}/export.csv")
    api = staff_client.get(f"/api/studies/{world['study'].pk}/", {"fmt": "csv"})

    # then: the sampled pairs (those the two judges disagree on) say the run and sentence as text
    for response in (page, api):
        assert response.status_code == 200
        rows = list(csv.DictReader(io.StringIO(response.content.decode())))
        assert rows
        assert {r["sentence"] for r in rows} <= {f"'{formula} sentence {i}" for i in range(3)}
        _assert_neutralised(_cells(response.content), world["run_id"])


# --- seconds finite and below a day ---------------------------------------------------------------------------


def _exchange_file(tmp_path, seconds: str):
    topic = TopicFactory()
    run = RunFactory()
    answer_build(run=run, topic=topic, sentences=[("A claim.", [PassageFactory()])])
    path = tmp_path / "labels.csv"
    path.write_text(
        "topic_id,run_id,sentence_index,citation_slot,judge,label,seconds\n"
        f"{topic.topic_id},{run.run_id},0,0,carol,FS,12.5\n"
        f"{topic.topic_id},{run.run_id},0,0,dave,FS,{seconds}\n"
    )
    return path


@pytest.mark.parametrize("seconds", ["1e999", "-1e999", "inf", "Infinity", "nan", "NaN", "86400", "1e6", "-1"])
def test_the_command_refuses_seconds_that_are_not_finite_or_a_day_or_more(db, tmp_path, seconds):
    # given
    path = _exchange_file(tmp_path, seconds)
    err = io.StringIO()

    # when
    with pytest.raises(CommandError):
        call_command("import_judgments", str(path), format="exchange", stderr=err, stdout=io.StringIO())

    # then: the file, the line and the field are named, and nothing is written
    assert "labels.csv:3" in err.getvalue()
    assert "seconds" in err.getvalue()
    assert Judgment.objects.count() == 0


def test_seconds_just_below_a_day_are_imported(db, tmp_path):
    # given
    path = _exchange_file(tmp_path, "86399.5")

    # when
    judgments_import(files=[path], fmt=JudgmentFormat.EXCHANGE, options=JudgmentImportOptions(kind="human"))

    # then
    assert sorted(Judgment.objects.values_list("seconds", flat=True)) == [12.5, 86399.5]
