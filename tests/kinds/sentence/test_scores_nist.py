"""Sentence scores from NIST's Webassess file (issue 26, the first "Done when"): `support_scores --kind sentence
--labels nist/from_scratch --format csv` gives, per run, the four columns a plain-json reading of the file gives
(tests/reference/sentence_support.py, standard library only)."""

from __future__ import annotations

import csv
import io
import json

import pytest
from django.core.management import call_command

from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from kinds.sentence.models import SentenceJudgment
from tests.judging.test_metrics_nist import _wipe
from tests.reference import sentence_support as reference


@pytest.fixture(scope="module")
def webassess(django_db_setup, django_db_blocker):
    with django_db_blocker.unblock():
        SentenceJudgment.objects.all().delete()
        _wipe()
        judgments_import(
            files=[reference.WEBASSESS],
            fmt=JudgmentFormat.NIST,
            options=JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch"),
        )
        yield
        _wipe()


def _run(*args: str) -> str:
    out = io.StringIO()
    call_command("support_scores", *args, stdout=out)
    return out.getvalue()


@pytest.mark.django_db
def test_the_csv_matches_the_reference_for_every_run(webassess):
    # given
    expected = reference.sentence_scores()

    # when
    rows = list(
        csv.DictReader(io.StringIO(_run("--kind", "sentence", "--labels", "nist/from_scratch", "--format", "csv")))
    )

    # then: the columns first, in its order; every run of the file, each figure as the file gives it
    header = _run("--kind", "sentence", "--labels", "nist/from_scratch", "--format", "csv").splitlines()[0]
    assert header.split(",")[:5] == list(reference.COLUMNS)
    assert len(expected) == 45
    assert {r["run_id"] for r in rows} == set(expected)
    for row in rows:
        want = expected[row["run_id"]]
        assert int(row["combined_judged"]) == want["combined_judged"], row["run_id"]
        for name in reference.COLUMNS[2:]:
            if want[name] is None:
                assert row[name] == "", (row["run_id"], name)
            else:
                assert float(row[name]) == pytest.approx(want[name], abs=1e-6), (row["run_id"], name)


@pytest.mark.django_db
def test_the_json_names_the_unit_the_labels_and_the_coverage_with_intervals(webassess):
    # when
    report = json.loads(
        _run("--kind", "sentence", "--labels", "nist/from_scratch", "--format", "json", "--resamples", "200")
    )

    # then: every sentence of the file is labelled (4,757), and its answers hold no other sentence
    assert report["unit"] == "sentence"
    assert report["label_set"]["spec"] == "nist/from_scratch"
    assert report["labels"]["combined"] == ["FS", "PS", "NS"]
    assert report["coverage"]["sentences_judged"] == 4757
    assert report["coverage"]["sentences_in_answers"] == 4757
    assert sum(r["combined_judged"] for r in report["rows"]) == 743
    with_interval = [r for r in report["rows"] if r["intervals"]["combined_full"][0] is not None]
    assert with_interval, "runs with five topics or more have an interval"
    for r in with_interval:
        low, high = r["intervals"]["combined_full"]
        assert low <= r["combined_full"] <= high


@pytest.mark.django_db
def test_the_table_says_unit_sentence_and_support_stays_the_default(webassess):
    # when
    table = _run("--kind", "sentence", "--labels", "nist/from_scratch", "--resamples", "0")

    # then
    assert "unit: sentence" in table.splitlines()[0]
    assert "coverage: 4757 of 4757 sentences" in table


@pytest.mark.django_db
def test_an_unknown_kind_is_a_clear_error(webassess):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="unknown judgment kind 'nuggets'"):
        _run("--kind", "nuggets", "--labels", "nist/from_scratch")


@pytest.mark.django_db
def test_the_export_writes_every_sentence_label_of_the_file_back(webassess, tmp_path):
    # given
    out = tmp_path / "sentences.jsonl"

    # when
    call_command("sentence_export", str(out), labels="nist/from_scratch", stderr=io.StringIO())

    # then: one line per answer of the file; each sentence's two labels, text and citations as NIST wrote them
    def keyed(path):
        with open(path, encoding="utf-8") as f:
            rows = [json.loads(line) for line in f if line.strip()]
        return {(r["topic_id"], r["run_id"]): r for r in rows}

    original, exported = keyed(reference.WEBASSESS), keyed(out)
    assert set(exported) == set(original)
    assert len(exported) == 549
    for key, row in original.items():
        for want, got in zip(row["sentences"], exported[key]["sentences"], strict=True):
            assert got["sentenceId"] == want["sentenceId"]
            assert got["verification_worthy"] == want["verification_worthy"], key
            assert got["citationsCombibed"] == want["citationsCombibed"], key
            assert [(c["citationId"], c["reference"]) for c in got["citations"]] == [
                (c["citationId"], c["reference"]) for c in want["citations"]
            ], key
            assert {c["support"] for c in got["citations"]} <= {"-1"}
