"""bench/judge.py end to end on a tiny load: real gunicorn, real logins, its stored-once check, its figures."""

from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.bench


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def test_the_judging_benchmark_runs_and_finds_every_acknowledged_judgment_stored_once(tmp_path):
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        pytest.skip("the benchmark runs against PostgreSQL (make test sets DATABASE_URL)")
    out = tmp_path / "judge.json"
    env = {
        **os.environ,
        "BENCH_JUDGE_DATABASE_URL": database_url.rsplit("/", 1)[0] + "/assess_bench_judge_smoke",
        # Its own Redis database: the benchmark empties it.
        "BENCH_JUDGE_REDIS_URL": os.environ.get("REDIS_URL", "redis://127.0.0.1:6379/15").rsplit("/", 1)[0] + "/14",
    }
    args = ["--assessors", "1", "2", "--seconds", "1", "--rate", "20", "--topics", "3", "--workers", "1"]
    args += ["--port", str(_free_port()), "--json", str(out)]
    done = subprocess.run(
        [sys.executable, "bench/judge.py", *args], cwd=ROOT, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    phases = json.loads(out.read_text())
    assert [(p["n"], p["rate"]) for p in phases] == [(1, None), (2, None), (2, 20.0)]
    for p in phases:
        assert p["judgments"] > 0
        assert p["errors"] == 0
        assert p["stored"].startswith("ok:"), p["stored"]
        assert 0 < p["p50"] <= p["p95"] <= p["p99"]
    assert "| 2 | paced 20/s |" in done.stdout
