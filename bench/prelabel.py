"""Pre-label benchmark: pairs per second against the fake OpenAI-compatible server with 200 ms latency.

    python bench/prelabel.py [--latency 0.2] [--seconds 6] [--concurrency 4 16 64] [--workers 2]

For each concurrency, a campaign of about `seconds` worth of pairs at the ceiling is pre-labelled by an
OpenAI-compatible judge whose `max_concurrency` is that concurrency, and the time from the job's start
to its end gives pairs per second and the ratio to the ceiling (concurrency / latency).

With `--workers N` (default: one per core) the job runs as it does in production: enqueued through
Redis to a real Celery worker of N prefork processes, its chunks spread over them, the concurrency
bound held across them in Redis. With `--workers 0` it runs in this process (the same claim, call,
retry and write path, without Celery), which shows what one interpreter can do.
The server runs in its own process. Its own PostgreSQL database: BENCH_LLM_DATABASE_URL, default
postgres://postgres@127.0.0.1:5432/assess_bench_llm (created and emptied by this script), and its own
Redis database: BENCH_LLM_REDIS_URL, default redis://127.0.0.1:6379/13 (flushed).
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import resource
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench_llm"
DEFAULT_REDIS = "redis://127.0.0.1:6379/13"


def serve(latency: float, conn: Any) -> None:
    sys.path.insert(0, str(ROOT))
    from tests.fake_openai import FakeOpenAI

    server = FakeOpenAI(latency=latency).start()
    conn.send(server.base_url)
    while conn.recv() == "cpu":
        conn.send(cpu_seconds())
    conn.send(server.chat_calls)
    server.stop()


def cpu_seconds() -> float:
    usage = resource.getrusage(resource.RUSAGE_SELF)
    return usage.ru_utime + usage.ru_stime


def process_cpu_seconds(pid: int) -> float:
    """User + system CPU of a process and its children still alive (a Celery worker and its pool)."""
    total = 0.0
    ticks = os.sysconf("SC_CLK_TCK")
    pids = [pid]
    while pids:
        current = pids.pop()
        try:
            fields = Path(f"/proc/{current}/stat").read_text().rsplit(")", 1)[1].split()
            total += (int(fields[11]) + int(fields[12])) / ticks
            for task in Path(f"/proc/{current}/task").iterdir():
                pids.extend(int(c) for c in (task / "children").read_text().split())
        except (FileNotFoundError, ProcessLookupError):
            continue
    return total


def worker_start(
    processes: int, database_url: str, redis_url: str, base_url: str, start_seconds: float = 60.0
) -> subprocess.Popen[bytes]:
    """A Celery worker of `processes` prefork processes, given `start_seconds` to answer a ping (a busy machine
    needs more); one that does not is stopped, not left behind."""
    env = {
        **os.environ,
        "DATABASE_URL": database_url,
        "REDIS_URL": redis_url,
        "CELERY_TASK_ALWAYS_EAGER": "false",
        "OPENAI_BASE_URL": base_url,
        "DJANGO_SETTINGS_MODULE": "config.settings",
    }
    worker = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "celery",
            "-A",
            "config",
            "worker",
            "--pool=prefork",
            f"--concurrency={processes}",
            "--loglevel=warning",
            "-n",
            f"bench-prelabel-{os.getpid()}@%h",
            "--without-gossip",
            "--without-mingle",
        ],
        cwd=ROOT,
        env=env,
    )
    from config.celery import app

    deadline = time.monotonic() + start_seconds
    while not app.control.ping(timeout=0.5):
        if worker.poll() is not None or time.monotonic() > deadline:
            worker.kill()
            worker.wait(timeout=30)
            raise SystemExit("the Celery worker did not start")
    return worker


def setup_django(database_url: str, redis_url: str | None) -> None:
    os.environ["DATABASE_URL"] = database_url
    os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")
    os.environ.setdefault("SECRET_KEY", "bench-only-key")  # a benchmark serves nobody
    if redis_url:
        import redis

        redis.Redis.from_url(redis_url).flushdb()
        os.environ["REDIS_URL"] = redis_url
        os.environ["CELERY_TASK_ALWAYS_EAGER"] = "false"
    else:
        os.environ["CELERY_TASK_ALWAYS_EAGER"] = "true"
        os.environ.pop("REDIS_URL", None)
    sys.path.insert(0, str(ROOT))
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        if not conn.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone():
            conn.execute(f'CREATE DATABASE "{name}"')
    import django

    django.setup()
    from django.core.management import call_command

    call_command("migrate", verbosity=0)
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute(
            "TRUNCATE judging_llmresult, judging_prelabeljob, judging_judgment, judging_campaignpair, judging_pair, "
            "judging_llmjudge, judging_judge, judging_campaign, assess_citation, assess_sentence, assess_answer, "
            "assess_run, assess_passage, assess_topic RESTART IDENTITY CASCADE"
        )


def campaign_build(name: str, n: int) -> Any:
    """A campaign of n pairs: one run answering one topic with n sentences, each citing its own passage."""
    from assess.models import Answer, Citation, Passage, Run, Sentence, Topic
    from judging.build import campaign_pairs_create
    from judging.models import Campaign, CampaignPair
    from judging.pairs import pairs_for_citations

    topic = Topic.objects.create(topic_id=f"bench-{name}", text="how fast can a campaign be pre-labelled?")
    run = Run.objects.create(run_id=f"bench.{name}")
    passages = Passage.objects.bulk_create(
        [
            Passage(
                passage_id=f"msmarco_v2.1_doc_{name}_{i}#0",
                title=f"Title {i}",
                has_text=True,
                text=f"Passage {i} says that the claim number {i} holds, among other things. " * 8,
            )
            for i in range(n)
        ]
    )
    answer = Answer.objects.create(run=run, topic=topic, references=[p.passage_id for p in passages])
    sentences = Sentence.objects.bulk_create(
        [Sentence(answer=answer, index=i, text=f"Claim number {i} holds [FS].") for i in range(n)]
    )
    Citation.objects.bulk_create(
        [
            Citation(sentence=s, slot=0, passage=p, reference_index=i)
            for i, (s, p) in enumerate(zip(sentences, passages, strict=True))
        ]
    )
    citations = list(Citation.objects.filter(sentence__answer=answer).select_related("sentence"))
    pairs = pairs_for_citations(citations=citations)
    campaign = Campaign.objects.create(name=name)
    campaign_pairs_create(
        campaign_pairs=[
            CampaignPair(campaign=campaign, pair=pairs[c.pk], topic=topic, context_citation=c) for c in citations
        ]
    )
    return campaign


def run_one(
    base_url: str,
    concurrency: int,
    latency: float,
    seconds: float,
    server: Any = None,
    worker: Any = None,
    tag: str = "",
) -> dict[str, float]:
    from judging.llm import chunks, jobs, services
    from judging.llm.models import LLMResult, PrelabelJob, Provider

    ceiling = concurrency / latency
    n = max(50, math.ceil(ceiling * seconds))
    name = f"{tag}c{concurrency}"
    campaign = campaign_build(name, n)
    llm = services.llm_judge_create(
        name=f"bench-{name}",
        model="bench",
        provider=Provider.COMPATIBLE,
        base_url=base_url,
        max_concurrency=concurrency,
    )
    server_cpu = _server_cpu(server)
    cpu = process_cpu_seconds(worker.pid) if worker else cpu_seconds()
    started = time.perf_counter()
    if worker is None:
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge, enqueue=False)
        job = chunks.prelabel_job_execute(job=job)
    else:
        job = jobs.prelabel_job_create(campaign=campaign, judge=llm.judge)
        while job.status not in ("done", "failed"):
            time.sleep(0.02)
            job = PrelabelJob.objects.get(pk=job.pk)
    elapsed = time.perf_counter() - started
    cpu = (process_cpu_seconds(worker.pid) if worker else cpu_seconds()) - cpu
    server_cpu = _server_cpu(server) - server_cpu
    labelled = LLMResult.objects.filter(judge=llm.judge, status="labelled").count()
    if job.status != "done" or labelled != n:
        raise SystemExit(f"concurrency {concurrency}: job {job.status}, {labelled}/{n} labelled")
    rate = n / elapsed
    return {
        "concurrency": concurrency,
        "pairs": n,
        "seconds": elapsed,
        "rate": rate,
        "ceiling": ceiling,
        "worker_cpu_ms": cpu * 1000 / n,
        "server_cpu_ms": server_cpu * 1000 / n,
    }


def _server_cpu(server: Any) -> float:
    if server is None:
        return 0.0
    server.send("cpu")
    return float(server.recv())


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--latency", type=float, default=0.2)
    parser.add_argument("--seconds", type=float, default=6.0, help="pairs per run = ceiling x seconds")
    parser.add_argument("--concurrency", type=int, nargs="+", default=[4, 16, 64])
    parser.add_argument(
        "--workers", type=int, default=os.cpu_count() or 1, help="Celery worker processes (0: in this process)"
    )
    args = parser.parse_args(argv)

    parent, child = multiprocessing.Pipe()
    server = multiprocessing.Process(target=serve, args=(args.latency, child), daemon=True)
    server.start()
    base_url = parent.recv()
    database_url = os.environ.get("BENCH_LLM_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_LLM_REDIS_URL", DEFAULT_REDIS) if args.workers else None
    setup_django(database_url, redis_url)
    print(f"fake OpenAI-compatible server at {base_url}, latency {args.latency * 1000:.0f} ms")
    worker = None
    if args.workers:
        worker = worker_start(args.workers, database_url, str(redis_url), base_url)
        print(f"a Celery worker of {args.workers} prefork processes, through Redis at {redis_url}")
        # A worker process keeps its client (and its connections) between jobs: warm every process with
        # a job of two chunks, as a worker that has been up for a while would be.
        run_one(base_url, 16, args.latency, 6.4 * args.workers / 2, worker=worker, tag="warm-")
    else:
        print("in this process, without Celery")
        run_one(base_url, 2, args.latency, 1.0, tag="warm-")
    print(f"load average before: {' '.join(f'{x:.2f}' for x in os.getloadavg())} on {os.cpu_count()} cores")
    print(
        f"{'concurrency':>11} {'pairs':>6} {'seconds':>8} {'pairs/s':>8} {'ceiling':>8} {'ratio':>6}"
        f" {'worker CPU ms/pair':>19} {'server CPU ms/pair':>19}"
    )
    worst = 1.0
    try:
        for c in args.concurrency:
            r = run_one(base_url, c, args.latency, args.seconds, parent, worker)
            ratio = r["rate"] / r["ceiling"]
            worst = min(worst, ratio)
            print(
                f"{c:>11} {r['pairs']:>6.0f} {r['seconds']:>8.2f} {r['rate']:>8.1f} {r['ceiling']:>8.1f} {ratio:>6.1%}"
                f" {r['worker_cpu_ms']:>19.2f} {r['server_cpu_ms']:>19.2f}"
            )
    finally:
        parent.send("stop")
        calls = parent.recv()
        server.join(timeout=5)
        if worker is not None:
            worker.terminate()
            worker.wait(timeout=30)
    print(f"server saw {calls} chat calls; lowest ratio to the ceiling {worst:.1%} (goal: at least 90%)")
    return 0 if worst >= 0.9 else 1


if __name__ == "__main__":
    sys.exit(main())
