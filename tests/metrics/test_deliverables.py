"""The deliverables zip (issue 23, point 4): one command, one button, a manifest whose checksums match."""

from __future__ import annotations

import csv
import hashlib
import io
import json
import zipfile
from pathlib import Path
from typing import Any

import ir_measures
import pytest
from django.core.management import call_command
from django.test import Client

from judging.review import services
from tests.factories import OrganizerFactory
from tests.judging.review.conftest import ReviewWorld, review_world_build

pytestmark = pytest.mark.django_db


@pytest.fixture
def world(db: Any) -> ReviewWorld:
    w = review_world_build(name="deliv")
    services.final_label_set(
        campaign=w.campaign, pair_id=w.pairs[2], label="PS", reason="half of it", reviewer=w.reviewer
    )
    return w


@pytest.fixture
def made(world: ReviewWorld, tmp_path: Path) -> zipfile.ZipFile:
    out = tmp_path / "deliv.zip"
    call_command("campaign_deliverables", "deliv", "--labels", "final/deliv", "--out", str(out), stdout=io.StringIO())
    return zipfile.ZipFile(out)


def test_the_manifest_lists_every_file_with_its_checksum(made: zipfile.ZipFile) -> None:
    # when
    manifest = json.loads(made.read("manifest.json"))

    # then
    listed = {f["name"]: f["sha256"] for f in manifest["files"]}
    assert set(listed) == set(made.namelist()) - {"manifest.json"}
    assert {name: hashlib.sha256(made.read(name)).hexdigest() for name in listed} == listed
    for wanted in (
        "qrels.txt",
        "judgments-nist.jsonl",
        "judgments.csv",
        "scores.csv",
        "topic-scores.csv",
        "agreement.json",
        "agreement.csv",
        "figures/figure2-scatter.pdf",
        "figures/figure3-confusion.png",
    ):
        assert wanted in listed


def test_the_manifest_names_the_sets_settings_version_and_date(made: zipfile.ZipFile) -> None:
    # when
    manifest = json.loads(made.read("manifest.json"))

    # then
    final = next(s for s in manifest["label_sets"] if s["spec"] == "final/deliv")
    # 6 pairs x 2 runs: the tie reviewed PS; the rest FS (a cannot-judge leaves alice's FS alone)
    assert (final["FS"], final["PS"], final["NS"]) == (10, 2, 0)
    assert manifest["campaign"]["name"] == "deliv"
    assert manifest["campaign"]["depth"] == 1
    assert manifest["campaign"]["queue_order"] == "by_topic"
    assert manifest["campaign"]["archived_at"] is None
    assert len(manifest["platform"]["git_commit"]) in (40, len("unknown"))
    assert manifest["platform"]["version"] == "0.1.0"
    assert manifest["created_at"][:2] == "20"


def test_its_qrels_read_in_ir_measures(made: zipfile.ZipFile, tmp_path: Path) -> None:
    # given
    path = tmp_path / "qrels.txt"
    path.write_bytes(made.read("qrels.txt"))

    # when
    qrels = list(ir_measures.read_trec_qrels(str(path)))

    # then
    assert len(qrels) == 12
    assert {q.relevance for q in qrels} == {2, 1}


def test_its_sheet_has_one_column_per_assessor_beside_the_final_label(
    made: zipfile.ZipFile, world: ReviewWorld
) -> None:
    # when
    rows = list(csv.DictReader(io.StringIO(made.read("judgments.csv").decode())))

    # then
    assert f"assessor:{world.alice.username}" in rows[0]
    reviewed = [r for r in rows if r["final_label"] == "PS"]
    assert len(reviewed) == 2
    assert {(r[f"assessor:{world.alice.username}"], r[f"assessor:{world.bob.username}"]) for r in reviewed} == {
        ("FS", "NS")
    }
    assert {r["final_reason"] for r in reviewed} == {"half of it"}
    flagged = [r for r in rows if r["flagged_by"]]
    assert {r["comments"] for r in flagged} == {f"{world.bob.username}: passage cut short"}
    assert any(r["cannot_judge_reasons"] == f"{world.bob.username}: passage is not in English" for r in rows)


def test_the_campaign_button_downloads_the_zip_for_organizers_only(world: ReviewWorld) -> None:
    # given
    url = f"/metrics/campaigns/{world.campaign.pk}/deliverables.zip"
    organizer, assessor = Client(), Client()
    organizer.force_login(OrganizerFactory())
    assessor.force_login(world.alice)

    # when
    response = organizer.post(url, {"labels": "final/deliv"})

    # then
    assert response.status_code == 200
    assert response["Content-Type"] == "application/zip"
    made = zipfile.ZipFile(io.BytesIO(b"".join(response.streaming_content)))
    assert "manifest.json" in made.namelist()
    assert assessor.post(url, {"labels": "final/deliv"}).status_code == 403
    assert organizer.post(url, {"labels": "final/none"}).status_code == 302  # back to the page with the error


def test_the_button_streams_a_zip_whose_files_match_its_manifest(world: ReviewWorld) -> None:
    # given
    organizer = Client()
    organizer.force_login(OrganizerFactory())

    # when
    response = organizer.post(f"/metrics/campaigns/{world.campaign.pk}/deliverables.zip", {"labels": "final/deliv"})

    # then: sent in several pieces, as written, and whole
    pieces = list(response.streaming_content)
    assert response.streaming
    assert len(pieces) > 1
    made = zipfile.ZipFile(io.BytesIO(b"".join(pieces)))
    listed = {f["name"]: f["sha256"] for f in json.loads(made.read("manifest.json"))["files"]}
    assert {name: hashlib.sha256(made.read(name)).hexdigest() for name in listed} == listed
    assert set(listed) == set(made.namelist()) - {"manifest.json"}
    assert made.testzip() is None
