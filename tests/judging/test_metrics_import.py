"""Judgment import: the excerpts' per-(topic, run) figures, matching by reference, and rejected files."""

from __future__ import annotations

import json

import pytest
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.importers.report import ImportRejected
from assess.importers.runs import RunOptions, runs_import
from assess.models import Answer, Run
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import
from judging.labels import label_set_get
from judging.models import Judgment
from judging.scope import scope_for
from metrics.reports import answer_scores

pytestmark = pytest.mark.usefixtures("fresh_cache")

WITHOUT = "final.citation_judgments_without_prediction.20241025.excerpt.jsonl"
WEBASSESS = "final.citation_judgments_Webassess.20241031.excerpt.jsonl"
R_PLUS = "coordinators.baseline_frag_rag24.test_command-r-plus_top20"
GPT4O = "coordinators.baseline_frag_rag24.test_gpt-4o_top20"
L31 = "coordinators.baseline_rag24.test_l31_70b_instruct_top20"
COSINE = "CIR.cir_gpt-4o-mini_Cosine_50_0.5_100_301_p1"
NO_RERANK = "CIR.cir_gpt-4o-mini_no_reranking_50_0.5_100_301_p1"
DEDUP = "IIIA-UNIPD.iiia_dedup_p1_straight_ag"
STANDARD = "IIIA-UNIPD.iiia_standard_p1_straight_ag"
AG_RAG = "IITD-IRL.ag_rag_gpt35_expansion_rrf_20"
ZEPH = "IITD-IRL.zeph_test_rag_rrf_expand_query"
ANSAI = "InfoLab.UDInfolab.RAG.AnsAI"

# SOURCES.md: topic, run: sentences, weighted precision, weighted recall
EXPECTED = [
    ("2024-32912", ZEPH, 5, 0.7, 0.7),
    ("2024-32912", ANSAI, 8, 0.25, 0.25),
    ("2024-32912", R_PLUS, 11, 0.363636, 0.363636),
    ("2024-32912", GPT4O, 15, 0.375, 0.3),
    ("2024-32912", COSINE, 6, 0.166667, 0.166667),
    ("2024-32912", NO_RERANK, 7, 0.357143, 0.357143),
    ("2024-32912", DEDUP, 6, 0.333333, 0.333333),
    ("2024-32912", STANDARD, 7, 0.142857, 0.142857),
    ("2024-32912", AG_RAG, 4, 0.375, 0.375),
    ("2024-32912", L31, 8, 0.4375, 0.4375),
    ("2024-142395", ANSAI, 8, 0.0, 0.0),
    ("2024-142395", AG_RAG, 4, 0.75, 0.75),
    ("2024-142395", R_PLUS, 11, 0.45, 0.409091),
    ("2024-142395", GPT4O, 11, 0.7, 0.318182),
    ("2024-142395", L31, 7, 0.142857, 0.142857),
    ("2024-142395", COSINE, 6, 0.666667, 0.666667),
    ("2024-142395", NO_RERANK, 6, 0.333333, 0.333333),
    ("2024-142395", DEDUP, 2, 1.0, 1.0),
    ("2024-142395", STANDARD, 3, 0.666667, 0.666667),
    ("2024-142395", ZEPH, 4, 0.375, 0.375),
]


def nist_import(*paths, judge="nist"):
    return judgments_import(
        files=list(paths), fmt=JudgmentFormat.NIST, options=JudgmentImportOptions(judge=judge, kind="human")
    )


@pytest.fixture
def excerpts(data_dir):
    return data_dir / "excerpts"


@pytest.mark.parametrize(("topic_id", "run_id", "sentences", "precision", "recall"), EXPECTED)
def test_it_reproduces_the_excerpts_per_topic_values(db, excerpts, topic_id, run_id, sentences, precision, recall):
    # given
    nist_import(excerpts / WITHOUT, excerpts / WEBASSESS)

    # when
    scores = {(s.topic_id, s.run_id): s for s in answer_scores(label_set=label_set_get("nist"), scope=scope_for())}

    # then
    score = scores[(topic_id, run_id)]
    assert score.sentences == sentences
    assert score.precision == pytest.approx(precision, abs=1e-6)
    assert score.recall == pytest.approx(recall, abs=1e-6)


def test_it_matches_nist_citations_by_reference_when_the_run_is_loaded_from_its_own_file(db, excerpts, tmp_path):
    # given: the organisers' gpt-4o run loaded from its own TREC file, under the run id NIST uses
    run_file = tmp_path / "gpt-4o.jsonl"
    lines = [json.loads(line) for line in (excerpts / "baseline_rag24.test_gpt-4o_top20.excerpt.jsonl.fixed").open()]
    run_file.write_text("".join(json.dumps({**obj, "run_id": GPT4O}) + "\n" for obj in lines))
    runs_import(files=[run_file], options=RunOptions(group="coordinators"))
    webassess_gpt4o = tmp_path / "webassess-gpt4o.jsonl"
    webassess_gpt4o.write_text(
        "".join(line for line in (excerpts / WEBASSESS).open() if json.loads(line)["run_id"] == GPT4O)
    )

    # when
    report = nist_import(webassess_gpt4o)

    # then: NIST's citationId (1, 2, 0, ...) indexes the run's references, not its slots; matched by passage
    assert "answers" not in report.counts
    score = next(
        s for s in answer_scores(label_set=label_set_get("nist"), scope=scope_for()) if s.topic_id == "2024-142395"
    )
    assert (score.sentences, round(score.precision, 6), round(score.recall, 6)) == (11, 0.7, 0.318182)


def test_it_rejects_a_bad_support_code_naming_file_line_and_field_and_creates_nothing(db, tmp_path, excerpts):
    # given
    lines = (excerpts / WITHOUT).read_text().splitlines()
    obj = json.loads(lines[2])
    obj["sentences"][1]["citations"][0]["support"] = "3"
    lines[2] = json.dumps(obj)
    bad = tmp_path / "nist.jsonl"
    bad.write_text("\n".join(lines) + "\n")

    # when
    with pytest.raises(ImportRejected) as exc:
        nist_import(bad)

    # then
    messages = [str(e) for e in exc.value.report.errors]
    assert messages == ['nist.jsonl:3: sentences[1].citations[0].support: expected "2", "1", "0" or "-1", got \'3\'']
    assert Run.objects.count() == 0
    assert Judgment.objects.count() == 0


def test_it_rolls_back_the_answers_it_created_when_an_exchange_row_fails_later(db, tmp_path, excerpts):
    # given: a NIST file that creates answers, then a mistake in a second file of the same import
    nist_import(excerpts / WITHOUT)
    answers_before = Answer.objects.count()
    bad = tmp_path / "more.jsonl"
    good_line = (excerpts / WEBASSESS).read_text().splitlines()[0]
    broken = json.loads(good_line)
    broken["sentences"][0]["sentenceId"] = -2
    bad.write_text(good_line + "\n" + json.dumps(broken) + "\n")

    # when
    with pytest.raises(ImportRejected) as exc:
        nist_import(bad)

    # then
    assert str(exc.value.report.errors[0]) == (
        "more.jsonl:2: sentences[0].sentenceId: expected a non-negative integer, got -2"
    )
    assert Answer.objects.count() == answers_before


def exchange(tmp_path, text, name="labels.csv", **options):
    path = tmp_path / name
    path.write_text(text)
    return judgments_import(files=[path], fmt=JudgmentFormat.EXCHANGE, options=JudgmentImportOptions(**options))


def test_it_rejects_an_exchange_csv_with_a_bad_label_and_changes_nothing(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)
    before = Judgment.objects.count()
    text = (
        "topic_id,run_id,sentence_index,citation_slot,label,judge\n"
        f"2024-32912,{ZEPH},0,0,FS,alice\n"
        f"2024-32912,{ZEPH},1,0,XX,alice\n"
    )

    # when
    with pytest.raises(ImportRejected) as exc:
        exchange(tmp_path, text)

    # then
    assert [str(e) for e in exc.value.report.errors] == ["labels.csv:3: label: expected FS, PS or NS, got 'XX'"]
    assert Judgment.objects.count() == before


def test_it_names_both_lines_of_conflicting_rows(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)
    text = (
        "topic_id,run_id,sentence_index,citation_slot,label,judge\n"
        f"2024-32912,{ZEPH},0,0,FS,alice\n"
        f"2024-32912,{ZEPH},1,0,NS,alice\n"
        f"2024-32912,{ZEPH},0,0,PS,alice\n"
    )

    # when
    with pytest.raises(ImportRejected) as exc:
        exchange(tmp_path, text)

    # then
    (error,) = exc.value.report.errors
    assert (error.file, error.line, error.field) == ("labels.csv", 4, "label")
    assert "at labels.csv:2" in error.text


def test_it_collapses_identical_duplicate_rows(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)
    text = (
        "topic_id,run_id,sentence_index,citation_slot,label,judge\n"
        f"2024-32912,{ZEPH},0,0,FS,alice\n"
        f"2024-32912,{ZEPH},0,0,FS,alice\n"
    )

    # when
    report = exchange(tmp_path, text)

    # then
    assert report.counts["judgments"] == 1
    assert report.counts["duplicates_collapsed"] == 1


def test_it_rejects_a_row_whose_citation_slot_does_not_exist(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)
    text = json.dumps(
        {"topic_id": "2024-32912", "run_id": ZEPH, "sentence_index": 0, "citation_slot": 4, "my_label": "PS"}
    )

    # when
    with pytest.raises(ImportRejected) as exc:
        exchange(tmp_path, text + "\n", name="labels.jsonl", judge="gpt", kind="llm", label_field="my_label")

    # then
    (error,) = exc.value.report.errors
    assert (error.file, error.line, error.field) == ("labels.jsonl", 1, "citation_slot")


def test_it_needs_a_judge_column_when_no_judge_is_given(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)
    text = f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},0,0,FS\n"

    # when
    with pytest.raises(ImportRejected) as exc:
        exchange(tmp_path, text)

    # then
    assert [str(e) for e in exc.value.report.errors] == [
        "labels.csv:2: judge: missing field (or give a judge name with --judge)"
    ]


def test_the_command_prints_every_error_and_fails(db, tmp_path, excerpts):
    # given
    bad = tmp_path / "x.csv"
    bad.write_text("topic_id,run_id,sentence_index,citation_slot,label,judge\n2024-1,r,zero,0,FS,j\n")

    # when / then
    with pytest.raises(CommandError, match="nothing was imported"):
        call_command("import_judgments", str(bad), format="exchange", verbosity=0)


def test_it_keeps_an_existing_judges_kind_when_the_file_does_not_say(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)
    exchange(
        tmp_path,
        f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},0,0,FS\n",
        judge="gpt",
        kind="llm",
    )

    # when
    report = exchange(
        tmp_path, f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},1,0,NS\n", judge="gpt"
    )

    # then
    assert report.counts["judgments"] == 1
    assert Judgment.objects.filter(judge__name="gpt", judge__kind="llm").count() == 2


def test_it_rejects_a_kind_that_contradicts_an_existing_judge(db, tmp_path, excerpts):
    # given
    nist_import(excerpts / WITHOUT)

    # when
    with pytest.raises(ImportRejected) as exc:
        exchange(
            tmp_path,
            f"topic_id,run_id,sentence_index,citation_slot,label\n2024-32912,{ZEPH},1,0,NS\n",
            judge="nist",
            kind="llm",
        )

    # then
    (error,) = exc.value.report.errors
    assert (error.line, error.field) == (2, "judge_kind")
