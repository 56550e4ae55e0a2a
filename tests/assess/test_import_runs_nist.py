"""Run imports on NIST's support files of TREC 2024 RAG: the runs they describe, their topics and sentences."""

from __future__ import annotations

import json

import pytest

from assess.importers.report import ImportRejected
from assess.importers.runs import RunFormat, RunOptions, runs_import
from assess.models import Answer, Citation, Run, Sentence
from tests.assess.run_files import NIST_14, NIST_22, count_nist, write_file


def test_it_builds_the_runs_nist_files_describe(topics, data_dir):
    # given
    paths = [data_dir / "nist-support" / n for n in NIST_22]
    expected = count_nist(paths)

    # when
    report = runs_import(files=paths, fmt=RunFormat.NIST)

    # then
    assert expected["rows"] == 930
    assert Answer.objects.count() == 930
    assert Run.objects.count() == len(expected["runs"]) == 45
    assert Sentence.objects.count() == expected["sentences"]
    assert Citation.objects.count() == expected["citations"]
    assert report.warning_count == expected["missing_text"]


def test_it_adds_the_other_nist_topics_to_runs_already_built(topics, data_dir):
    # given
    runs_import(files=[data_dir / "nist-support" / n for n in NIST_22], fmt=RunFormat.NIST)
    expected = count_nist([data_dir / "nist-support" / NIST_14])

    # when
    report = runs_import(files=[data_dir / "nist-support" / NIST_14], fmt=RunFormat.NIST)

    # then
    assert expected["rows"] == 585
    assert report.counts["answers"] == 585
    assert "runs" not in report.counts
    assert Run.objects.count() == 45
    assert Answer.objects.count() == 930 + 585
    assert report.counts["sentences"] == expected["sentences"]
    assert report.counts["citations"] == expected["citations"]


def test_it_keeps_nist_sentences_without_text_with_empty_text_and_a_warning(topics, data_dir):
    # given
    path = data_dir / "nist-support" / NIST_14
    number, obj, missing = next(
        (n, obj, missing)
        for n, obj in enumerate(map(json.loads, path.open(encoding="utf-8")), start=1)
        if (missing := [i for i, s in enumerate(obj["sentences"]) if isinstance(s["text"], float)])
    )

    # when
    report = runs_import(files=[path], fmt=RunFormat.NIST)

    # then
    sentence = Sentence.objects.get(
        answer__run__run_id=obj["run_id"], answer__topic__topic_id=obj["topic_id"], index=missing[0]
    )
    assert sentence.text == ""
    assert str(report.warnings[0]) == (
        f"{NIST_14}:{number}: sentences[{missing[0]}].text: sentence text is missing; kept with empty text"
    )


def test_it_takes_the_group_of_a_nist_run_from_the_run_id(topics, data_dir):
    # when
    runs_import(files=[data_dir / "nist-support" / NIST_22[1]], fmt=RunFormat.NIST)

    # then
    assert Run.objects.get(run_id="citi.BEST_cot_gpt3.5").group == "citi"
    assert Run.objects.get(run_id="IITD-IRL.ag_rag_gpt35_expansion_rrf_20").group == "IITD-IRL"
    assert all(r.group == r.run_id.split(".", 1)[0] for r in Run.objects.all())


def test_it_keeps_the_citation_order_of_a_nist_sentence(topics, data_dir):
    # given
    path = data_dir / "nist-support" / NIST_22[1]
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            multi = [(i, s) for i, s in enumerate(obj["sentences"]) if len(s["citations"]) > 1]
            if multi:
                break
    index, raw = multi[0]

    # when
    runs_import(files=[path], fmt=RunFormat.NIST)

    # then
    sentence = Sentence.objects.get(
        answer__run__run_id=obj["run_id"], answer__topic__topic_id=obj["topic_id"], index=index
    )
    assert [c.passage.passage_id for c in sentence.citations.order_by("slot")] == [
        c["reference"] for c in raw["citations"]
    ]


def test_it_imports_only_the_chosen_topics(topics, data_dir):
    # given
    paths = [data_dir / "nist-support" / n for n in NIST_22]
    rows = sum(json.loads(line)["topic_id"] == "2024-32912" for p in paths for line in p.open(encoding="utf-8"))

    # when
    runs_import(
        files=paths,
        fmt=RunFormat.NIST,
        options=RunOptions(topics=frozenset({"2024-32912"})),
    )

    # then
    assert set(Answer.objects.values_list("topic__topic_id", flat=True)) == {"2024-32912"}
    assert Answer.objects.count() == rows == 43


def test_it_rejects_a_nist_answer_already_loaded_and_replaces_it_with_replace(topics, data_dir, tmp_path):
    # given
    path = data_dir / "nist-support" / NIST_22[0]
    first = path.open(encoding="utf-8").readline()
    runs_import(files=[path], fmt=RunFormat.NIST)
    again = write_file(tmp_path / "again.jsonl", first)
    obj = json.loads(first.replace("NaN", "null"))

    # when
    with pytest.raises(ImportRejected) as exc:
        runs_import(files=[again], fmt=RunFormat.NIST)
    report = runs_import(files=[again], fmt=RunFormat.NIST, options=RunOptions(replace=True))

    # then
    assert [str(e) for e in exc.value.report.errors] == [
        f"again.jsonl:1: topic_id: run {obj['run_id']} already has an answer to topic {obj['topic_id']} (use --replace)"
    ]
    assert report.counts["answers_replaced"] == 1
    assert Answer.objects.count() == 381


def test_it_leaves_other_answers_alone_when_replacing_nist_answers(topics, data_dir, tmp_path):
    # given: two runs answering two topics; the file replaces (run A, topic 1) and (run B, topic 2) only
    path = data_dir / "nist-support" / NIST_22[0]
    runs_import(files=[path], fmt=RunFormat.NIST)
    rows = [json.loads(line.replace("NaN", "null")) for line in path.open(encoding="utf-8")]
    run_a, run_b = rows[0]["run_id"], next(r["run_id"] for r in rows if r["run_id"] != rows[0]["run_id"])
    topic_1 = rows[0]["topic_id"]
    topic_2 = next(r["topic_id"] for r in rows if r["topic_id"] != topic_1)
    picked = [r for r in rows if (r["run_id"], r["topic_id"]) in {(run_a, topic_1), (run_b, topic_2)}]
    untouched = set(
        Answer.objects.filter(run__run_id=run_a, topic__topic_id=topic_2).values_list("pk", flat=True)
    ) | set(Answer.objects.filter(run__run_id=run_b, topic__topic_id=topic_1).values_list("pk", flat=True))
    part = write_file(tmp_path / "part.jsonl", "".join(json.dumps(r) + "\n" for r in picked))

    # when
    runs_import(files=[part], fmt=RunFormat.NIST, options=RunOptions(replace=True))

    # then
    assert len(untouched) == 2
    assert set(Answer.objects.filter(pk__in=untouched).values_list("pk", flat=True)) == untouched
    assert Answer.objects.count() == 381
