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
import json
import math
import multiprocessing as mp
import os
import random
import signal
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
import judge as load  # noqa: E402  (bench/judge.py: the data, the server environment, gunicorn, the assessor's HTTP)
import prelabel  # noqa: E402  (bench/prelabel.py: the pre-label campaign, the fake LLM server, the Celery worker)
from soak_assessor import GIVE_UP_SECONDS, Outcome, assessor_group  # noqa: E402
from soak_platform import OwnRedis, Sampler, free_port, processes, rss_mb, stop  # noqa: E402

DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_soak"
GOAL_P95_SUBMIT_MS = 50.0
ASSESSORS_PER_PROCESS = 10
KILL_AT, REDIS_AT = 0.40, 0.65


def quantiles(values: list[float]) -> dict[str, float]:
    if not values:
        return {"n": 0, "p50": 0.0, "p95": 0.0, "p99": 0.0, "max": 0.0}
    q = statistics.quantiles(values, n=100, method="inclusive") if len(values) > 1 else [values[0]] * 99
    return {"n": len(values), "p50": q[49], "p95": q[94], "p99": q[98], "max": max(values)}


# --- the run ----------------------------------------------------------------------------------------


@dataclass
class Platform:
    """What the soak started, and where it answers: the Celery worker, gunicorn, the fake LLM server."""

    worker: subprocess.Popen[bytes] | None = None
    server: subprocess.Popen[bytes] | None = None
    url: str = ""
    llm_url: str = ""


@dataclass
class Run:
    """What the run measured."""

    pairs: int  # pairs to pre-label
    start_at: float
    ended: float
    total: Outcome
    stored: dict[str, int]
    events: list[str]
    rss_before: dict[str, float | None]
    rss_after: dict[str, float | None]
    load_before: tuple[float, float, float]
    load_after: tuple[float, float, float]
    sampler: Sampler
    labelled: int
    job_status: str


def main(argv: list[str] | None = None) -> int:
    a = arguments(argv)
    redis = OwnRedis()
    redis.start()
    database_url = os.environ.get("BENCH_SOAK_DATABASE_URL", DEFAULT_DB)
    load.server_environment(database_url, redis.url, "bench-soak")
    sys.path.insert(0, str(ROOT))
    parent, child = mp.Pipe()
    llm_server = mp.get_context("spawn").Process(target=prelabel.serve, args=(a.llm_latency, child), daemon=True)
    platform = Platform()
    try:
        run = soak(a, database_url, redis, llm_server, parent, platform)
    finally:
        for proc in (platform.server, platform.worker):
            if proc is not None:
                stop(proc)
        if llm_server.is_alive():
            parent.send("stop")
            llm_server.join(timeout=5)
        redis.remove()
    figures = figures_of(a, run, redis)
    report(figures)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(json.dumps(figures, indent=1) + "\n")
    return 0 if figures["ok"] else 1


def arguments(argv: list[str] | None) -> argparse.Namespace:
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
    return ap.parse_args(argv)


def soak(
    a: argparse.Namespace, database_url: str, redis: OwnRedis, llm_server: Any, llm_pipe: Any, platform: Platform
) -> Run:
    """The data, the platform (recorded in `platform` as it starts, for the caller to stop), the assessors for
    `--minutes`, the faults at their moments, and what was stored."""
    seconds = a.minutes * 60
    accounts, pairs, campaign = data_set_up(a, database_url)
    llm_server.start()
    platform.llm_url = llm_pipe.recv()
    platform.worker = prelabel.worker_start(a.celery, database_url, redis.url, platform.llm_url, start_seconds=300)
    port = a.port or free_port()
    platform.server = load.gunicorn_start(port, a.workers, "wsgi", "sync", 1, start_seconds=180)
    platform.url = f"http://127.0.0.1:{port}"
    start, out, procs, assessor_pids = assessors_start(accounts, platform.url, seconds)
    roles = {
        "gunicorn master": platform.server.pid,
        "celery worker": platform.worker.pid,
        "redis-server": redis.proc.pid,  # type: ignore[union-attr]
    }
    extra = {"fake LLM server": [llm_server.pid or 0], "soak driver": [os.getpid()], "assessor process": assessor_pids}
    before = {role: rss_mb(pid) for role, pid in processes(roles, extra).items()}
    sampler = Sampler(database_url.rsplit("/", 1)[0] + "/postgres", database_url.rsplit("/", 1)[1])
    sampler.start()
    load_before = os.getloadavg()
    llm_judge, job = prelabel_job_start(campaign, platform.llm_url, a.llm_concurrency)
    start_at = time.time() + 1.0
    start.value = start_at
    print(f"soak: {a.minutes:g} min from {time.strftime('%H:%M:%S', time.gmtime(start_at))} UTC", file=sys.stderr)
    events = faults(platform.server, redis, roles, start_at=start_at, seconds=seconds, redis_down=a.redis_down)
    results: list[Outcome] = [out.get(timeout=seconds + 2 * GIVE_UP_SECONDS + 300) for _ in procs]
    ended = time.time()
    after = {role: rss_mb(pid) for role, pid in processes(roles, extra).items()}
    load_after = os.getloadavg()
    sampler.stopping.set()
    sampler.join(timeout=5)
    for p in procs:
        p.join(timeout=30)
    total = Outcome.total(results)
    stored = load.stored_counts(accounts, total.acknowledged)
    labelled, job_status = prelabel_done(llm_judge, job)
    return Run(
        pairs=pairs,
        start_at=start_at,
        ended=ended,
        total=total,
        stored=stored,
        events=events,
        rss_before=before,
        rss_after=after,
        load_before=load_before,
        load_after=load_after,
        sampler=sampler,
        labelled=labelled,
        job_status=job_status,
    )


def data_set_up(a: argparse.Namespace, database_url: str) -> tuple[list[str], int, Any]:
    """The judged campaign and its assessors (bench/judge.py's data), and the pre-label campaign: as many pairs as
    the fake LLM's ceiling gets through in the run, and a tenth more. Returns the accounts, the pairs to
    pre-label and the pre-label campaign."""
    t0 = time.monotonic()
    load.setup_database(database_url)
    import django

    django.setup()
    made = load.populate(a.topics, [a.assessors])
    pairs = max(50, math.ceil(a.minutes * 60 * a.llm_concurrency / a.llm_latency * 1.1))
    campaign = prelabel.campaign_build("soak-prelabel", pairs)
    from django.db import connections

    connections.close_all()
    print(
        f"data: {a.topics} real topics, {made['pairs']} pairs to judge, {a.assessors} assessors, {pairs} pairs to"
        f" pre-label; set up in {time.monotonic() - t0:.1f} s",
        file=sys.stderr,
    )
    return made["accounts"][a.assessors], pairs, campaign


def assessors_start(accounts: list[str], url: str, seconds: float) -> tuple[Any, Any, list[Any], list[int]]:
    """The assessor processes, ten assessors each, every one signed in and waiting for the start. Returns the
    start (a shared value: set it to the start time), the queue of their outcomes, the processes and their pids."""
    ctx = mp.get_context("spawn")
    start, ready, out = ctx.Value("d", 0.0), ctx.Queue(), ctx.Queue()
    groups = [accounts[k : k + ASSESSORS_PER_PROCESS] for k in range(0, len(accounts), ASSESSORS_PER_PROCESS)]
    procs = [ctx.Process(target=assessor_group, args=(g, url, start, seconds, ready, out)) for g in groups]
    for p in procs:
        p.start()
    assessor_pids = [ready.get(timeout=1200) for _ in procs]
    return start, out, procs, assessor_pids


def prelabel_job_start(campaign: Any, llm_url: str, concurrency: int) -> tuple[Any, Any]:
    """The LLM judge on the fake server and its pre-label job of the campaign, which the Celery worker runs."""
    from django.db import connections

    from judging.llm import jobs, services
    from judging.llm.models import Provider

    llm = services.llm_judge_create(
        name="soak-llm",
        model="bench",
        provider=Provider.COMPATIBLE,
        base_url=llm_url,
        max_concurrency=concurrency,
    )
    job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
    connections.close_all()
    return llm, job


def faults(
    server: subprocess.Popen[bytes],
    redis: OwnRedis,
    roles: dict[str, int],
    *,
    start_at: float,
    seconds: float,
    redis_down: float,
) -> list[str]:
    """At KILL_AT of the run a gunicorn worker SIGKILLed, at REDIS_AT Redis restarted (its new pid in `roles`).
    Returns what happened, a line each."""
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
    redis.restart(redis_down)
    events.append(
        f"{time.time() - start_at:7.1f} s: redis-server {old} stopped, restarted after {redis_down:g} s as"
        f" {redis.proc.pid}"  # type: ignore[union-attr]
    )
    print(events[-1], file=sys.stderr)
    roles["redis-server"] = redis.proc.pid  # type: ignore[union-attr]
    return events


def prelabel_done(llm: Any, job: Any) -> tuple[int, str]:
    """The pairs the LLM judge labelled meanwhile, and its job's status."""
    from django.db import connections

    from judging.llm.models import LLMResult, PrelabelJob

    job = PrelabelJob.objects.get(pk=job.pk)
    labelled = LLMResult.objects.filter(judge=llm.judge, status="labelled").count()
    connections.close_all()
    return labelled, job.status


def figures_of(a: argparse.Namespace, run: Run, redis: OwnRedis) -> dict[str, Any]:
    total, stored, sampler = run.total, run.stored, run.sampler
    killed = any("SIGKILL" in e for e in run.events)
    lost = stored["missing"]
    doubled = stored["doubled"] + stored["acknowledged_twice"]
    ok = lost == 0 and doubled == 0 and stored["not_acknowledged"] == 0 and killed and redis.restarts == 1
    ok = ok and not total.errors and total.given_up == 0
    before, after = run.rss_before, run.rss_after
    return {
        "minutes": a.minutes,
        "assessors": a.assessors,
        "workers": a.workers,
        "ran_seconds": run.ended - run.start_at,
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
        "events": run.events,
        "prelabel": {"pairs": run.pairs, "labelled": run.labelled, "job_status": run.job_status},
        "rss_mb": {role: [before.get(role), after.get(role)] for role in sorted(set(before) | set(after))},
        "load_average": {
            "before": run.load_before,
            "after": run.load_after,
            "mean_1min": statistics.fmean(sampler.load) if sampler.load else 0.0,
            "max_1min": max(sampler.load, default=0.0),
        },
        "cores": os.cpu_count(),
        "errors": total.errors[:20],
        "ok": ok,
    }


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
