"""A day under load (issue 22, point 5): assessors at a human pace for minutes on end, while the platform is hurt.

    python bench/soak.py [--minutes 20] [--assessors 50] [--workers 4] [--topics 60] [--json FILE]

The platform as deployed: gunicorn (`config/gunicorn.py`: sync workers on `config.wsgi`) + PostgreSQL + a Redis of
its own + a Celery worker that pre-labels another campaign all along, against the loopback fake OpenAI-compatible
server (`tests/fake_openai.py`, `--llm-latency` per call). Meanwhile `--assessors` simulated assessors, each logged
in through the login page with a real session, judge on the judging page at a human pace: one judgment every 5 to
20 seconds (uniformly drawn), and now and then a burst of fast keys (3 to 8 judgments a quarter to half a second
apart). Before about one judgment in five an assessor (re)loads the judging page, as after a pause; that is the
"next card" figure, the htmx submit (whose response is the next card) the "submit" one.

During the run one gunicorn worker is SIGKILLed (at 40 % of the run; the master starts another) and Redis is
restarted once (at 65 %, down for `--redis-down` seconds; its append-only file keeps the broker's queue). An
assessor does what the judging page does with a failed submit: it sends the same card (the same submission token)
again, after a short wait, until it is answered (503s and dropped connections are counted by status); a latency
is counted from the first send to the answer.

It prints judgments acknowledged vs stored (equal, none doubled), p50/p95/p99 of submit and of next card,
responses by status, the peak of PostgreSQL connections to its database (`pg_stat_activity`, sampled each second),
the pre-labelling done meanwhile, each process's memory (RSS) at start and end, and the load average. Exit status 0
when none is lost, none doubled, and the kill and the Redis restart happened.

Its own database (BENCH_SOAK_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/assess_soak, dropped and
created) and its own Redis server on a free port (a temporary folder; the machine's Redis is never touched). The
data, the server environment and the gunicorn start are bench/judge.py's; the pre-label campaign and the Celery
worker bench/prelabel.py's.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import http.client
import json
import math
import multiprocessing as mp
import os
import random
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import threading
import time
import urllib.parse
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import judge as load  # noqa: E402  (bench/judge.py: the data, the server environment, gunicorn, the assessor's HTTP)
import prelabel  # noqa: E402  (bench/prelabel.py: the pre-label campaign, the fake LLM server, the Celery worker)

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_soak"
GOAL_P95_SUBMIT_MS = 50.0
PACE_SECONDS = (5.0, 20.0)
BURST_PROBABILITY = 0.08
BURST_LENGTH = (3, 8)
BURST_GAP_SECONDS = (0.25, 0.5)
PAGE_LOAD_PROBABILITY = 0.2
GIVE_UP_SECONDS = 120.0  # a card unanswered this long is given up (not acknowledged; counted)
ASSESSORS_PER_PROCESS = 10
KILL_AT, REDIS_AT = 0.40, 0.65


# --- the simulated assessor -------------------------------------------------------------------------


@dataclass
class Outcome:
    submit_ms: list[float] = field(default_factory=list)
    next_ms: list[float] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)
    statuses: Counter[str] = field(default_factory=Counter)
    given_up: int = 0
    ran_out: int = 0
    errors: list[str] = field(default_factory=list)


def answered(statuses: Counter[str], send: Any) -> tuple[int, Any]:
    """Send until the platform answers 200 (the judging page's own retry): a 503 or a dropped connection is counted
    and sent again after a short wait. Returns the status and what `send` returned."""
    first = time.time()
    wait = 0.5
    while True:
        try:
            status, value = send()
            statuses[str(status)] += 1
        except (OSError, http.client.HTTPException, RuntimeError) as exc:
            # A dropped connection (a worker killed mid-request), or a page that failed on the way (RuntimeError).
            statuses[type(exc).__name__] += 1
            status, value = 0, None
        if status == 200 or (status not in (0, 502, 503, 504)):
            return status, value
        if time.time() - first > GIVE_UP_SECONDS:
            return status, value
        time.sleep(wait)
        wait = min(wait * 1.5, 3.0)


def reload_card(b: load.Browser, assignment: int) -> tuple[int, load.Card | None]:
    """The judging page, as a reload shows it: its status, and the card on it."""
    status, body, _ = b.request("GET", f"/judge/{assignment}/")
    return status, (load.parse_page(body, assignment, b) if status == 200 else None)


def signed_in(username: str, url: str) -> tuple[load.Browser, load.Card | None]:
    """Log in through the login page and open the queue's first card, before the clock starts (fifty password
    hashes at once on a busy machine take minutes: not measured). A timeout or a refusal is tried again."""
    u = urllib.parse.urlsplit(url)
    for attempt in range(10):
        b = load.Browser(u.hostname or "127.0.0.1", u.port or 80)
        try:
            load.login(b, username)
            return b, load.first_card_page(b)
        except (OSError, http.client.HTTPException, RuntimeError, SystemExit):
            time.sleep(1.0 + attempt)
    raise RuntimeError(f"{username} could not log in")


def one_assessor(
    username: str, b: load.Browser, card: load.Card | None, start_at: float, stop_at: float, out: Outcome
) -> None:
    """Judge at a human pace until the end: the judging page's htmx submit, whose response is the next card, and
    now and then a reload of the judging page."""
    rng = random.Random(username)
    # Assessors do not start in step: the first judgment comes some seconds after the common start.
    due = start_at + rng.uniform(0.0, min(PACE_SECONDS[1], (stop_at - start_at) / 4))
    burst = 0
    while card is not None:
        if due >= stop_at:
            break
        time.sleep(max(0.0, due - time.time()))
        if rng.random() < PAGE_LOAD_PROBABILITY and burst == 0:
            sent = time.time()
            status, reloaded = answered(out.statuses, functools.partial(reload_card, b, card.assignment))
            if status == 200:
                out.next_ms.append((time.time() - sent) * 1000)
                card = reloaded
                if card is None:
                    break
        sent = time.time()
        this = card
        status, nxt = answered(out.statuses, functools.partial(load.submit_page, b, this, rng.choice(load.LABELS)))
        if status != 200:
            out.given_up += 1
            out.errors.append(f"{username}: submit answered {status}")
            break
        out.submit_ms.append((time.time() - sent) * 1000)
        out.acknowledged.append(this.token)
        card = nxt
        if burst:
            burst -= 1
        elif rng.random() < BURST_PROBABILITY:
            burst = rng.randint(*BURST_LENGTH)
        gap = rng.uniform(*BURST_GAP_SECONDS) if burst else rng.uniform(*PACE_SECONDS)
        due = time.time() + gap
    if card is None:
        out.ran_out += 1


def assessor_group(usernames: list[str], url: str, start: Any, seconds: float, ready: Any, out: Any) -> None:
    """One process of several assessors, a thread each (at a human pace one process carries ten easily)."""
    outcomes = [Outcome() for _ in usernames]
    sessions: list[tuple[load.Browser, load.Card | None] | None] = [None] * len(usernames)

    def sign_in(k: int) -> None:
        try:
            sessions[k] = signed_in(usernames[k], url)
        except RuntimeError as exc:
            outcomes[k].errors.append(str(exc))

    for k in range(len(usernames)):  # one at a time in each process: a queue of logins would time out
        sign_in(k)
    ready.put(os.getpid())
    while not start.value:
        time.sleep(0.01)

    def run(k: int) -> None:
        session = sessions[k]
        if session is None:
            return
        try:
            one_assessor(usernames[k], *session, start.value, start.value + seconds, outcomes[k])
        except Exception as exc:  # reported, not hidden: the run fails on it
            outcomes[k].errors.append(f"{usernames[k]}: {type(exc).__name__}: {exc}")

    threads = [threading.Thread(target=run, args=(k,)) for k in range(len(usernames))]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    total = Outcome()
    for o in outcomes:
        total.submit_ms += o.submit_ms
        total.next_ms += o.next_ms
        total.acknowledged += o.acknowledged
        total.statuses.update(o.statuses)
        total.given_up += o.given_up
        total.ran_out += o.ran_out
        total.errors += o.errors
    out.put(total)


# --- the platform's processes -----------------------------------------------------------------------


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
    descendants = load.children(proc.pid)
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
        for k, child in enumerate(load.children(pid)):
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


def quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else [values[0]] * 99
    return {"n": len(values), "p50": q[49], "p95": q[94], "p99": q[98], "max": max(values)}


# --- the run ----------------------------------------------------------------------------------------


def main(argv: list[str] | None = None) -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--minutes", type=float, default=20.0, help="length of the run (default 20)")
    ap.add_argument("--assessors", type=int, default=50, help="simulated assessors (default 50)")
    ap.add_argument(
        "--workers", type=int, default=4, help="gunicorn workers (default 4: config/gunicorn.py's on 2 cores)"
    )
    ap.add_argument("--topics", type=int, default=60, help="real test topics in the judged campaign (default 60)")
    ap.add_argument("--celery", type=int, default=2, help="Celery worker processes (default 2)")
    ap.add_argument("--llm-latency", type=float, default=0.5, help="seconds per fake LLM call (default 0.5)")
    ap.add_argument("--llm-concurrency", type=int, default=4, help="the LLM judge's concurrency (default 4)")
    ap.add_argument("--redis-down", type=float, default=3.0, help="seconds Redis stays down (default 3)")
    ap.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    ap.add_argument("--json", help="also write the figures to this file")
    a = ap.parse_args(argv)
    seconds = a.minutes * 60

    redis = OwnRedis()
    redis.start()
    database_url = os.environ.get("BENCH_SOAK_DATABASE_URL", DEFAULT_DB)
    load.server_environment(database_url, redis.url, "bench-soak")
    sys.path.insert(0, str(ROOT))
    parent, child = mp.Pipe()
    llm_server = mp.get_context("spawn").Process(target=prelabel.serve, args=(a.llm_latency, child), daemon=True)
    server = worker = None
    try:
        t0 = time.monotonic()
        load.setup_database(database_url)
        import django

        django.setup()
        made = load.populate(a.topics, [a.assessors])
        accounts = made["accounts"][a.assessors]
        # The pre-label campaign: as many pairs as the fake LLM's ceiling gets through in the run, and a tenth more.
        pairs = max(50, math.ceil(seconds * a.llm_concurrency / a.llm_latency * 1.1))
        campaign = prelabel.campaign_build("soak-prelabel", pairs)
        from django.db import connections

        connections.close_all()
        print(
            f"data: {a.topics} real topics, {made['pairs']} pairs to judge, {a.assessors} assessors, {pairs} pairs to"
            f" pre-label; set up in {time.monotonic() - t0:.1f} s",
            file=sys.stderr,
        )
        llm_server.start()
        base_url = parent.recv()
        worker = prelabel.worker_start(a.celery, database_url, redis.url, base_url, start_seconds=300)
        port = a.port or free_port()
        server = load.gunicorn_start(port, a.workers, "wsgi", "sync", 1, start_seconds=180)
        url = f"http://127.0.0.1:{port}"

        ctx = mp.get_context("spawn")
        start, ready, out = ctx.Value("d", 0.0), ctx.Queue(), ctx.Queue()
        groups = [accounts[k : k + ASSESSORS_PER_PROCESS] for k in range(0, len(accounts), ASSESSORS_PER_PROCESS)]
        procs = [ctx.Process(target=assessor_group, args=(g, url, start, seconds, ready, out)) for g in groups]
        for p in procs:
            p.start()
        assessor_pids = [ready.get(timeout=1200) for _ in procs]
        roles = {"gunicorn master": server.pid, "celery worker": worker.pid, "redis-server": redis.proc.pid}  # type: ignore[union-attr]
        extra = {
            "fake LLM server": [llm_server.pid or 0],
            "soak driver": [os.getpid()],
            "assessor process": assessor_pids,
        }
        before = {role: rss_mb(pid) for role, pid in processes(roles, extra).items()}
        sampler = Sampler(database_url.rsplit("/", 1)[0] + "/postgres", database_url.rsplit("/", 1)[1])
        sampler.start()
        load_before = os.getloadavg()

        from judging.llm import jobs, services
        from judging.llm.models import LLMResult, PrelabelJob, Provider

        llm = services.llm_judge_create(
            name="soak-llm",
            model="bench",
            provider=Provider.COMPATIBLE,
            base_url=base_url,
            max_concurrency=a.llm_concurrency,
        )
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
        connections.close_all()
        start_at = time.time() + 1.0
        start.value = start_at
        print(f"soak: {a.minutes:g} min from {time.strftime('%H:%M:%S', time.gmtime(start_at))} UTC", file=sys.stderr)

        # The faults, at their moments.
        events: list[str] = []
        time.sleep(max(0.0, start_at + KILL_AT * seconds - time.time()))
        victims = load.children(server.pid)
        if victims:
            victim = random.Random(7).choice(victims)
            os.kill(victim, signal.SIGKILL)
            events.append(f"{time.time() - start_at:7.1f} s: gunicorn worker {victim} SIGKILLed")
            print(events[-1], file=sys.stderr)
        time.sleep(max(0.0, start_at + REDIS_AT * seconds - time.time()))
        old = redis.proc.pid  # type: ignore[union-attr]
        redis.restart(a.redis_down)
        events.append(
            f"{time.time() - start_at:7.1f} s: redis-server {old} stopped, restarted after {a.redis_down:g} s as"
            f" {redis.proc.pid}"  # type: ignore[union-attr]
        )
        print(events[-1], file=sys.stderr)
        roles["redis-server"] = redis.proc.pid  # type: ignore[union-attr]

        results: list[Outcome] = [out.get(timeout=seconds + 2 * GIVE_UP_SECONDS + 300) for _ in procs]
        ended = time.time()
        after = {role: rss_mb(pid) for role, pid in processes(roles, extra).items()}
        load_after = os.getloadavg()
        sampler.stopping.set()
        sampler.join(timeout=5)
        for p in procs:
            p.join(timeout=30)

        total = Outcome()
        for r in results:
            total.submit_ms += r.submit_ms
            total.next_ms += r.next_ms
            total.acknowledged += r.acknowledged
            total.statuses.update(r.statuses)
            total.given_up += r.given_up
            total.ran_out += r.ran_out
            total.errors += r.errors
        stored = load.stored_counts(accounts, total.acknowledged)
        job = PrelabelJob.objects.get(pk=job.pk)
        labelled = LLMResult.objects.filter(judge=llm.judge, status="labelled").count()
        connections.close_all()
    finally:
        for proc in (server, worker):
            if proc is not None:
                stop(proc)
        if llm_server.is_alive():
            parent.send("stop")
            llm_server.join(timeout=5)
        redis.remove()

    killed = any("SIGKILL" in e for e in events)
    lost = stored["missing"]
    doubled = stored["doubled"] + stored["acknowledged_twice"]
    ok = lost == 0 and doubled == 0 and stored["not_acknowledged"] == 0 and killed and redis.restarts == 1
    ok = ok and not total.errors and total.given_up == 0
    figures = {
        "minutes": a.minutes,
        "assessors": a.assessors,
        "workers": a.workers,
        "ran_seconds": ended - start_at,
        "judgments": stored,
        "lost": lost,
        "doubled": doubled,
        "given_up": total.given_up,
        "ran_out": total.ran_out,
        "submit_ms": quantiles(total.submit_ms),
        "next_card_ms": quantiles(total.next_ms),
        "statuses": dict(sorted(total.statuses.items())),
        "pg_connections_peak": max(sampler.connections, default=0),
        "pg_connections_samples": len(sampler.connections),
        "worker_killed": killed,
        "redis_restarts": redis.restarts,
        "events": events,
        "prelabel": {"pairs": pairs, "labelled": labelled, "job_status": job.status},
        "rss_mb": {role: [before.get(role), after.get(role)] for role in sorted(set(before) | set(after))},
        "load_average": {
            "before": load_before,
            "after": load_after,
            "mean_1min": statistics.fmean(sampler.load) if sampler.load else 0.0,
            "max_1min": max(sampler.load, default=0.0),
        },
        "cores": os.cpu_count(),
        "errors": total.errors[:20],
        "ok": ok,
    }
    report(figures)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0 if ok else 1


def report(f: dict[str, Any]) -> None:
    j = f["judgments"]
    print(
        f"\nbench/soak.py: {f['assessors']} assessors for {f['minutes']:g} min ({f['ran_seconds']:.0f} s), gunicorn"
        f" {f['workers']} sync workers (config/gunicorn.py), PostgreSQL, its own Redis, a Celery worker pre-labelling,"
        f" {f['cores']} cores"
    )
    la = f["load_average"]
    print(
        f"load average (1 min): {la['before'][0]:.2f} at the start, {la['after'][0]:.2f} at the end, mean"
        f" {la['mean_1min']:.2f}, max {la['max_1min']:.2f}"
    )
    print(
        f"judgments: {j['acknowledged']} acknowledged, {j['stored']} stored; {f['lost']} lost, {f['doubled']} doubled,"
        f" {j['not_acknowledged']} stored but not acknowledged; {f['given_up']} cards given up"
    )
    for name, key in (("submit", "submit_ms"), ("next card", "next_card_ms")):
        q = f[key]
        print(
            f"{name:>9}: {q['n']:>6} answered  p50 {q['p50']:7.1f}  p95 {q['p95']:7.1f}  p99 {q['p99']:7.1f}"
            f"  max {q['max']:8.1f} ms"
        )
    print("responses by status: " + ", ".join(f"{k}: {v}" for k, v in f["statuses"].items()))
    print(
        f"PostgreSQL connections to the soak's database: peak {f['pg_connections_peak']} ({f['pg_connections_samples']} samples)"
    )
    for e in f["events"]:
        print(f"event: {e}")
    p = f["prelabel"]
    print(f"pre-labelled meanwhile: {p['labelled']} of {p['pairs']} pairs (job {p['job_status']})")
    print("memory (RSS MB) at start -> end:")
    for role, (start, end) in f["rss_mb"].items():
        fmt = lambda v: "  -  " if v is None else f"{v:6.1f}"  # noqa: E731
        print(f"  {role:<40} {fmt(start)} -> {fmt(end)}")
    for e in f["errors"]:
        print(f"  error: {e}")
    verdict = "met" if f["ok"] and f["submit_ms"]["p95"] <= GOAL_P95_SUBMIT_MS else "not met"
    print(
        f"goal: 0 lost, 0 doubled, p95 submit <= {GOAL_P95_SUBMIT_MS:g} ms -> {verdict}"
        f" (p95 submit {f['submit_ms']['p95']:.1f} ms)"
    )


if __name__ == "__main__":
    sys.exit(main())
