"""The import management commands, called as an organizer would, on the real files."""

from __future__ import annotations

import io

import pytest
from django.core.management import CommandError, call_command

from assess.models import Answer, Passage, Run, Task, Topic

RUN = "runs/baseline_rag24.test_l31_70b_instruct_top20.jsonl.fixed"
NIST = "nist-support/final.citation_judgments_without_prediction.20241025.jsonl"


def call(*args, **kwargs):
    out, err = io.StringIO(), io.StringIO()
    call_command(*args, stdout=out, stderr=err, **kwargs)
    return out.getvalue(), err.getvalue()


def test_import_topics_loads_the_track_topics(db, data_dir):
    # when
    out, _ = call("import_topics", str(data_dir / "topics.rag24.test.txt"), verbosity=0)

    # then
    assert Topic.objects.count() == 301
    assert "imported: topics 301, topics_new 301" in out


def test_import_runs_loads_a_run_with_its_options(db, data_dir):
    # given
    call("import_topics", str(data_dir / "topics.rag24.test.txt"), verbosity=0)

    # when
    out, _ = call(
        "import_runs", str(data_dir / RUN), "--group", "coordinators", "--task", "AG", "--priority", "3", verbosity=0
    )

    # then
    run = Run.objects.get()
    assert (run.run_id, run.group, run.task, run.priority) == (
        "baseline_rag24.test_l31_70b_instruct_top20",
        "coordinators",
        Task.AG,
        3,
    )
    assert Answer.objects.count() == 301
    assert "answers 301" in out


def test_import_runs_with_format_nist_and_topics_builds_those_answers(db, data_dir):
    # given
    call("import_topics", str(data_dir / "topics.rag24.test.txt"), verbosity=0)

    # when
    _, err = call("import_runs", str(data_dir / NIST), "--format", "nist", "--topics", "2024-32912", verbosity=0)

    # then
    assert set(Answer.objects.values_list("topic__topic_id", flat=True)) == {"2024-32912"}
    assert Run.objects.filter(group="IITD-IRL").exists()
    assert "warning: " in err  # the NaN sentence texts of that topic


def test_import_runs_fails_with_the_number_of_errors_and_imports_nothing(db, data_dir, tmp_path):
    # given
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"run_id": "x"}\n')

    # when
    with pytest.raises(CommandError) as exc:
        call("import_runs", str(bad), verbosity=0)

    # then
    assert str(exc.value) == "rejected: 5 error(s); nothing was imported"
    assert Run.objects.count() == 0


def test_import_runs_prints_the_errors_to_stderr(db, tmp_path):
    # given
    bad = tmp_path / "bad.jsonl"
    bad.write_text("not json\n")
    err = io.StringIO()

    # when
    with pytest.raises(CommandError):
        call_command("import_runs", str(bad), stderr=err, verbosity=0)

    # then
    assert err.getvalue().splitlines() == ["error: bad.jsonl:1: invalid JSON: Expecting value at column 1"]


def test_import_runs_rejects_a_loaded_run_unless_replace(db, data_dir):
    # given
    call("import_topics", str(data_dir / "topics.rag24.test.txt"), verbosity=0)
    call("import_runs", str(data_dir / RUN), verbosity=0)

    # when
    with pytest.raises(CommandError):
        call("import_runs", str(data_dir / RUN), verbosity=0)
    call("import_runs", str(data_dir / RUN), "--replace", verbosity=0)

    # then
    assert Run.objects.count() == 1
    assert Answer.objects.count() == 301


def test_import_passages_loads_segment_files(db, data_dir):
    # when
    out, _ = call(
        "import_passages",
        str(data_dir / "segments/nist-cited-segments.jsonl"),
        str(data_dir / "excerpts/msmarco_v2.1_doc_segmented.guidelines-examples.jsonl"),
        verbosity=0,
    )

    # then
    assert Passage.objects.filter(has_text=True).count() == 738
    assert "passages 738" in out


def test_import_passages_needs_files_or_corpus_and_missing(db, tmp_path):
    with pytest.raises(CommandError, match="give passage files, or --corpus DIR --missing"):
        call("import_passages")
    with pytest.raises(CommandError, match="use --corpus DIR --missing, without files"):
        call("import_passages", "--corpus", str(tmp_path))


def test_missing_passages_prints_the_cited_ids_without_text(db, data_dir):
    # given: a run, and the texts of the NIST-cited segments (some of the run's passages among them)
    call("import_topics", str(data_dir / "topics.rag24.test.txt"), verbosity=0)
    call("import_runs", str(data_dir / RUN), verbosity=0)
    call("import_passages", str(data_dir / "segments/nist-cited-segments.jsonl"), verbosity=0)
    expected = sorted(
        Passage.objects.filter(has_text=False, citations__isnull=False).distinct().values_list("passage_id", flat=True)
    )

    # when
    out, _ = call("missing_passages")

    # then
    assert out.splitlines() == expected
    assert 0 < len(expected) < Passage.objects.count()
    assert "msmarco_v2.1_doc_" in out


def test_import_runs_shows_a_progress_bar_at_normal_verbosity(db, data_dir, capsys):
    # given
    call("import_topics", str(data_dir / "topics.rag24.test.txt"), verbosity=0)

    # when
    call_command("import_runs", str(data_dir / RUN), stdout=io.StringIO())

    # then: tqdm writes to the process's stderr
    assert "import" in capsys.readouterr().err
