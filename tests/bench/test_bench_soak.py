"""bench/soak.py end to end on a very short run: real gunicorn, its own Redis restarted, a worker killed, a Celery
worker pre-labelling; every acknowledged judgment stored once (issue 22, point 5)."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[2]

pytestmark = pytest.mark.bench


def test_the_soak_loses_and_doubles_nothing_through_a_killed_worker_and_a_redis_restart(tmp_path):
    database_url = os.environ.get("DATABASE_URL", "")
    if not database_url.startswith("postgres"):
        pytest.skip("the soak runs against PostgreSQL (make test sets DATABASE_URL)")
    # given
    out = tmp_path / "soak.json"
    env = {**os.environ, "BENCH_SOAK_DATABASE_URL": database_url.rsplit("/", 1)[0] + "/assess_bench_soak_smoke"}
    args = ["--minutes", "0.3", "--assessors", "5", "--topics", "3", "--workers", "2", "--celery", "1"]

    # when
    done = subprocess.run(
        [sys.executable, "bench/soak.py", *args, "--json", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=1800,  # its set-up (migrate, the data) takes minutes on a busy machine
    )

    # then
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    figures = json.loads(out.read_text())
    assert figures["judgments"]["acknowledged"] > 0
    assert figures["judgments"]["stored"] == figures["judgments"]["acknowledged"]
    assert (figures["lost"], figures["doubled"], figures["given_up"]) == (0, 0, 0)
    assert figures["worker_killed"] is True
    assert figures["redis_restarts"] == 1
    assert figures["pg_connections_peak"] > 0
    assert 0 < figures["submit_ms"]["p50"] <= figures["submit_ms"]["p95"] <= figures["submit_ms"]["p99"]
    assert "judgments:" in done.stdout
    assert "responses by status:" in done.stdout
