"""A corpus of malformed inputs. Each is rejected with a message naming file, line and field, and leaves
the database exactly as it was (some material is loaded first). Warnings are reported and the file is
imported."""

from __future__ import annotations

import gzip
import json

import pytest

from assess.importers.passages import passages_import
from assess.importers.report import ImportRejected
from assess.importers.runs import RunFormat, RunOptions, runs_import
from assess.importers.topics import topics_import
from assess.models import Answer, Citation, ImportJob, Passage, Run, Sentence, Topic
from tests.assess.malformed_inputs import (
    CASES,
    MANY_LINES,
    REF,
    TWO_LINES,
    WARNING_CASES,
    gz_truncated,
    jl,
    line,
    sentence,
)


@pytest.fixture
def loaded(db, tmp_path):
    """Material already in the database: two topics, a run with two answers, a passage with text."""
    src = tmp_path / "loaded"
    src.mkdir()
    (src / "t.tsv").write_text("2024-1\tfirst question\n2024-2\tsecond question\n")
    topics_import(files=[src / "t.tsv"])
    (src / "old.jsonl").write_bytes(
        jl(line(run_id="team.old"), line(run_id="team.old", topic_id="2024-2", topic="second question"))
    )
    runs_import(files=[src / "old.jsonl"])
    (src / "p.jsonl").write_text(json.dumps({"docid": REF[0], "segment": "loaded text", "title": "T"}) + "\n")
    passages_import(files=[src / "p.jsonl"])
    return src


def snapshot():
    """Every assess table's row count, and the content that an import could change in place."""
    return {
        "counts": {m.__name__: m.objects.count() for m in (Topic, Passage, Run, Answer, Sentence, Citation, ImportJob)},
        "topics": sorted(Topic.objects.values_list("topic_id", "text")),
        "passages": sorted(Passage.objects.values_list("passage_id", "has_text", "text", "title")),
        "runs": sorted(Run.objects.values_list("run_id", "group", "task", "priority", "source_file")),
    }


def run_case(kind, paths, options):
    if kind == "runs":
        return runs_import(files=paths, options=RunOptions(**options))
    if kind == "nist":
        return runs_import(files=paths, fmt=RunFormat.NIST, options=RunOptions(**options))
    if kind == "topics":
        return topics_import(files=paths)
    return passages_import(files=paths)


def write_files(tmp_path, files):
    paths = []
    for name, data in files:
        path = tmp_path / name
        path.write_bytes(data)
        paths.append(path)
    return paths


@pytest.mark.parametrize("case", [c for c in CASES if c.errors], ids=lambda c: c.id)
def test_it_rejects_a_malformed_input_and_changes_nothing(loaded, tmp_path, case):
    # given
    paths = write_files(tmp_path, case.files)
    before = snapshot()

    # when
    with pytest.raises(ImportRejected) as exc:
        run_case(case.kind, paths, case.options)

    # then
    assert [str(e) for e in exc.value.report.errors] == case.errors
    assert snapshot() == before


def test_the_malformed_corpus_is_large_enough():
    assert len(CASES) >= 25


def test_it_rejects_a_truncated_gzip_naming_the_first_line_it_could_not_read(loaded, tmp_path):
    # given: a 300-line run whose compressed stream is cut in half
    (path,) = write_files(tmp_path, [("r.jsonl.gz", gz_truncated(MANY_LINES))])
    complete = 0
    with gzip.open(path, "rb") as fh:
        try:
            for raw in fh:
                complete += raw.endswith(b"\n")
        except EOFError:
            pass
    before = snapshot()

    # when
    with pytest.raises(ImportRejected) as exc:
        runs_import(files=[path])

    # then
    assert 0 < complete < 300
    assert [str(e) for e in exc.value.report.errors] == [
        f"r.jsonl.gz:{complete + 1}: the file ends early (truncated gzip?): Compressed file ended before the "
        "end-of-stream marker was reached"
    ]
    assert snapshot() == before


def test_a_bad_second_file_rolls_back_the_first(loaded, tmp_path):
    # given: a.jsonl alone would import (two answers of team.new)
    paths = write_files(tmp_path, [("a.jsonl", TWO_LINES), ("b.jsonl", b"{bad\n")])
    before = snapshot()

    # when
    with pytest.raises(ImportRejected):
        runs_import(files=paths)
    report = runs_import(files=paths[:1])

    # then
    assert report.counts["answers"] == 2
    assert Answer.objects.count() == before["counts"]["Answer"] + 2


def test_it_lists_every_error_but_keeps_only_the_first_few_hundred(loaded, tmp_path):
    # given: 300 lines, each citing a reference that does not exist
    bad = jl(*[line(topic_id=f"2024-{i}", answer=[sentence(citations=[5])]) for i in range(300)])
    (path,) = write_files(tmp_path, [("r.jsonl", bad)])

    # when
    with pytest.raises(ImportRejected) as exc:
        runs_import(files=[path])

    # then
    assert exc.value.report.error_count == 300
    assert len(exc.value.report.errors) == 200
    assert str(exc.value).endswith("(and 299 more errors)")


@pytest.mark.parametrize(("data", "warnings"), [c[1:] for c in WARNING_CASES], ids=[c[0] for c in WARNING_CASES])
def test_it_reports_a_warning_and_imports_the_file(loaded, tmp_path, data, warnings):
    # given
    (path,) = write_files(tmp_path, [("w.jsonl", data)])
    answers = Answer.objects.count()

    # when
    report = runs_import(files=[path])

    # then
    assert [str(w) for w in report.warnings] == warnings
    assert Answer.objects.count() == answers + 1
    assert Run.objects.filter(run_id="team.new").exists()


def test_it_keeps_a_sentence_without_text_with_empty_text(loaded, tmp_path):
    # given
    (path,) = write_files(
        tmp_path, [("w.jsonl", jl(line(answer=[sentence(text=None), sentence()], response_length=2)))]
    )

    # when
    runs_import(files=[path])

    # then
    texts = list(
        Sentence.objects.filter(answer__run__run_id="team.new").order_by("index").values_list("text", flat=True)
    )
    assert texts == ["", "Alpha beta."]


def test_it_warns_about_an_empty_passage_text_and_imports_the_rest(loaded, tmp_path):
    # given
    (path,) = write_files(
        tmp_path, [("p.jsonl", jl({"docid": REF[1], "segment": "  "}, {"docid": REF[2], "segment": "text"}))]
    )

    # when
    report = passages_import(files=[path])

    # then
    assert [str(w) for w in report.warnings] == [
        f"p.jsonl:1: segment: passage {REF[1]} has empty text; left without text"
    ]
    assert Passage.objects.get(passage_id=REF[2]).text == "text"
    assert not Passage.objects.get(passage_id=REF[1]).has_text
