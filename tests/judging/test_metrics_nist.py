"""NIST's two from-scratch files, imported once for the module: the paper's human figures."""

from __future__ import annotations

import pytest
from django.core.cache import cache
from django.core.management import call_command

from assess.models import Answer, Citation, Passage, Run, Sentence, Topic
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.models import NOT_JUDGED, Judge, Judgment, Pair
from judging.scope import scope_for
from metrics.reports import agreement_report, scores_report
from metrics.selectors import support_stats

pytestmark = pytest.mark.usefixtures("fresh_cache")

TOP_RUN = "IITD-IRL.ag_rag_gpt35_expansion_rrf_20"


def _wipe() -> None:
    Judgment.objects.all().delete()
    Pair.objects.all().delete()
    Judge.objects.all().delete()
    Citation.objects.all().delete()
    Sentence.objects.all().delete()
    Answer.objects.all().delete()
    Run.objects.all().delete()
    Passage.objects.all().delete()
    Topic.objects.all().delete()


@pytest.fixture(scope="module")
def nist(django_db_setup, django_db_blocker, data_dir):
    nist_dir = data_dir / "nist-support"
    with django_db_blocker.unblock():
        _wipe()
        report = judgments_import(
            files=[
                nist_dir / "final.citation_judgments_without_prediction.20241025.jsonl",
                nist_dir / "final.citation_judgments_Webassess.20241031.jsonl",
            ],
            fmt=JudgmentFormat.NIST,
            options=JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch"),
        )
        cache.clear()
        yield report
        _wipe()
        cache.clear()


def test_it_gives_the_top_run_the_papers_weighted_precision(nist, db):
    # when
    report = scores_report(label_set=label_set_get("nist"), scope=scope_for(), resamples=0)

    # then
    assert report.label_set["spec"] == "nist/from_scratch"
    top = report.rows[0]
    assert top.run_id == TOP_RUN
    assert top.weighted_precision == pytest.approx(0.793074, abs=1e-6)
    assert top.topics == 22
    assert len(report.topics) == 22


def test_it_counts_the_first_citation_labels_as_the_paper(nist, db):
    # when
    rows = support_stats(scope_for(depth=1))

    # then
    (row,) = [r for r in rows if r["label_set"] == "nist/from_scratch"]
    assert (row["FS"], row["PS"], row["NS"]) == (2752, 1652, 2338)
    assert row["judged"] == 6742
    assert row["not_judged"] == 50
    assert row["unlabelled"] == 0
    assert row["condition"] == "from_scratch"
    assert row["topics"] == 22


def test_it_creates_the_45_runs_and_930_answers_the_files_describe(nist, db):
    assert nist.counts["runs"] == 45
    assert nist.counts["answers"] == 930
    assert Answer.objects.count() == 930


def test_it_records_a_citation_nist_did_not_judge_as_not_judged(nist, db):
    # given: the -1 first citations of this answer (3 in neu.neurag on 2024-158677)
    citations = Citation.objects.filter(
        sentence__answer__run__run_id="neu.neurag", sentence__answer__topic__topic_id="2024-158677", slot=0
    )

    # then
    not_judged = Judgment.objects.filter(citation__in=citations, label=NOT_JUDGED)
    assert not_judged.count() == 3
    assert all(j.origin == "import" and j.not_judged_reason for j in not_judged)


def test_it_leaves_everything_unchanged_when_the_same_files_are_imported_again(nist, db, data_dir):
    # given
    before = Judgment.objects.count()

    # when
    report = judgments_import(
        files=[data_dir / "nist-support" / "final.citation_judgments_without_prediction.20241025.jsonl"],
        fmt=JudgmentFormat.NIST,
        options=JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch"),
    )

    # then
    assert report.counts["judgments"] == 0
    assert report.counts["unchanged"] > 0
    assert Judgment.objects.count() == before


def test_it_collapses_the_13_identical_duplicates_of_the_opus_verdicts(nist, db, data_dir):
    # when
    call_command(
        "import_judgments",
        str(data_dir / "llm-judges" / "opus48_nist_verdicts.jsonl"),
        format="exchange",
        judge="opus-4.8-nist",
        kind="llm",
        label_field="opus_nist_label",
        verbosity=0,
    )

    # then
    opus = Judge.objects.get(name="opus-4.8-nist")
    assert opus.kind == "llm"
    assert Judgment.objects.filter(judge=opus).count() == 6706 - 13


def test_it_measures_nists_self_consistency_on_repeated_pairs(nist, db):
    # when
    nist_labels = label_set_get("nist")
    report = agreement_report(a=nist_labels, b=nist_labels, scope=scope_for(), resamples=0)

    # then: SOURCES.md: 29 of 167 repeated pairs in without_prediction, 60 of 234 in Webassess
    consistency = report["self_consistency"]["nist/from_scratch"]
    assert (consistency["inconsistent_pairs"], consistency["repeated_pairs"]) == (29 + 60, 167 + 234)
    assert report["labels"]["agreement"] == 1.0
