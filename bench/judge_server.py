"""bench/judge.py's platform: gunicorn started with the deployed settings, the environment it runs in, and the CPU
time of its processes (and PostgreSQL's and Redis's) read from /proc."""

from __future__ import annotations

import http.client
import os
import random
import subprocess
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def process_cpu(pids: list[int]) -> dict[int, float]:
    """CPU seconds of each process still alive."""
    out = {}
    for pid in pids:
        try:
            fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        except OSError:
            continue
        out[pid] = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return out


def cpu_since(before: dict[int, float], after: dict[int, float]) -> float:
    """CPU used between the two readings by the processes alive at the second (a process that ended in between,
    such as a database connection closed after CONN_MAX_AGE, is not counted: the figure is a lower bound)."""
    return sum(cpu - before.get(pid, 0.0) for pid, cpu in after.items())


def pids_named(name: str) -> list[int]:
    out = []
    for p in Path("/proc").iterdir():
        if p.name.isdigit():
            try:
                if (p / "comm").read_text().strip() == name:
                    out.append(int(p.name))
            except OSError:
                continue
    return out


def children(pid: int) -> list[int]:
    try:
        return [int(c) for c in Path(f"/proc/{pid}/task/{pid}/children").read_text().split()]
    except OSError:
        return []


def gunicorn_start(
    port: int, workers: int, server: str, worker_class: str, threads: int, start_seconds: float = 60.0
) -> subprocess.Popen[bytes]:
    """gunicorn with the deployed settings (config/gunicorn.py), on a loopback port, with the workers asked for;
    given `start_seconds` to answer (a busy machine needs more)."""
    cmd = [str(ROOT / ".venv" / "bin" / "gunicorn"), "-c", "config/gunicorn.py", "--bind", f"127.0.0.1:{port}"]
    cmd += ["--workers", str(workers)]
    if server == "asgi":
        cmd += ["--worker-class", "uvicorn_worker.UvicornWorker", "config.asgi:application"]
    else:
        cmd += ["--worker-class", worker_class, "--threads", str(threads)]
    env = {**os.environ, "GUNICORN_ACCESS_LOG": ""}
    if server == "asgi" or threads > 1:
        env["DB_POOL"] = "true"
    server = subprocess.Popen(cmd, cwd=ROOT, env=env)
    deadline = time.monotonic() + start_seconds
    while time.monotonic() < deadline:
        try:
            c = http.client.HTTPConnection("127.0.0.1", port, timeout=2)
            c.request("GET", "/accounts/login/")
            if c.getresponse().status == 200:
                break
        except OSError:
            time.sleep(0.2)
    else:
        server.kill()
        raise SystemExit("gunicorn did not start")
    # Each worker imports the URLconf and the apps on its first request: not measured.
    for _ in range(workers * 4):
        c = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
        c.request("GET", "/accounts/login/")
        c.getresponse().read()
    return server


def server_environment(database_url: str, redis_url: str, name: str) -> None:
    """The environment a benchmark's Django and gunicorn run in: production settings on the bench's own database
    and Redis db, no eager tasks, no request log."""
    os.environ.update(
        DATABASE_URL=database_url,
        REDIS_URL=redis_url,
        DJANGO_SETTINGS_MODULE="config.settings",
        DEBUG="false",
        SECRET_KEY=f"{name}-{random.getrandbits(64):x}",
        ALLOWED_HOSTS="127.0.0.1,localhost",
        LOG_LEVEL="WARNING",
        CELERY_TASK_ALWAYS_EAGER="false",
        # A closed loop submits as fast as the server answers, far above any person: it measures the server,
        # not the API's per-user throttle (docs/operations.md, "Logins").
        API_THROTTLE_USER="1000000/min",
    )
