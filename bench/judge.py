"""Judging load: N simulated assessors doing submit-and-next against the platform's server and PostgreSQL.

    python bench/judge.py [--assessors 1 5 20] [--seconds 10] [--rate 100] [--via page|api]
                          [--server wsgi|asgi] [--worker-class sync|gthread] [--threads 1] [--workers 4]

Each simulated assessor is a separate process that logs in through the login page as its own assessor (a real
session cookie and CSRF token) and then does what the judging page does on each keystroke: one POST of the
label with the card's submission token, whose response is the next pair's card (the htmx partial with
`--via page`, the JSON of `POST /api/assignments/{id}/submit/` with `--via api`), parsed for the next pair and
token. An assessor works through their assignments in order, topic by topic, as the page does.

The server is the deployed one: gunicorn running Django alone (`config/gunicorn.py`: sync workers on
`config.wsgi`); `--worker-class gthread --threads K` and `--server asgi` (uvicorn workers on `config.asgi`)
measure the alternatives. Every request goes through Django's request cycle and middleware.

For each N it runs a closed loop (every assessor submits as soon as the previous response has arrived: the
most the platform serves), and then, at the largest N, an open loop paced at each `--rate` judgments per second in
all (each assessor at rate / N, latency counted from the scheduled send time, so a server that falls behind
is charged for the queue it builds). It prints p50 / p95 / p99 latency, judgments per second, CPU
milliseconds per judgment of the assessors' processes, the server (gunicorn and its workers), PostgreSQL and
Redis, checks in the database that every acknowledged judgment is stored exactly once and nothing else was
stored, and prints the ratios against Label Studio CE's figures under the same load on this kind of machine
(`bench/baselines/labelstudio/postgres-uwsgi.jsonl`, C = 20).

The data (created once per run in its own database, `BENCH_JUDGE_DATABASE_URL`, default
postgres://postgres@127.0.0.1:5432/assess_bench_judge, dropped and created): real TREC 2024 RAG test topics and,
for each, the 20 real MS MARCO V2.1 segments retrieved for it (webis-de/ir_axioms, see
data/trec-rag-2024/SOURCES.md); 40 runs of one 10-sentence answer per topic, each sentence citing one
of those segments (400 pairs a topic, near the 330-400 of NIST's judged topics); one from-scratch campaign at
depth 1. Each assessor has 8 topics; assessors of different N are different accounts.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing as mp
import os
import statistics
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))
# The data, the simulated assessor and the platform live beside this script; bench/keystroke.py, bench/soak.py and
# the fault tests use them through this module (`import judge as load`), so its names are kept here.
from judge_assessor import (  # noqa: E402, F401
    LABELS,
    Browser,
    Card,
    Result,
    assessor,
    card_page,
    first_card_page,
    login,
    parse_page,
    submit_page,
)
from judge_data import (  # noqa: E402, F401
    PASSWORD,
    TOPICS_PER_ASSESSOR,
    paced_accounts,
    populate,
    setup_database,
)
from judge_server import (  # noqa: E402
    children,
    cpu_since,
    gunicorn_start,
    pids_named,
    process_cpu,
    server_environment,
)

LABEL_STUDIO = ROOT / "bench" / "baselines" / "labelstudio" / "postgres-uwsgi.jsonl"
# The goals at N = 20 on this 2-core machine: closed-loop throughput, and p95 when paced at GOAL_PACED_RATE.
GOAL_PER_SECOND = 200.0
GOAL_PACED_RATE = 100.0
GOAL_P95_MS = 25.0
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench_judge"
DEFAULT_REDIS = "redis://127.0.0.1:6379/11"


@dataclass
class Phase:
    n: int
    mode: str
    seconds: float
    judgments: int
    errors: int
    ran_out: int
    p50: float
    p95: float
    p99: float
    cpu_ms: dict[str, float]
    rate: float | None = None

    @property
    def per_second(self) -> float:
        return self.judgments / self.seconds


def run_phase(
    accounts: list[str], url: str, via: str, seconds: float, rate: float | None, server_pid: int
) -> tuple[Phase, list[str]]:
    ctx = mp.get_context("spawn")
    out = ctx.Queue()
    start = ctx.Value("d", 0.0)
    n = len(accounts)
    interval = n / rate if rate else 0.0
    procs = [
        ctx.Process(target=assessor, args=(name, url, via, seconds, interval, k * interval / n, start, out))
        for k, name in enumerate(accounts)
    ]
    for p in procs:
        p.start()
    # Every process has started, logged in (a password hash each) and opened its first card before the clock and
    # the CPU counters start: none of that is measured. Then everyone begins at the same moment.
    for _ in procs:
        if out.get(timeout=300) != "ready":
            raise SystemExit("an assessor process failed before the start")
    time.sleep(0.5)
    start_at = time.time() + 0.2
    stop_at = start_at + seconds
    start.value = start_at
    while time.time() < start_at:
        time.sleep(0.005)
    cpu0 = platform_cpu(server_pid)
    results = collect(procs, out)
    cpu1 = platform_cpu(server_pid)
    for p in procs:
        p.join()
    cpu = {k: cpu_since(cpu0[k], cpu1[k]) for k in cpu0}
    phase = phase_of(results, cpu, n=n, rate=rate, start_at=start_at, stop_at=stop_at)
    for r in results:
        for e in r.errors[:3]:
            print(f"  error: {e}", file=sys.stderr)
    return phase, [t for r in results for t in r.acknowledged]


def platform_cpu(server_pid: int) -> dict[str, dict[int, float]]:
    """CPU seconds so far of each process of gunicorn's workers, PostgreSQL and Redis."""
    return {
        "gunicorn": process_cpu(children(server_pid)),
        "postgres": process_cpu(pids_named("postgres")),
        "redis": process_cpu(pids_named("redis-server")),
    }


def phase_of(
    results: list[Result], cpu: dict[str, float], *, n: int, rate: float | None, start_at: float, stop_at: float
) -> Phase:
    """The phase's figures from its assessors' results and the platform's CPU seconds."""
    lat = sorted(x for r in results for x in r.latencies)
    judged = len(lat)
    q = statistics.quantiles(lat, n=100, method="inclusive") if len(lat) > 1 else [lat[0] if lat else 0.0] * 99
    cpu = {**cpu, "assessors": sum(r.cpu for r in results)}
    return Phase(
        n=n,
        mode=f"paced {rate:g}/s" if rate else "closed loop",
        # Until the last response: a paced run whose server fell behind takes longer than planned.
        seconds=max([r.ended for r in results] + [stop_at]) - start_at,
        judgments=judged,
        errors=sum(len(r.errors) for r in results),
        ran_out=sum(r.ran_out for r in results),
        p50=q[49] * 1000,
        p95=q[94] * 1000,
        p99=q[98] * 1000,
        cpu_ms={k: 1000 * v / max(judged, 1) for k, v in cpu.items()},
        rate=rate,
    )


def collect(procs: list[Any], out: Any) -> list[Result]:
    """Each process's result; a process that ended without one (it crashed: its traceback is on stderr) counts as
    an error rather than hanging the benchmark."""
    import queue

    results: list[Result] = []
    while len(results) < len(procs):
        try:
            results.append(out.get(timeout=1.0))
        except queue.Empty:
            if not any(p.is_alive() for p in procs):
                try:
                    results.append(out.get(timeout=1.0))
                except queue.Empty:
                    lost = len(procs) - len(results)
                    results += [Result(errors=["the assessor process ended without a result"]) for _ in range(lost)]
    return results


def stored_counts(accounts: list[str], acknowledged: list[str]) -> dict[str, int]:
    """The judgments of these assessors in the database against the tokens acknowledged to them: how many were
    acknowledged and stored, and how many acknowledged tokens are missing, doubled (stored more than once), or
    stored without an acknowledgement."""
    from collections import Counter

    from judging.models import Judgment

    mine = Judgment.objects.filter(judge__user__username__in=accounts)
    stored = Counter(str(t) for t in mine.values_list("submission_token", flat=True))
    return {
        "acknowledged": len(acknowledged),
        "acknowledged_twice": len(acknowledged) - len(set(acknowledged)),
        "stored": sum(stored.values()),
        "missing": sum(1 for t in acknowledged if t not in stored),
        "doubled": sum(1 for v in stored.values() if v > 1),
        "not_acknowledged": len(set(stored) - set(acknowledged)),
    }


def check_stored(accounts: list[str], acknowledged: list[str]) -> str:
    """Every acknowledged token stored exactly once, and no judgment of these assessors that was not acknowledged."""
    c = stored_counts(accounts, acknowledged)
    ok = not (c["doubled"] or c["missing"] or c["not_acknowledged"] or c["acknowledged_twice"])
    return (
        f"{'ok' if ok else 'FAILED'}: {c['acknowledged']} acknowledged, {c['stored']} stored "
        f"({c['missing']} missing, {c['doubled']} doubled, {c['not_acknowledged']} not acknowledged)"
    )


def main(argv: list[str] | None = None) -> int:
    a = arguments(argv)
    phases = sorted(set(a.assessors))
    made = data_set_up(a.topics, phases)
    server = gunicorn_start(a.port, a.workers, a.server, a.worker_class, a.threads)
    try:
        results = phases_run(made["accounts"], phases, a, server.pid)
    finally:
        server.terminate()
        server.wait(timeout=30)
    print_table(results, a)
    if a.json:
        Path(a.json).parent.mkdir(parents=True, exist_ok=True)
        Path(a.json).write_text(
            json.dumps(
                [{**phase.__dict__, "per_second": phase.per_second, "stored": check} for phase, check in results],
                indent=1,
            )
            + "\n"
        )
    return 0 if all(check.startswith("ok") for _, check in results) else 1


def arguments(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--assessors", type=int, nargs="+", default=[1, 5, 20], help="N for each closed-loop phase")
    ap.add_argument("--seconds", type=float, default=10.0, help="measured seconds per phase (default 10)")
    ap.add_argument(
        "--rate",
        type=float,
        nargs="*",
        default=[GOAL_PACED_RATE],
        help=f"judgments/s in all of each paced phase at the largest N (default {GOAL_PACED_RATE:g}; none: no paced phase)",
    )
    ap.add_argument("--via", choices=["page", "api"], default="page", help="the judging page's htmx submit, or the API")
    ap.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    ap.add_argument(
        "--server",
        choices=["wsgi", "asgi"],
        default="wsgi",
        help="wsgi: config.wsgi, as deployed (default); asgi: config.asgi in uvicorn workers",
    )
    ap.add_argument("--worker-class", default="sync", help="gunicorn worker class with --server wsgi (default sync)")
    ap.add_argument("--threads", type=int, default=1, help="threads per gunicorn worker (gthread)")
    ap.add_argument("--port", type=int, default=8019)
    ap.add_argument("--topics", type=int, default=60, help="real test topics in the campaign (default 60)")
    ap.add_argument("--json", help="also write the figures to this file")
    return ap.parse_args(argv)


def data_set_up(topics: int, phases: list[int]) -> dict[str, Any]:
    """The benchmark's own database and Redis db, emptied, and its data (judge_data.populate)."""
    database_url = os.environ.get("BENCH_JUDGE_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_JUDGE_REDIS_URL", DEFAULT_REDIS)
    server_environment(database_url, redis_url, "bench-judge")
    sys.path.insert(0, str(ROOT))
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    t0 = time.monotonic()
    setup_database(database_url)
    import django

    django.setup()
    made = populate(topics, phases)
    from django.db import connections

    connections.close_all()
    print(
        f"data: {topics} real topics, {made['pairs']} pairs, {sum(len(v) for v in made['accounts'].values())} "
        f"assessors ({min(TOPICS_PER_ASSESSOR, topics)} topics each), set up in {time.monotonic() - t0:.1f} s",
        file=sys.stderr,
    )
    return made


def phases_run(
    accounts_of: dict[int, list[str]], phases: list[int], a: argparse.Namespace, server_pid: int
) -> list[tuple[Phase, str]]:
    """Each closed-loop phase, then each paced one at the largest N: its figures and its stored-once check."""
    url = f"http://127.0.0.1:{a.port}"
    results: list[tuple[Phase, str]] = []
    plan: list[tuple[int, float | None]] = [(n, None) for n in phases]
    plan += [(max(phases), rate) for rate in a.rate if rate > 0]
    for n, rate in plan:
        # A paced phase uses fresh accounts of the same size: its own queues, its own stored-once check.
        accounts = accounts_of[n] if rate is None else paced_accounts(n, rate)
        phase, acknowledged = run_phase(accounts, url, a.via, a.seconds, rate, server_pid)
        check = check_stored(accounts, acknowledged)
        results.append((phase, check))
        print(
            f"N={n:>2} {phase.mode:<13} {phase.judgments:>6} judgments {phase.per_second:7.1f}/s  p50 {phase.p50:6.1f}"
            f"  p95 {phase.p95:6.1f}  p99 {phase.p99:6.1f} ms  errors {phase.errors}  stored: {check}",
            file=sys.stderr,
        )
    return results


def print_table(results: list[tuple[Phase, str]], a: argparse.Namespace) -> None:
    print(
        f"\nbench/judge.py via {a.via}, gunicorn {a.workers} x "
        f"{'uvicorn (config.asgi)' if a.server == 'asgi' else f'{a.worker_class} x {a.threads} threads (config.wsgi)'},"
        f" {a.seconds:g} s a phase, {os.cpu_count()} cores"
    )
    print(
        "| N | load | judgments | judgments/s | p50 ms | p95 ms | p99 ms | errors | CPU ms/judgment: assessors / gunicorn / PostgreSQL / Redis | stored once |"
    )
    print("|---:|---|---:|---:|---:|---:|---:|---:|---|---|")
    for p, check in results:
        c = p.cpu_ms
        print(
            f"| {p.n} | {p.mode} | {p.judgments} | {p.per_second:.1f} | {p.p50:.1f} | {p.p95:.1f} | {p.p99:.1f} | {p.errors} | "
            f"{c['assessors']:.2f} / {c['gunicorn']:.2f} / {c['postgres']:.2f} / {c['redis']:.2f} | {check.split(':')[0]} |"
        )
    top = max(p.n for p, _ in results)
    print(
        f"\nGoals at N = 20: >= {GOAL_PER_SECOND:g} judgments/s closed loop, p95 <= {GOAL_P95_MS:g} ms paced at"
        f" {GOAL_PACED_RATE:g}/s (here N = {top})"
    )
    peer = label_studio_c20()
    for p in [p for p, _ in results if p.n == top]:
        if p.rate is None:
            # Every assessor waits for its own response: N / throughput is the mean latency (Little's law).
            verdict = "met" if p.per_second >= GOAL_PER_SECOND and p.errors == 0 else "not met"
            print(f"  N={p.n} closed loop: {p.per_second:.1f} judgments/s, p95 {p.p95:.1f} ms -> {verdict}")
            if peer:
                print(
                    f"    vs Label Studio CE at C=20 ({peer['ann_per_s']:.2f}/s, p95 {peer['p95']:,.0f} ms):"
                    f" {p.per_second / peer['ann_per_s']:.0f}x the throughput, p95 {peer['p95'] / p.p95:.0f}x lower"
                )
            continue
        # Paced: latency counts from the scheduled send time, so a p95 within bounds says the server kept up.
        kept_up = p.errors == 0 and p.ran_out == 0 and p.judgments >= 0.99 * p.rate * a.seconds
        verdict = "met" if kept_up and p.p95 <= GOAL_P95_MS else "not met"
        if p.rate < GOAL_PACED_RATE:
            verdict = "below the goal's rate"
        print(
            f"  N={p.n} paced {p.rate:g}/s offered: {p.judgments} judgments served ({p.per_second:.1f}/s until the last"
            f" response), p95 {p.p95:.1f} ms -> {verdict}"
        )
        if peer:
            print(f"    vs Label Studio CE's p95 at C=20 ({peer['p95']:,.0f} ms): {peer['p95'] / p.p95:.0f}x lower")


def label_studio_c20() -> dict[str, float] | None:
    """Label Studio CE's next+submit figures at C = 20 (PostgreSQL, uwsgi x 4), as its harness recorded them."""
    try:
        record = json.loads(LABEL_STUDIO.read_text().splitlines()[0])
        c20 = record["load"]["20"]
    except (OSError, ValueError, KeyError, IndexError):
        print(f"  (Label Studio's recorded figures not found at {LABEL_STUDIO}: no ratios)")
        return None
    return {"ann_per_s": float(c20["ann_per_s"]), "p95": float(c20["pair_ms"]["p95"])}


if __name__ == "__main__":
    sys.exit(main())
