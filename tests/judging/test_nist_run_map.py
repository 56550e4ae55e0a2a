"""A run map and the labels that cannot be placed (issue 15, point 3), on the excerpts: the three organizer
baselines' run lines and NIST's labels of two topics (SOURCES.md)."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from django.core.files.uploadedfile import SimpleUploadedFile
from django.core.management import call_command
from django.core.management.base import CommandError

from assess.importers.report import ImportRejected
from assess.importers.runs import runs_import
from assess.models import Run
from judging.exchange.services import run_map_load
from judging.models import Judgment
from tests.judging.test_nist_placement import RUN_MAP, _write_run_map


@pytest.fixture
def baselines(db, data_dir):
    runs_import(files=sorted((data_dir / "excerpts").glob("baseline_rag24.test_*.excerpt.jsonl.fixed")))


def _nist_line_with_an_uncited_passage(data_dir: Path, path: Path) -> Path:
    """The gpt-4o baseline's NIST line of 2024-32912, its sentence 1 citing a passage its run does not."""
    source = data_dir / "excerpts/final.citation_judgments_without_prediction.20241025.excerpt.jsonl"
    with open(source, encoding="utf-8") as f:
        rows = [json.loads(line) for line in f]
    row = next(r for r in rows if r["run_id"] == "coordinators.baseline_frag_rag24.test_gpt-4o_top20")
    row["sentences"][1]["citations"] = [{"citationID": 0, "reference": "msmarco_v2.1_doc_00_0#0_0", "support": "2"}]
    path.write_text(json.dumps(row) + "\n", encoding="utf-8")
    return path


def test_it_refuses_a_label_it_cannot_place_and_names_file_line_and_reason(baselines, data_dir, tmp_path):
    # given
    labels = _nist_line_with_an_uncited_passage(data_dir, tmp_path / "labels.jsonl")
    run_map = _write_run_map(tmp_path / "map.tsv")

    # when
    err = io.StringIO()
    with pytest.raises(CommandError):
        call_command(
            "import_judgments", str(labels), format="nist", judge="nist", run_map=str(run_map), stderr=err,
            verbosity=0,
        )  # fmt: skip

    # then
    assert (
        "labels.jsonl:1: sentences[1].citations[0].reference: cannot place the label: sentence 1 of run "
        "baseline_rag24.test_gpt-4o_top20 (mapped from coordinators.baseline_frag_rag24.test_gpt-4o_top20) on "
        "topic 2024-32912 does not cite msmarco_v2.1_doc_00_0#0_0"
    ) in err.getvalue()
    assert not Judgment.objects.exists()


def test_it_imports_the_rest_and_lists_the_unplaced_label_when_asked(baselines, data_dir, tmp_path):
    # given
    labels = _nist_line_with_an_uncited_passage(data_dir, tmp_path / "labels.jsonl")
    run_map = _write_run_map(tmp_path / "map.tsv")
    with open(labels, encoding="utf-8") as f:
        row = json.loads(f.readline())
    placeable = sum(len(s["citations"]) for s in row["sentences"]) - 1

    # when
    err, out = io.StringIO(), io.StringIO()
    call_command(
        "import_judgments", str(labels), format="nist", judge="nist", run_map=str(run_map), skip_unplaced=True,
        stdout=out, stderr=err, verbosity=0,
    )  # fmt: skip

    # then
    assert "warning: labels.jsonl:1: sentences[1].citations[0].reference: cannot place the label" in err.getvalue()
    assert "unplaced 1" in out.getvalue()
    assert Judgment.objects.count() == placeable


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("a\tb\tc\n", "map.tsv:1: expected two columns (the file's run id, the loaded run id), got 3"),
        ("x\tbaseline_rag24.test_gpt-4o_top20\nx\tbaseline_rag24.test_command-r-plus_top20\n", "map.tsv:2: column 1: "),
        ("x\tbaseline_rag24.test_gpt-4o_top20\ny\tbaseline_rag24.test_gpt-4o_top20\n", "map.tsv:2: column 2: "),
        ("x\tnot-loaded\n", "map.tsv:1: column 2: run not-loaded (for x) is not loaded"),
        ("# only a comment\n", "map.tsv: the run map is empty"),
    ],
)
def test_it_refuses_a_bad_run_map_naming_its_line(baselines, tmp_path, content, message):
    # given
    path = tmp_path / "map.tsv"
    path.write_text(content, encoding="utf-8")

    # when
    with pytest.raises(ImportRejected) as caught:
        run_map_load(path)

    # then
    assert any(str(e).startswith(message) for e in caught.value.report.errors), caught.value.report.errors


def test_the_upload_page_and_the_api_take_a_run_map(baselines, data_dir, tmp_path, client, organizer):
    # given
    client.force_login(organizer)
    excerpt = data_dir / "excerpts/final.citation_judgments_without_prediction.20241025.excerpt.jsonl"
    mapping = "".join(f"{nist}\t{loaded}\n" for nist, loaded in RUN_MAP.items()).encode()

    def files() -> dict[str, object]:
        return {
            "files": SimpleUploadedFile("labels.jsonl", excerpt.read_bytes()),
            "run_map": SimpleUploadedFile("map.tsv", mapping),
        }

    # when
    api = client.post("/api/metrics/judgments/import/", {"format": "nist", "judge": "nist-api", **files()})
    page = client.post(
        "/judgments/import/",
        {"format": "nist", "judge": "nist-page", "uploads": files()["files"], "run_map": files()["run_map"]},
    )

    # then
    assert api.status_code == 200, api.content
    assert page.status_code == 302, page.content
    for judge in ("nist-api", "nist-page"):
        on_baselines = Judgment.objects.filter(
            judge__name=judge, citation__sentence__answer__run__run_id__in=RUN_MAP.values()
        )
        assert on_baselines.count() > 0
    assert not Run.objects.filter(run_id__in=RUN_MAP).exists()


def test_the_api_refuses_a_bad_run_map_naming_its_line(baselines, data_dir, client, organizer):
    # given
    client.force_login(organizer)
    excerpt = data_dir / "excerpts/final.citation_judgments_without_prediction.20241025.excerpt.jsonl"

    # when
    response = client.post(
        "/api/metrics/judgments/import/",
        {
            "format": "nist",
            "judge": "nist",
            "files": SimpleUploadedFile("labels.jsonl", excerpt.read_bytes()),
            "run_map": SimpleUploadedFile("map.tsv", b"coordinators.x\tnot-loaded\n"),
        },
    )

    # then
    assert response.status_code == 400
    assert (
        response.json()["errors"][0]["text"] == "map.tsv:1: column 2: run not-loaded (for coordinators.x) is not loaded"
    )
    assert not Judgment.objects.exists()
