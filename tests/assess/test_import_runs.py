"""Run imports on the real TREC 2024 RAG files: the organisers' full runs and NIST's support files."""

from __future__ import annotations

import json

import pytest

from assess.importers.report import ImportRejected
from assess.importers.runs import RunOptions, runs_import
from assess.importers.topics import topics_import
from assess.models import Answer, Citation, Passage, Run, Sentence, Task, Topic
from tests.assess.run_files import FULL_RUNS, count_trec, write_file
from tests.factories import JudgeFactory, JudgmentFactory, PairFactory, PassageFactory


@pytest.mark.parametrize("name", FULL_RUNS)
def test_it_imports_a_full_organiser_run_with_the_counts_of_the_file(topics, data_dir, name):
    # given
    path = data_dir / "runs" / name
    expected = count_trec(path)

    # when
    report = runs_import(files=[path])

    # then
    (run_id,) = expected["run_ids"]
    run = Run.objects.get(run_id=run_id)
    assert expected["answers"] == 301
    assert Answer.objects.filter(run=run).count() == 301
    assert Sentence.objects.filter(answer__run=run).count() == expected["sentences"]
    assert Citation.objects.filter(sentence__answer__run=run).count() == expected["citations"]
    assert report.counts["sentences"] == expected["sentences"]
    assert report.counts["citations"] == expected["citations"]
    assert Passage.objects.count() == len(expected["cited"])
    assert report.warning_count == 0


def test_it_keeps_sentence_order_citation_slots_and_references(topics, data_dir):
    # given
    path = data_dir / "runs" / FULL_RUNS[1]
    first = json.loads(path.open(encoding="utf-8").readline())

    # when
    runs_import(files=[path])

    # then
    answer = Answer.objects.get(run__run_id=first["run_id"], topic__topic_id=first["topic_id"])
    assert answer.references == first["references"]
    assert answer.response_length == first["response_length"]
    sentences = list(answer.sentences.order_by("index"))
    assert [s.text for s in sentences] == [s["text"] for s in first["answer"]]
    for sentence, raw in zip(sentences, first["answer"], strict=True):
        cites = list(sentence.citations.order_by("slot").select_related("passage"))
        assert [c.reference_index for c in cites] == raw["citations"]
        assert [c.passage.passage_id for c in cites] == [first["references"][i] for i in raw["citations"]]


def test_it_imports_the_three_full_runs_in_one_call_with_options(topics, data_dir):
    # when
    report = runs_import(
        files=[data_dir / "runs" / n for n in FULL_RUNS],
        options=RunOptions(group="coordinators", task="AG", priority=2),
    )

    # then
    assert report.counts["runs"] == 3
    assert report.counts["answers"] == 903
    assert set(Run.objects.values_list("group", "task", "priority")) == {("coordinators", Task.AG, 2)}
    assert Run.objects.get(run_id="baseline_rag24.test_gpt-4o_top20").source_file == FULL_RUNS[0]


def test_it_creates_passages_without_text_for_cited_ids(topics, data_dir):
    # when
    runs_import(files=[data_dir / "runs" / FULL_RUNS[2]])

    # then
    assert Passage.objects.filter(has_text=True).count() == 0
    assert Passage.objects.filter(has_text=False).count() == len(count_trec(data_dir / "runs" / FULL_RUNS[2])["cited"])


def test_it_accepts_a_numeric_topic_id(db, tmp_path):
    # given
    topics_import(files=[write_file(tmp_path / "t.tsv", "2001010\twhat is x?\n")])
    line = _trec_line(topic_id=2001010)

    # when
    runs_import(files=[write_file(tmp_path / "run.jsonl", json.dumps(line) + "\n")])

    # then
    answer = Answer.objects.get()
    assert answer.topic.topic_id == "2001010"
    assert Topic.objects.count() == 1


def test_it_accepts_the_2025_variant_with_metadata(db, tmp_path):
    # given: the 2025 layout, where the run and the topic are in the metadata
    line = {
        "metadata": {
            "team_id": "teamX",
            "run_id": "teamX.run25",
            "type": "automatic",
            "narrative_id": 77,
            "narrative": "how do bees see colour?",
            "prompt": "answer the question",
        },
        "references": [f"msmarco_v2.1_doc_01_{i}#0_{i * 7}" for i in range(30)],
        "answer": [{"text": "Bees see ultraviolet.", "citations": [0, 29]}],
    }

    # when
    report = runs_import(files=[write_file(tmp_path / "run25.jsonl", json.dumps(line) + "\n")])

    # then: 30 references is fine in 2025 (up to 100); the unknown topic is created with its narrative
    run = Run.objects.get(run_id="teamX.run25")
    assert run.group == "teamX"
    assert Topic.objects.get(topic_id="77").text == "how do bees see colour?"
    assert [c.reference_index for c in Citation.objects.order_by("slot")] == [0, 29]
    assert [str(w) for w in report.warnings] == ["run25.jsonl:1: topic_id: topic 77 is not loaded; it was created"]


def test_it_replaces_a_loaded_run_with_replace(topics, data_dir):
    # given
    path = data_dir / "runs" / FULL_RUNS[2]
    runs_import(files=[path])
    old_pk = Run.objects.get().pk

    # when
    runs_import(files=[path], options=RunOptions(replace=True))

    # then
    expected = count_trec(path)
    assert Run.objects.get().pk != old_pk
    assert Sentence.objects.count() == expected["sentences"]
    assert Citation.objects.count() == expected["citations"]


def test_it_refuses_to_replace_a_run_whose_citations_were_judged(topics, data_dir):
    # given: a judgment made on one of the run's citations
    path = data_dir / "runs" / FULL_RUNS[2]
    runs_import(files=[path])
    citation = Citation.objects.first()
    pair = PairFactory(passage=citation.passage)
    JudgmentFactory(judge=JudgeFactory(), pair=pair, citation=citation, label="FS")
    before = Sentence.objects.count()

    # when
    with pytest.raises(ImportRejected) as exc:
        runs_import(files=[path], options=RunOptions(replace=True))

    # then
    assert [str(e) for e in exc.value.report.errors] == [
        f"{FULL_RUNS[2]}:1: run_id: run baseline_rag24.test_l31_70b_instruct_top20 cannot be replaced: "
        "judgments were made on its citations"
    ]
    assert Sentence.objects.count() == before


def test_it_warns_about_a_topic_text_that_differs_from_the_loaded_topic(topics, tmp_path):
    # given
    line = _trec_line(topic_id="2024-32912", topic="a different question")

    # when
    report = runs_import(files=[write_file(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert len(report.warnings) == 1
    assert str(report.warnings[0]).startswith("r.jsonl:1: topic: differs from the loaded text of topic 2024-32912")
    assert Answer.objects.count() == 1


def test_it_drops_a_repeated_citation_of_a_sentence_with_a_warning(db, tmp_path):
    # given: the track's checker warns and keeps one of them
    topics_import(files=[write_file(tmp_path / "t.tsv", "2024-1\tq\n")])
    line = _trec_line(answer=[{"text": "One two.", "citations": [1, 0, 1]}], response_length=2)

    # when
    report = runs_import(files=[write_file(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert [str(w) for w in report.warnings] == ["r.jsonl:1: answer[0].citations[2]: duplicate citation 1; dropped"]
    assert [(c.slot, c.reference_index) for c in Citation.objects.order_by("slot")] == [(0, 1), (1, 0)]


def test_it_counts_words_as_the_track_checker_does(db, tmp_path):
    # given: NFKC turns the ideographic space into a space, so "x<U+3000>y" is two words
    topics_import(files=[write_file(tmp_path / "t.tsv", "2024-1\tq\n")])
    line = _trec_line(answer=[{"text": "  x\u3000y  ", "citations": []}], response_length=2)

    # when
    report = runs_import(files=[write_file(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert report.warning_count == 0


def test_it_writes_the_same_rows_through_the_portable_path(topics, data_dir, monkeypatch):
    # given: the bulk_create path SQLite uses, forced on PostgreSQL
    from assess.importers import runs

    monkeypatch.setattr(runs, "COPY_ON_POSTGRESQL", False)
    path = data_dir / "runs" / FULL_RUNS[0]
    expected = count_trec(path)

    # when
    runs_import(files=[path])

    # then
    assert Sentence.objects.count() == expected["sentences"]
    assert Citation.objects.count() == expected["citations"]


def test_it_points_citations_at_a_passage_already_loaded(topics, tmp_path):
    # given
    existing = PassageFactory()
    topic = Topic.objects.get(topic_id="2024-32912")
    line = _trec_line(topic_id=topic.topic_id, topic=topic.text, references=[existing.passage_id])
    line["answer"] = [{"text": "One.", "citations": [0]}]
    line["response_length"] = 1

    # when
    report = runs_import(files=[write_file(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert Citation.objects.get().passage == existing
    assert Passage.objects.get().has_text
    assert report.counts["passages_created"] == 0


def _trec_line(**overrides):
    line = {
        "run_id": "team.run1",
        "topic_id": "2024-1",
        "topic": "q",
        "references": ["msmarco_v2.1_doc_00_1#0_10", "msmarco_v2.1_doc_00_2#1_20"],
        "response_length": 4,
        "answer": [{"text": "Alpha beta.", "citations": [0]}, {"text": "Gamma delta.", "citations": [1, 0]}],
    }
    line.update(overrides)
    return line


@pytest.mark.parametrize("copy", [True, False], ids=["copy", "bulk_create"])
def test_it_resolves_every_citation_when_the_passage_cache_overflows(topics, data_dir, monkeypatch, copy):
    # given: a cache far smaller than the run's passages, so it is emptied between batches
    from assess.importers import runs, writer

    monkeypatch.setattr(writer, "PASSAGE_CACHE_LIMIT", 50)
    monkeypatch.setattr(runs, "BATCH_ANSWERS", 40)
    monkeypatch.setattr(runs, "COPY_ON_POSTGRESQL", copy)
    path = data_dir / "runs" / FULL_RUNS[2]
    expected = count_trec(path)

    # when
    runs_import(files=[path])

    # then
    assert Citation.objects.count() == expected["citations"]
    assert Passage.objects.count() == len(expected["cited"])
    first = json.loads(path.open(encoding="utf-8").readline())
    cited = [
        c.passage.passage_id
        for c in Citation.objects.filter(
            sentence__answer__topic__topic_id=first["topic_id"], sentence__index=0
        ).order_by("slot")
    ]
    assert cited == [first["references"][i] for i in first["answer"][0]["citations"]]


def test_it_writes_nothing_when_the_copy_writer_fails_midway(topics, data_dir, monkeypatch):
    # given: the background COPY writer fails on its third batch
    from django.db import connection

    from assess.importers import runs, writer

    if connection.vendor != "postgresql":
        pytest.skip("the COPY writer is the PostgreSQL path")

    monkeypatch.setattr(runs, "BATCH_ANSWERS", 50)
    real_write = writer.CopyWriter._write
    calls = []

    def failing_write(self, rows):
        calls.append(len(rows))
        if len(calls) == 3:
            raise RuntimeError("disk full")
        real_write(self, rows)

    monkeypatch.setattr(writer.CopyWriter, "_write", failing_write)

    # when
    with pytest.raises(RuntimeError, match="disk full"):
        runs_import(files=[data_dir / "runs" / FULL_RUNS[2]])

    # then
    assert len(calls) == 3
    assert (Run.objects.count(), Answer.objects.count(), Sentence.objects.count(), Passage.objects.count()) == (
        0,
        0,
        0,
        0,
    )
