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
import gzip
import http.client
import json
import multiprocessing as mp
import os
import random
import re
import resource
import statistics
import subprocess
import sys
import time
import urllib.parse
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("ASSESS_DATA_DIR", "").strip() or ROOT / "data" / "trec-rag-2024")
LABEL_STUDIO = ROOT / "bench" / "baselines" / "labelstudio" / "postgres-uwsgi.jsonl"
# The goals at N = 20 on this 2-core machine: closed-loop throughput, and p95 when paced at GOAL_PACED_RATE.
GOAL_PER_SECOND = 200.0
GOAL_PACED_RATE = 100.0
GOAL_P95_MS = 25.0
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench_judge"
DEFAULT_REDIS = "redis://127.0.0.1:6379/11"
PASSWORD = "bench-judge-password"
TOPICS_PER_ASSESSOR = 8
RUNS = 40
SENTENCES = 10
LABELS = ("FS", "PS", "NS")


# --- data -------------------------------------------------------------------------------------------


def real_topics(n: int) -> list[dict[str, Any]]:
    """The first n test topics of the Webis retrieval file, each with its 20 segments' ids and texts."""
    out = []
    with gzip.open(DATA / "retrieve" / "webis-crowd" / "study1_retrieval.jsonl.gz", "rt", encoding="utf-8") as fh:
        for line in fh:
            row = json.loads(line)
            out.append(row)
            if len(out) == n:
                break
    if len(out) < n:
        raise SystemExit(f"the retrieval file has {len(out)} topics, {n} needed")
    return out


def claim_from(text: str, rng: random.Random) -> str:
    """A sentence an answer might state from a segment: a run of its words."""
    words = text.split()
    start = rng.randrange(max(1, len(words) - 14))
    return " ".join(words[start : start + rng.randint(8, 14)]).rstrip(".,;:") + "."


def populate(n_topics: int, phases: list[int]) -> dict[str, Any]:
    """Topics, passages, runs, answers, the campaign and its pairs, and each phase's assessors."""
    from django.db import transaction

    from assess.models import Answer, Citation, Passage, Run, Sentence, Topic
    from judging import services
    from judging.models import Condition

    rng = random.Random(2024)
    rows = real_topics(n_topics)
    with transaction.atomic():
        topics = Topic.objects.bulk_create([Topic(topic_id=r["topic"], text=r["query"]) for r in rows])
        texts: dict[str, str] = {}
        for r in rows:
            texts.update(zip(r["references_ids"], r["references_texts"], strict=True))
        passages = {
            p.passage_id: p
            for p in Passage.objects.bulk_create(
                [Passage(passage_id=pid, text=t, has_text=True) for pid, t in texts.items()], batch_size=2000
            )
        }
        runs = Run.objects.bulk_create(
            [
                Run(run_id=f"bench-team{r // 4:02d}.judge_run_{r:02d}", group=f"bench-team{r // 4:02d}")
                for r in range(RUNS)
            ]
        )
        answers = Answer.objects.bulk_create(
            [
                Answer(run=run, topic=t, references=rows[i]["references_ids"])
                for i, t in enumerate(topics)
                for run in runs
            ],
            batch_size=2000,
        )
        sentences: list[Sentence] = []
        cites: list[tuple[int, str]] = []
        for a in answers:
            refs = a.references
            for s in range(SENTENCES):
                ref = rng.randrange(len(refs))
                sentences.append(Sentence(answer=a, index=s, text=claim_from(texts[refs[ref]], rng)))
                cites.append((ref, refs[ref]))
        Sentence.objects.bulk_create(sentences, batch_size=5000)
        Citation.objects.bulk_create(
            [
                Citation(sentence=s, slot=0, passage=passages[pid], reference_index=ref)
                for s, (ref, pid) in zip(sentences, cites, strict=True)
            ],
            batch_size=5000,
        )
        campaign = services.campaign_create(
            name="bench-judge", runs=runs, topics=topics, depth=1, guidelines=""
        )  # no start overlay: it measures keystrokes
    summary = services.campaign_build_pairs(campaign=campaign)
    accounts: dict[int, list[str]] = {}
    for n in phases:
        names = []
        for k in range(n):
            name = f"bench-judge-n{n:02d}-{k + 1:02d}"
            user = services.assessor_create(username=name, password=PASSWORD)
            mine = topics_of(k, topics)
            services.assignments_create(campaign=campaign, assessor=user, topics=mine, condition=Condition.FROM_SCRATCH)
            names.append(name)
        accounts[n] = names
    return {"pairs": summary["pairs"], "accounts": accounts}


def topics_of(k: int, topics: list[Any], shift: int = 0) -> list[Any]:
    """The k-th assessor's topics, in order: assessors of one phase start on different topics and go on through
    the next ones (fewer when the campaign has fewer topics)."""
    return [
        topics[(k * TOPICS_PER_ASSESSOR + j + shift) % len(topics)]
        for j in range(min(TOPICS_PER_ASSESSOR, len(topics)))
    ]


def setup_database(database_url: str) -> None:
    import psycopg

    name = database_url.rsplit("/", 1)[1]
    admin_url = database_url.rsplit("/", 1)[0] + "/postgres"
    with psycopg.connect(admin_url, autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    subprocess.run([sys.executable, "manage.py", "migrate", "--noinput", "-v0"], cwd=ROOT, check=True)


# --- the simulated assessor -------------------------------------------------------------------------


class Browser:
    """One assessor's HTTP session: a kept-alive connection (re-opened when the server closes it) and cookies."""

    def __init__(self, host: str, port: int) -> None:
        self.host, self.port = host, port
        self.conn: http.client.HTTPConnection | None = None
        self.cookies: dict[str, str] = {}

    def request(
        self, method: str, path: str, body: bytes | None = None, headers: dict[str, str] | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        hdrs = {"Host": f"{self.host}:{self.port}", **(headers or {})}
        if self.cookies:
            hdrs["Cookie"] = "; ".join(f"{k}={v}" for k, v in self.cookies.items())
        for attempt in (0, 1):
            if self.conn is None:
                self.conn = http.client.HTTPConnection(self.host, self.port, timeout=60)
            try:
                self.conn.request(method, path, body=body, headers=hdrs)
                resp = self.conn.getresponse()
                data = resp.read()
            except (http.client.RemoteDisconnected, ConnectionResetError, BrokenPipeError):
                # A kept-alive connection the server had closed: only a request never answered is re-sent.
                self.conn.close()
                self.conn = None
                if attempt:
                    raise
                continue
            for value in resp.headers.get_all("Set-Cookie") or []:
                k, _, v = value.split(";", 1)[0].partition("=")
                self.cookies[k.strip()] = v.strip()
            if resp.getheader("Connection", "").lower() == "close" or resp.version == 10:
                self.conn.close()
                self.conn = None
            return resp.status, data, {k.lower(): v for k, v in resp.getheaders()}
        raise AssertionError("unreachable")

    def form(
        self, path: str, fields: dict[str, str], headers: dict[str, str] | None = None
    ) -> tuple[int, bytes, dict[str, str]]:
        body = urllib.parse.urlencode(fields).encode()
        hdrs = {"Content-Type": "application/x-www-form-urlencoded", "X-CSRFToken": self.cookies.get("csrftoken", "")}
        return self.request("POST", path, body, {**hdrs, **(headers or {})})


CSRF_INPUT = re.compile(rb'name="csrfmiddlewaretoken" value="([^"]+)"')
PAGE_PAIR = re.compile(rb'name="pair_id" value="(\d+)"')
PAGE_TOKEN = re.compile(rb'name="token" value="([0-9a-f-]{36})"')
PAGE_NEXT = re.compile(rb'id="next-assignment" class="button primary" href="/judge/(\d+)/"')


def login(b: Browser, username: str) -> None:
    status, body, _ = b.request("GET", "/accounts/login/")
    m = CSRF_INPUT.search(body)
    if status != 200 or m is None:
        raise SystemExit(f"login page: HTTP {status}")
    fields = {"csrfmiddlewaretoken": m.group(1).decode(), "username": username, "password": PASSWORD}
    status, _, _ = b.form("/accounts/login/", fields)
    if status != 302 or "sessionid" not in b.cookies:
        raise SystemExit(f"login of {username}: HTTP {status}")


@dataclass
class Card:
    assignment: int
    pair_id: int
    token: str


@dataclass
class Result:
    latencies: list[float] = field(default_factory=list)
    acknowledged: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    cpu: float = 0.0
    ran_out: bool = False
    ended: float = 0.0


def first_card_page(b: Browser) -> Card | None:
    """The judging page of the assessor's first open assignment (the queue page links to it)."""
    status, body, _ = b.request("GET", "/judge/")
    m = re.search(rb'href="/judge/(\d+)/"', body)
    if status != 200 or m is None:
        return None
    return card_page(b, int(m.group(1)))


def card_page(b: Browser, assignment: int) -> Card | None:
    status, body, _ = b.request("GET", f"/judge/{assignment}/")
    if status != 200:
        raise RuntimeError(f"judging page: HTTP {status}")
    return parse_page(body, assignment, b)


def parse_page(body: bytes, assignment: int, b: Browser) -> Card | None:
    pair, token = PAGE_PAIR.search(body), PAGE_TOKEN.search(body)
    if pair and token:
        return Card(assignment, int(pair.group(1)), token.group(1).decode())
    nxt = PAGE_NEXT.search(body)
    return card_page(b, int(nxt.group(1))) if nxt else None


def submit_page(b: Browser, card: Card, label: str) -> tuple[int, Card | None]:
    fields = {"pair_id": str(card.pair_id), "token": card.token, "label": label, "seconds": "4.2"}
    status, body, _ = b.form(f"/judge/{card.assignment}/submit/", fields, {"HX-Request": "true"})
    if status != 200:
        return status, None
    return status, parse_page(body, card.assignment, b)


def api_assignments(b: Browser) -> list[int]:
    _, body, _ = b.request("GET", "/api/assignments/?limit=100")
    data = json.loads(body)
    rows = data["results"] if isinstance(data, dict) else data
    return [r["id"] for r in rows if r["status"] == "open"]


def api_card(b: Browser, queue: list[int]) -> Card | None:
    while queue:
        status, body, _ = b.request("GET", f"/api/assignments/{queue[0]}/next/")
        pair = json.loads(body)["pair"] if status == 200 else None
        if pair:
            return Card(queue[0], pair["pair_id"], pair["token"])
        queue.pop(0)
    return None


def submit_api(b: Browser, card: Card, label: str, queue: list[int]) -> tuple[int, Card | None]:
    body = json.dumps({"pair_id": card.pair_id, "token": card.token, "label": label, "seconds": 4.2}).encode()
    hdrs = {"Content-Type": "application/json", "X-CSRFToken": b.cookies.get("csrftoken", "")}
    status, data, _ = b.request("POST", f"/api/assignments/{card.assignment}/submit/", body, hdrs)
    if status not in (200, 201):
        return status, None
    pair = json.loads(data)["next"]["pair"]
    if pair:
        return status, Card(card.assignment, pair["pair_id"], pair["token"])
    queue.pop(0)
    return status, api_card(b, queue)


def assessor(
    username: str, url: str, via: str, seconds: float, interval: float, offset: float, start: Any, out: Any
) -> None:
    """One simulated assessor: log in, open the queue, say so, wait for the common start, then submit-and-next
    for `seconds`."""
    u = urllib.parse.urlsplit(url)
    b = Browser(u.hostname or "127.0.0.1", u.port or 80)
    login(b, username)
    queue: list[int] = []
    if via == "page":
        card = first_card_page(b)
    else:
        queue = api_assignments(b)
        card = api_card(b, queue)
    rng = random.Random(username)
    res = Result()
    out.put("ready")
    while not start.value:
        time.sleep(0.002)
    start_at = start.value
    stop_at = start_at + seconds
    cpu0 = resource.getrusage(resource.RUSAGE_SELF)
    while time.time() < start_at:
        time.sleep(min(0.01, start_at - time.time()))
    k = 0
    while card is not None:
        due = start_at + offset + k * interval if interval else time.time()
        if due >= stop_at:
            break
        if interval:
            wait = due - time.time()
            if wait > 0:
                time.sleep(wait)
        k += 1
        sent = due if interval else time.time()
        try:
            if via == "page":
                status, nxt = submit_page(b, card, rng.choice(LABELS))
            else:
                status, nxt = submit_api(b, card, rng.choice(LABELS), queue)
        except (OSError, http.client.HTTPException, ValueError, RuntimeError) as exc:
            res.errors.append(f"{type(exc).__name__}: {exc}")
            break
        if status not in (200, 201):
            res.errors.append(f"HTTP {status}")
            break
        res.latencies.append(time.time() - sent)
        res.acknowledged.append(card.token)
        card = nxt
    res.ran_out = card is None
    res.ended = time.time()
    cpu1 = resource.getrusage(resource.RUSAGE_SELF)
    res.cpu = (cpu1.ru_utime + cpu1.ru_stime) - (cpu0.ru_utime + cpu0.ru_stime)
    out.put(res)


# --- the platform and the measurement ---------------------------------------------------------------


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
    servers = lambda: children(server_pid)  # noqa: E731
    cpu0 = {
        "gunicorn": process_cpu(servers()),
        "postgres": process_cpu(pids_named("postgres")),
        "redis": process_cpu(pids_named("redis-server")),
    }
    results = collect(procs, out)
    cpu1 = {
        "gunicorn": process_cpu(servers()),
        "postgres": process_cpu(pids_named("postgres")),
        "redis": process_cpu(pids_named("redis-server")),
    }
    for p in procs:
        p.join()
    lat = sorted(x for r in results for x in r.latencies)
    judged = len(lat)
    q = statistics.quantiles(lat, n=100, method="inclusive") if len(lat) > 1 else [lat[0] if lat else 0.0] * 99
    cpu = {k: cpu_since(cpu0[k], cpu1[k]) for k in cpu0}
    cpu["assessors"] = sum(r.cpu for r in results)
    phase = Phase(
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
    for r in results:
        for e in r.errors[:3]:
            print(f"  error: {e}", file=sys.stderr)
    return phase, [t for r in results for t in r.acknowledged]


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


def main(argv: list[str] | None = None) -> int:
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
    a = ap.parse_args(argv)

    database_url = os.environ.get("BENCH_JUDGE_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_JUDGE_REDIS_URL", DEFAULT_REDIS)
    server_environment(database_url, redis_url, "bench-judge")
    sys.path.insert(0, str(ROOT))
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    phases = sorted(set(a.assessors))
    t0 = time.monotonic()
    setup_database(database_url)
    import django

    django.setup()
    made = populate(a.topics, phases)
    from django.db import connections

    connections.close_all()
    print(
        f"data: {a.topics} real topics, {made['pairs']} pairs, {sum(len(v) for v in made['accounts'].values())} "
        f"assessors ({min(TOPICS_PER_ASSESSOR, a.topics)} topics each), set up in {time.monotonic() - t0:.1f} s",
        file=sys.stderr,
    )
    server = gunicorn_start(a.port, a.workers, a.server, a.worker_class, a.threads)
    url = f"http://127.0.0.1:{a.port}"
    results: list[tuple[Phase, str]] = []
    try:
        plan: list[tuple[int, float | None]] = [(n, None) for n in phases]
        plan += [(max(phases), rate) for rate in a.rate if rate > 0]
        for n, rate in plan:
            # A paced phase uses fresh accounts of the same size: its own queues, its own stored-once check.
            accounts = made["accounts"][n] if rate is None else paced_accounts(n, rate)
            phase, acknowledged = run_phase(accounts, url, a.via, a.seconds, rate, server.pid)
            check = check_stored(accounts, acknowledged)
            results.append((phase, check))
            print(
                f"N={n:>2} {phase.mode:<13} {phase.judgments:>6} judgments {phase.per_second:7.1f}/s  p50 {phase.p50:6.1f}"
                f"  p95 {phase.p95:6.1f}  p99 {phase.p99:6.1f} ms  errors {phase.errors}  stored: {check}",
                file=sys.stderr,
            )
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


def paced_accounts(n: int, rate: float) -> list[str]:
    """n more assessors, like a phase's, for a paced run."""
    from judging import services
    from judging.models import Assignment, Campaign, Condition

    campaign = Campaign.objects.get(name="bench-judge")
    topics = list(campaign.topics.order_by("topic_id"))
    names = []
    for k in range(n):
        name = f"bench-judge-paced{rate:g}-{k + 1:02d}"
        user = services.assessor_create(username=name, password=PASSWORD)
        mine = topics_of(k, topics, shift=3)
        services.assignments_create(campaign=campaign, assessor=user, topics=mine, condition=Condition.FROM_SCRATCH)
        names.append(name)
    assert Assignment.objects.filter(assessor__username__in=names).count() == n * min(TOPICS_PER_ASSESSOR, len(topics))
    from django.db import connections

    connections.close_all()
    return names


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
