"""bench/soak.py's platform processes: its own redis-server, stopping a process and what it left behind, each
process's memory by role, and a sampler of the database's connections and the load average."""

from __future__ import annotations

import contextlib
import os
import shutil
import signal
import socket
import subprocess
import tempfile
import threading
import time
from pathlib import Path

from judge_server import children


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class OwnRedis:
    """A redis-server of the soak's own, on a free port, its append-only file in a temporary folder."""

    def __init__(self) -> None:
        self.port = free_port()
        self.dir = tempfile.mkdtemp(prefix="assess-soak-redis-")
        self.proc: subprocess.Popen[bytes] | None = None
        self.restarts = 0

    @property
    def url(self) -> str:
        return f"redis://127.0.0.1:{self.port}/0"

    def start(self) -> None:
        cmd = ["redis-server", "--port", str(self.port), "--bind", "127.0.0.1", "--dir", self.dir]
        cmd += ["--appendonly", "yes", "--appendfsync", "everysec", "--save", "", "--loglevel", "warning"]
        self.proc = subprocess.Popen(cmd, stdout=subprocess.DEVNULL)
        deadline = time.monotonic() + 20
        while time.monotonic() < deadline:
            try:
                with socket.create_connection(("127.0.0.1", self.port), timeout=1) as s:
                    s.sendall(b"PING\r\n")
                    if s.recv(16).startswith(b"+PONG"):
                        return
            except OSError:
                time.sleep(0.1)
        raise SystemExit("the soak's redis-server did not start")

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()  # redis-server writes its append-only file out and exits
            self.proc.wait(timeout=30)

    def restart(self, down_seconds: float) -> None:
        self.stop()
        time.sleep(down_seconds)
        self.start()
        self.restarts += 1

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)


def stop(proc: subprocess.Popen[bytes]) -> None:
    """Ask a process to stop; kill it if it has not within 15 s (a Celery worker's warm shutdown waits for its
    task, a pre-label chunk that may take a while)."""
    descendants = children(proc.pid)
    proc.terminate()
    try:
        proc.wait(timeout=15)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait(timeout=15)
    for pid in descendants:  # a pool process its killed parent left behind
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGKILL)


def rss_mb(pid: int) -> float | None:
    try:
        for line in Path(f"/proc/{pid}/status").read_text().splitlines():
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    except OSError:
        return None
    return None


def processes(roles: dict[str, int], extra: dict[str, list[int]]) -> dict[str, int]:
    """Each process of the platform by a role name: the masters, their children, and the given lists."""
    out: dict[str, int] = {}
    for role, pid in roles.items():
        out[role] = pid
        for k, child in enumerate(children(pid)):
            out[f"{role} child {k + 1} (pid {child})"] = child
    for role, pids in extra.items():
        for k, pid in enumerate(pids):
            out[f"{role} {k + 1}"] = pid
    return out


class Sampler(threading.Thread):
    """Each second: the connections to the soak's database, and the load average."""

    def __init__(self, admin_url: str, database: str) -> None:
        super().__init__(daemon=True)
        self.admin_url, self.database = admin_url, database
        self.stopping = threading.Event()
        self.connections: list[int] = []
        self.load: list[float] = []

    def run(self) -> None:
        import psycopg

        with psycopg.connect(self.admin_url, autocommit=True) as conn:
            while not self.stopping.wait(1.0):
                row = conn.execute(
                    "SELECT count(*) FROM pg_stat_activity WHERE datname = %s AND pid <> pg_backend_pid()",
                    [self.database],
                ).fetchone()
                self.connections.append(int(row[0]) if row else 0)
                self.load.append(os.getloadavg()[0])
