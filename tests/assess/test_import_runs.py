"""Run imports on the real TREC 2024 RAG files: the organisers' full runs and NIST's support files."""

from __future__ import annotations

import json
import math

import pytest

from assess.importers.report import ImportRejected
from assess.importers.runs import RunFormat, RunOptions, runs_import
from assess.importers.topics import topics_import
from assess.models import Answer, Citation, Passage, Run, Sentence, Task, Topic
from tests.factories import JudgeFactory, JudgmentFactory, PairFactory, PassageFactory

FULL_RUNS = (
    "baseline_rag24.test_gpt-4o_top20.jsonl.fixed",
    "baseline_rag24.test_command-r-plus_top20.jsonl.fixed",
    "baseline_rag24.test_l31_70b_instruct_top20.jsonl.fixed",
)
NIST_22 = (
    "final.citation_judgments_without_prediction.20241025.jsonl",
    "final.citation_judgments_Webassess.20241031.jsonl",
)
NIST_14 = "final.citation_judgments_with_prediction.20241025.jsonl"


def count_trec(path):
    """Our own count of a TREC run file, independent of the importer."""
    answers = sentences = citations = 0
    run_ids, cited = set(), set()
    with open(path, encoding="utf-8") as fh:
        for line in fh:
            obj = json.loads(line)
            answers += 1
            run_ids.add(obj["run_id"])
            for sentence in obj["answer"]:
                sentences += 1
                citations += len(sentence["citations"])
                cited.update(obj["references"][i] for i in sentence["citations"])
    return {"answers": answers, "sentences": sentences, "citations": citations, "run_ids": run_ids, "cited": cited}


def count_nist(paths):
    rows, sentences, citations, missing_text = 0, 0, 0, 0
    runs = set()
    for path in paths:
        with open(path, encoding="utf-8") as fh:
            for line in fh:
                obj = json.loads(line)
                rows += 1
                runs.add(obj["run_id"])
                for sentence in obj["sentences"]:
                    sentences += 1
                    citations += len(sentence["citations"])
                    text = sentence["text"]
                    missing_text += isinstance(text, float) and math.isnan(text)
    return {"rows": rows, "sentences": sentences, "citations": citations, "missing_text": missing_text, "runs": runs}


@pytest.fixture
def topics(db, data_dir):
    topics_import(files=[data_dir / "topics.rag24.test.txt"])


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
    topics_import(files=[_write(tmp_path / "t.tsv", "2001010\twhat is x?\n")])
    line = _trec_line(topic_id=2001010)

    # when
    runs_import(files=[_write(tmp_path / "run.jsonl", json.dumps(line) + "\n")])

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
    report = runs_import(files=[_write(tmp_path / "run25.jsonl", json.dumps(line) + "\n")])

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


# --- NIST's support files ---------------------------------------------------------------------------


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
    again = _write(tmp_path / "again.jsonl", first)
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
    part = _write(tmp_path / "part.jsonl", "".join(json.dumps(r) + "\n" for r in picked))

    # when
    runs_import(files=[part], fmt=RunFormat.NIST, options=RunOptions(replace=True))

    # then
    assert len(untouched) == 2
    assert set(Answer.objects.filter(pk__in=untouched).values_list("pk", flat=True)) == untouched
    assert Answer.objects.count() == 381


def test_it_warns_about_a_topic_text_that_differs_from_the_loaded_topic(topics, tmp_path):
    # given
    line = _trec_line(topic_id="2024-32912", topic="a different question")

    # when
    report = runs_import(files=[_write(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert len(report.warnings) == 1
    assert str(report.warnings[0]).startswith("r.jsonl:1: topic: differs from the loaded text of topic 2024-32912")
    assert Answer.objects.count() == 1


def test_it_drops_a_repeated_citation_of_a_sentence_with_a_warning(db, tmp_path):
    # given: the track's checker warns and keeps one of them
    topics_import(files=[_write(tmp_path / "t.tsv", "2024-1\tq\n")])
    line = _trec_line(answer=[{"text": "One two.", "citations": [1, 0, 1]}], response_length=2)

    # when
    report = runs_import(files=[_write(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert [str(w) for w in report.warnings] == ["r.jsonl:1: answer[0].citations[2]: duplicate citation 1; dropped"]
    assert [(c.slot, c.reference_index) for c in Citation.objects.order_by("slot")] == [(0, 1), (1, 0)]


def test_it_counts_words_as_the_track_checker_does(db, tmp_path):
    # given: NFKC turns the ideographic space into a space, so "x<U+3000>y" is two words
    topics_import(files=[_write(tmp_path / "t.tsv", "2024-1\tq\n")])
    line = _trec_line(answer=[{"text": "  x\u3000y  ", "citations": []}], response_length=2)

    # when
    report = runs_import(files=[_write(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

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
    report = runs_import(files=[_write(tmp_path / "r.jsonl", json.dumps(line) + "\n")])

    # then
    assert Citation.objects.get().passage == existing
    assert Passage.objects.get().has_text
    assert report.counts["passages_created"] == 0


def _write(path, text):
    path.write_text(text, encoding="utf-8")
    return path


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
