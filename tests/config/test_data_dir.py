"""The project carries its data (data/trec-rag-2024/) and reads no folder beside the checkout."""

from __future__ import annotations

import hashlib
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from assess.data import DataDirError, data_dir_check

ROOT = Path(__file__).resolve().parents[2]
DATA = ROOT / "data" / "trec-rag-2024"
ROW = re.compile(r"^\| `([^`]+)` \| ([\d,]+) \| `([0-9a-f]{64})` \|$")


def listed_checksums() -> dict[str, tuple[int, str]]:
    rows = {}
    for line in (DATA / "SOURCES.md").read_text(encoding="utf-8").splitlines():
        match = ROW.match(line)
        if match:
            rows[match.group(1)] = (int(match.group(2).replace(",", "")), match.group(3))
    return rows


def test_every_data_file_is_listed_in_sources_with_its_size_and_checksum():
    # given
    listed = listed_checksums()
    present = {p.relative_to(DATA).as_posix() for p in DATA.rglob("*") if p.is_file() and p.name != "SOURCES.md"}

    # then
    assert present == set(listed)
    for name, (size, digest) in listed.items():
        content = (DATA / name).read_bytes()
        assert (len(content), hashlib.sha256(content).hexdigest()) == (size, digest), name


def test_no_project_file_reads_a_folder_beside_the_checkout():
    # given every tracked file that runs (code, scripts, the Makefile, CI)
    tracked = subprocess.run(["git", "ls-files"], cwd=ROOT, capture_output=True, text=True, check=True).stdout.split()
    runnable = [
        f for f in tracked if f.endswith((".py", ".sh", ".yml", ".toml", ".cfg")) or f in ("Makefile", ".ci/run")
    ]
    pattern = re.compile(r"\.\./shared|parent\s*/\s*[\"']shared[\"']|parents\[\d\]\s*/\s*[\"']shared")

    # when
    offenders = [f for f in runnable if pattern.search((ROOT / f).read_text(encoding="utf-8", errors="replace"))]

    # then
    assert offenders == []


def test_a_missing_data_dir_is_one_line_naming_the_setting(tmp_path):
    with pytest.raises(DataDirError, match=r"^ASSESS_DATA_DIR=.* is not a directory"):
        data_dir_check(tmp_path / "nowhere")


def test_a_folder_that_is_not_the_set_is_refused_naming_the_setting(tmp_path):
    with pytest.raises(DataDirError, match=r"^ASSESS_DATA_DIR=.* holds no topics\.rag24\.test\.txt"):
        data_dir_check(tmp_path)


def test_the_repository_copy_is_the_default():
    assert data_dir_check(DATA) == DATA


def test_demo_load_on_a_wrong_data_dir_prints_one_line_and_exits_non_zero(tmp_path):
    # given
    env = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "REDIS_URL", "CELERY_BROKER_URL")}
    env.update(ASSESS_DATA_DIR=str(tmp_path / "missing"), DATA_DIR=str(tmp_path / "var"), DEBUG="true")

    (tmp_path / "var").mkdir()

    # when
    subprocess.run([sys.executable, "manage.py", "migrate", "-v0"], cwd=ROOT, env=env, check=True, timeout=120)
    done = subprocess.run(
        [sys.executable, "manage.py", "demo_load"], cwd=ROOT, env=env, capture_output=True, text=True, timeout=120
    )

    # then
    assert done.returncode != 0
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "ASSESS_DATA_DIR=" in lines[0]
    assert "Traceback" not in done.stderr
