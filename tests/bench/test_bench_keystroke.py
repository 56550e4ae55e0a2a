"""bench/keystroke.py end to end on a tiny run: real gunicorn, real Chromium, judge.py's load, its checks."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.bench


def test_the_keystroke_benchmark_measures_every_key_and_finds_each_judgment_stored_once():
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        pytest.skip("the benchmark runs against PostgreSQL (make test sets DATABASE_URL)")
    env = {
        **os.environ,
        "BENCH_KEYSTROKE_DATABASE_URL": database_url.rsplit("/", 1)[0] + "/assess_bench_keystroke_smoke",
        # Its own Redis database: the benchmark empties it.
        "BENCH_KEYSTROKE_REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15").rsplit("/", 1)[0] + "/13",
    }
    args = ["--keys", "6", "--interval", "0.2", "--load", "paced", "--assessors", "2", "--rate", "10"]
    args += ["--topics", "2", "--workers", "1"]
    done = subprocess.run(
        [sys.executable, "bench/keystroke.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=600
    )
    assert done.returncode == 0, done.stderr[-3000:]
    assert "the browser's assessor: ok: 6 keystrokes, 6 judgments stored on 6 pairs" in done.stdout
    assert re.search(r"N=2 paced 10/s: load \d+ judgments.*stored ok:", done.stdout), done.stdout
    row = re.search(r"\| N=2 paced 10/s \| [\d.]+ / [\d.]+ / [\d.]+ \| ([\d.]+) / ([\d.]+) / ([\d.]+) \|", done.stdout)
    assert row, done.stdout
    median, p95, top = (float(x) for x in row.groups())
    assert 0 < median <= p95 <= top
