"""NIST labels laid onto runs loaded from their own files (issue 15, point 3): a run map names which loaded
run each NIST run id stands for, labels are placed by passage within the sentence (not by citation
position), and a label that cannot be placed is listed with file, line and reason.

Data: the three organizer baseline runs (castorini/ragnarok_data, `runs/`) and NIST's from-scratch support
files (castorini/RAGDoll, `nist-support/`); SOURCES.md. Expected placements are read from the files with
plain json, not with the platform's readers."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from django.core.cache import cache

from assess.importers.runs import RunOptions, runs_import
from assess.models import Answer, Run
from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
from judging.exchange.services import judgments_import, run_map_load
from judging.models import NOT_JUDGED, Judgment
from tests.judging.test_metrics_nist import _wipe
from tests.reference import nist_files as reference

pytestmark = pytest.mark.usefixtures("fresh_cache")

RUN_MAP = {
    "coordinators.baseline_frag_rag24.test_gpt-4o_top20": "baseline_rag24.test_gpt-4o_top20",
    "coordinators.baseline_frag_rag24.test_command-r-plus_top20": "baseline_rag24.test_command-r-plus_top20",
    "coordinators.baseline_rag24.test_l31_70b_instruct_top20": "baseline_rag24.test_l31_70b_instruct_top20",
}
NAME = {"2": "FS", "1": "PS", "0": "NS", "-1": NOT_JUDGED}


def _run_files(folder: Path) -> list[Path]:
    return sorted(folder.glob("baseline_rag24.test_*.jsonl.fixed"))


def _write_run_map(path: Path, mapping: dict[str, str] = RUN_MAP) -> Path:
    lines = ["# NIST run id\tloaded run id", ""] + [f"{nist}\t{loaded}" for nist, loaded in mapping.items()]
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


def _expected_placements(run_dir: Path) -> tuple[dict[tuple[str, str, int, str], str], int, int]:
    """(loaded run, topic, sentence, passage) -> label for every NIST citation of the baselines, and how many
    cited baseline sentences there are and in how many NIST's first citation is not the run file's slot 0."""
    run_lines = {}
    for path in _run_files(run_dir):
        with open(path, encoding="utf-8") as f:
            for text in f:
                row = json.loads(text)
                run_lines[(row["run_id"], str(row["topic_id"]))] = row
    expected, cited, moved = {}, 0, 0
    for row in reference.read_many(reference.FROM_SCRATCH):
        loaded = RUN_MAP.get(row["run_id"])
        if loaded is None:
            continue
        answer = run_lines[(loaded, row["topic_id"])]
        for i, sentence in enumerate(row["sentences"]):
            if not sentence["citations"]:
                continue
            cited += 1
            run_slots = [answer["references"][c] for c in answer["answer"][i]["citations"]]
            moved += run_slots[0] != sentence["citations"][0]["reference"]
            for citation in sentence["citations"]:
                expected[(loaded, row["topic_id"], i, citation["reference"])] = NAME[citation["support"]]
    return expected, cited, moved


@pytest.fixture(scope="module")
def placed(django_db_setup, django_db_blocker, data_dir, tmp_path_factory):
    """The baselines loaded from their run files on the 22 judged topics, then NIST's two from-scratch files
    imported with the run map."""
    run_map = _write_run_map(tmp_path_factory.mktemp("run-map") / "run-map.tsv")
    topics = frozenset(data_dir.joinpath("topics_22_fromscratch.txt").read_text().split())
    with django_db_blocker.unblock():
        _wipe()
        runs_import(files=_run_files(data_dir / "runs"), options=RunOptions(topics=topics))
        report = judgments_import(
            files=reference.FROM_SCRATCH,
            fmt=JudgmentFormat.NIST,
            options=JudgmentImportOptions(
                judge="nist", kind="human", condition="from_scratch", run_map=run_map_load(run_map)
            ),
        )
        cache.clear()
        yield report
        _wipe()
        cache.clear()


def test_it_finds_nists_first_citation_away_from_slot_0_in_6_of_577_sentences(data_dir):
    # when
    _, cited, moved = _expected_placements(data_dir / "runs")

    # then: ragnarok's checker reorders citations, so position cannot place these labels
    assert (moved, cited) == (6, 577)


def test_it_lays_every_baseline_label_on_the_citation_of_its_passage(placed, db, data_dir):
    # given
    expected, _, _ = _expected_placements(data_dir / "runs")

    # when
    got = {
        (run_id, topic_id, index, passage): label
        for run_id, topic_id, index, passage, label in Judgment.objects.filter(
            judge__name="nist", citation__sentence__answer__run__run_id__in=RUN_MAP.values()
        ).values_list(
            "citation__sentence__answer__run__run_id",
            "citation__sentence__answer__topic__topic_id",
            "citation__sentence__index",
            "citation__passage__passage_id",
            "label",
        )
    }

    # then
    assert got == expected
    assert len(got) > 577


def test_it_places_the_moved_first_citations_on_a_later_slot(placed, db):
    # when: NIST's labels on run-file citations that are not slot 0 but were NIST's first
    later = Judgment.objects.filter(
        judge__name="nist", citation__sentence__answer__run__run_id__in=RUN_MAP.values(), citation__slot__gt=0
    ).count()

    # then
    assert later >= 6


def test_it_creates_no_answers_for_the_mapped_nist_runs(placed, db):
    # then: the 42 other NIST runs are created from the NIST files, the 3 mapped ones are not
    assert not Run.objects.filter(run_id__in=RUN_MAP).exists()
    assert Run.objects.count() == 45
    assert Answer.objects.filter(run__run_id__in=RUN_MAP.values()).count() == 3 * 22
    assert placed.error_count == 0
    assert "unplaced" not in placed.counts
