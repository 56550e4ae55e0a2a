"""Keystroke to next card, in Chromium, while 20 simulated assessors load the same server (issue 14, point 2).

    python bench/keystroke.py [--keys 100] [--interval 2.5] [--load closed paced idle] [--rate 100]
                              [--assessors 20] [--topics 8] [--workers 4] [--port 0] [--rtt 0]

    python bench/keystroke.py --rtt 400 --interval 0.15 --load idle   # a slow network, typing fast (issue 24)

One assessor judges in a real Chromium (Playwright, /usr/bin/chromium) on the judging page, pressing a label
key every `--interval` seconds, or later if the card on screen is still the one just answered (a person
answers the card they see; that wait is not counted). In the page, a listener registered before judge.js's takes each keydown's
`event.timeStamp`; a MutationObserver sees the new card enter the page, and the time is read after the next
paint (a requestAnimationFrame callback, then a message posted from it: it runs once that frame is painted).
Keydown to painted is the figure: median, p95, max over `--keys` keystrokes.

`--rtt MS` emulates a slow network in Chromium (the DevTools protocol's `Network.emulateNetworkConditions`,
that latency on every request, no bandwidth limit) and types on a steady clock instead: a key every
`--interval` seconds whatever is on screen, as an assessor typing ahead does, so that a key that finds no card
waits in the page's queue (and is counted from its keydown) rather than being held back by the benchmark.
It also counts the outbox's submit requests and the answers each carried (the page sends every answer it
holds in one request).

Meanwhile `bench/judge.py`'s simulated assessors (its own processes, logins, data and gunicorn set-up,
imported, not copied) load the same gunicorn server: `closed` is its closed loop at `--assessors` (each
submits as soon as its last answer came: the server saturated), `paced` its open loop at `--rate` judgments
per second in all, `idle` no load. The data is judge.py's (real TREC 2024 RAG topics and MS MARCO segments) in
its own database, `BENCH_KEYSTROKE_DATABASE_URL` (default postgres://postgres@127.0.0.1:5432/assess_bench_keystroke,
dropped and created), Redis `BENCH_KEYSTROKE_REDIS_URL` (default db 12, emptied).

At the end it checks in the database that the browser's assessor has exactly one judgment per keystroke, each
on its own pair, and that judge.py's acknowledged judgments are stored once; it exits non-zero otherwise.
"""

from __future__ import annotations

import argparse
import os
import random
import socket
import statistics
import sys
import threading
import time
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "bench"))

import judge as load  # noqa: E402  (bench/judge.py: the data, gunicorn, the simulated assessors)

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
CHROMIUM_ARGS = ["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking", "--no-first-run"]
DEFAULT_DB = "postgres://postgres@127.0.0.1:5432/assess_bench_keystroke"
DEFAULT_REDIS = "redis://127.0.0.1:6379/12"
BROWSER_USER = "bench-keystroke-browser"
# The figures before the card was held in advance (Chromium, one request per keystroke), and the goal.
BEFORE_MS = {"median": 94.0, "min": 76.0, "max": 247.0}
GOAL_P95_MS = 50.0
KEYS = ["1", "2", "3", "f", "p", "n"]

# Registered before judge.js (an init script runs before the page's scripts): keydown first, then the card.
PROBE = """
(() => {
  window.__keystroke = { pending: [], done: [] };
  window.addEventListener("keydown", (e) => {
    const card = document.getElementById("pair-card");
    const entry = { t: e.timeStamp, token: card ? card.dataset.token : "", sameTask: true };
    window.__keystroke.pending.push(entry);
    setTimeout(() => { entry.sameTask = false; }, 0);
  }, { capture: true });
  // held: the new card entered the page in the keydown's own task (it was held in advance), not with a response.
  const painted = (start, held) => {
    requestAnimationFrame(() => {
      const frame = performance.now();
      const ch = new MessageChannel();
      ch.port1.onmessage = () => window.__keystroke.done.push(
        { frame: frame - start, painted: performance.now() - start, held: held });
      ch.port2.postMessage(0);
    });
  };
  new MutationObserver(() => {
    const card = document.getElementById("pair-card");
    const p = window.__keystroke.pending;
    if (!card || !p.length || card.dataset.token === p[0].token) return;
    const entry = p.shift();
    painted(entry.t, entry.sameTask);
  }).observe(document, { childList: true, subtree: true });
})();
"""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def browser_assessor(topics: int) -> int:
    """The assessor who judges in Chromium: the campaign's topics from the other end, so that no simulated
    assessor works the same queue. Returns the first assignment's id."""
    from judging import services
    from judging.models import Campaign, Condition

    campaign = Campaign.objects.get(name="bench-judge")
    mine = list(campaign.topics.order_by("-topic_id"))[: min(4, topics)]
    user = services.assessor_create(username=BROWSER_USER, password=load.PASSWORD)
    made = services.assignments_create(campaign=campaign, assessor=user, topics=mine, condition=Condition.FROM_SCRATCH)
    from django.db import connections

    connections.close_all()
    return made[0].pk


def judgments_count() -> int:
    from django.db import connection

    with connection.cursor() as cur:
        cur.execute("SELECT count(*) FROM judging_judgment")
        n: int = cur.fetchone()[0]
    return n


def measure(url: str, assignment: int, keys: int, interval: float, rtt: float = 0.0) -> list[dict[str, Any]]:
    """Press `keys` label keys on the judging page, one every `interval` s: for each, keydown to the frame and to
    its paint in ms, and whether the card was held in advance. With `rtt` (ms), over an emulated network of that
    round trip, on a steady clock."""
    from playwright.sync_api import sync_playwright

    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        page = browser.new_context(viewport={"width": 1366, "height": 768}).new_page()
        page.set_default_timeout(60_000)
        page.goto(f"{url}/accounts/login/")
        page.fill("input[name=username]", BROWSER_USER)
        page.fill("input[name=password]", load.PASSWORD)
        page.click("button[type=submit]")
        page.wait_for_load_state("networkidle")
        page.add_init_script(PROBE)
        if rtt:
            cdp = page.context.new_cdp_session(page)
            cdp.send("Network.enable")
            conditions = {"offline": False, "latency": rtt, "downloadThroughput": -1, "uploadThroughput": -1}
            cdp.send("Network.emulateNetworkConditions", conditions)
        page.goto(f"{url}/judge/{assignment}/")
        page.wait_for_selector("body[data-judge=ready]", state="attached")
        rng = random.Random(14)
        if rtt:
            return steady(page, keys, interval, rng)
        next_at = time.monotonic()
        measured: list[dict[str, float]] = []  # from the pages left behind
        for k in range(keys):
            wait = next_at - time.monotonic()
            if wait > 0:
                time.sleep(wait)
            # A person answers the card they see: the key waits until the card on screen is a new one (not one
            # already answered, dimmed while its next card comes from the server). That wait is not measured.
            page.wait_for_selector("#pair-card:not([data-answered])", state="attached")
            if page.get_attribute("#pair-card", "data-state") == "finished":
                # A topic done: on to the next one (a page load, not measured), as the assessor would with Enter.
                with page.expect_navigation():
                    page.keyboard.press("Enter")
                page.wait_for_selector("body[data-judge=ready]", state="attached")
                done_before = page.evaluate("() => window.__keystroke.done")
                measured += done_before
            next_at = time.monotonic() + interval
            page.keyboard.press(rng.choice(KEYS))
            page.wait_for_function("n => window.__keystroke.done.length >= n", arg=k + 1 - len(measured))
        page.wait_for_selector("body[data-judge=ready]", state="attached")
        done = measured + page.evaluate("() => window.__keystroke.done")
        browser.close()
    return list(done)


def steady(page: Any, keys: int, interval: float, rng: random.Random) -> list[dict[str, Any]]:
    """A key every `interval` s on a steady clock, whatever is on screen; then every answer acknowledged. Each
    measurement also says how many cards the page held ahead just before the key (`ahead`), and how many
    answers the outbox's submit requests carried (`batches`: each request's count, in the order sent)."""
    batches: list[int] = []

    def submitted(request: Any) -> None:
        if request.method == "POST" and request.url.endswith("/submit/"):
            batches.append(len(parse_qs(request.post_data or "", keep_blank_values=True).get("pair_id", [])))

    page.on("request", submitted)
    start = time.monotonic()
    depth: list[int] = []
    for k in range(keys):
        wait = start + k * interval - time.monotonic()
        if wait > 0:
            time.sleep(wait)
        depth.append(int(page.evaluate("() => Number(document.body.dataset.held || 0)")))
        page.keyboard.press(rng.choice(KEYS))
    page.wait_for_function("n => window.__keystroke.done.length >= n", arg=keys, timeout=300_000)
    page.wait_for_selector("body[data-judge=ready]", state="attached", timeout=300_000)
    done: list[dict[str, Any]] = page.evaluate("() => window.__keystroke.done")
    asked = int(page.evaluate("() => Number(document.body.dataset.ahead || 0)"))
    round_trip = int(page.evaluate("() => Number(document.body.dataset.roundTrip || 0)"))
    for d, held in zip(done, depth, strict=False):
        d["ahead"], d["asked"], d["round_trip"] = held, asked, round_trip
    done[-1]["batches"] = batches
    if os.environ.get("BENCH_KEYSTROKE_DUMP"):  # every key's figures, to look at where a card waited
        Path(os.environ["BENCH_KEYSTROKE_DUMP"]).write_text("\n".join(map(str, done)) + "\n")
    page.context.browser.close()
    return done


def check_browser_judgments(keys: int) -> str:
    from judging.models import Judgment

    rows = list(Judgment.objects.filter(judge__user__username=BROWSER_USER).values_list("pair_id", "submission_token"))
    pairs = {p for p, _ in rows}
    ok = len(rows) == keys and len(pairs) == keys
    return f"{'ok' if ok else 'FAILED'}: {keys} keystrokes, {len(rows)} judgments stored on {len(pairs)} pairs"


def summary(values: list[float]) -> dict[str, float]:
    q = statistics.quantiles(values, n=100, method="inclusive")
    return {"median": statistics.median(values), "p95": q[94], "max": max(values), "min": min(values)}


def run_with_load(
    mode: str,
    url: str,
    server_pid: int,
    accounts: list[str],
    rate: float | None,
    a: argparse.Namespace,
    assignment: int,
) -> tuple[dict[str, float], dict[str, float], str]:
    """The browser's keystrokes while judge.py's assessors load the server (none for `idle`): keydown to frame
    and keydown to painted, and what the load did."""
    result: dict[str, Any] = {}
    thread = None
    if mode != "idle":
        seconds = a.keys * a.interval + 20

        def run() -> None:
            phase, acknowledged = load.run_phase(accounts, url, "page", seconds, rate, server_pid)
            result["phase"], result["check"] = phase, load.check_stored(accounts, acknowledged)

        before = judgments_count()
        thread = threading.Thread(target=run, daemon=True)
        thread.start()
        # The load has begun when its judgments arrive (its processes log in first).
        deadline = time.monotonic() + 300
        while judgments_count() < before + 3 * len(accounts):
            if time.monotonic() > deadline or not thread.is_alive():
                raise SystemExit("the simulated assessors did not start")
            time.sleep(0.2)
    done = measure(url, assignment, a.keys, a.interval, a.rtt)
    frame, painted = summary([d["frame"] for d in done]), summary([d["painted"] for d in done])
    if a.rtt:
        painted["fewest_held"] = min(d["ahead"] for d in done)
        painted["asked"] = done[-1]["asked"]
        painted["round_trip"] = done[-1]["round_trip"]
        painted["requests"] = len(done[-1]["batches"])
        painted["most_in_one"] = max(done[-1]["batches"], default=0)
    held = [d["painted"] for d in done if d["held"]]
    waited = [d["painted"] for d in done if not d["held"]]
    painted["held"] = len(held)
    painted["waited_median"] = statistics.median(waited) if waited else 0.0
    check = "no load"
    if thread is not None:
        thread.join()
        phase = result["phase"]
        check = (
            f"load {phase.judgments} judgments, {phase.per_second:.1f}/s, server p95 {phase.p95:.1f} ms, "
            f"errors {phase.errors}; stored {result['check']}"
        )
    return frame, painted, check


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--keys", type=int, default=100, help="keystrokes measured per load (default 100)")
    ap.add_argument("--interval", type=float, default=2.5, help="seconds between keystrokes (default 2.5)")
    ap.add_argument("--load", nargs="+", choices=["closed", "paced", "idle"], default=["closed"])
    ap.add_argument("--assessors", type=int, default=20, help="simulated assessors of the load (default 20)")
    ap.add_argument("--rate", type=float, default=load.GOAL_PACED_RATE, help="judgments/s in all, paced load")
    ap.add_argument("--topics", type=int, default=8, help="real test topics in the campaign (default 8)")
    ap.add_argument("--workers", type=int, default=4, help="gunicorn workers (default 4)")
    ap.add_argument("--port", type=int, default=0, help="gunicorn's port (default: a free one)")
    ap.add_argument(
        "--rtt", type=float, default=0.0, help="emulated round trip in ms (Chromium's network emulation); steady keys"
    )
    return ap.parse_args(argv)


def prepare(a: argparse.Namespace) -> tuple[dict[str, Any], int]:
    """The database, the load's accounts and the browser's assignment; returns (what populate made, assignment)."""
    database_url = os.environ.get("BENCH_KEYSTROKE_DATABASE_URL", DEFAULT_DB)
    redis_url = os.environ.get("BENCH_KEYSTROKE_REDIS_URL", DEFAULT_REDIS)
    load.server_environment(database_url, redis_url, "bench-keystroke")
    sys.path.insert(0, str(ROOT))
    import redis

    redis.Redis.from_url(redis_url).flushdb()
    t0 = time.monotonic()
    load.setup_database(database_url)
    import django

    django.setup()
    made = load.populate(a.topics, [a.assessors])
    assignment = browser_assessor(a.topics)
    print(
        f"data: {a.topics} real topics, {made['pairs']} pairs, set up in {time.monotonic() - t0:.1f} s", file=sys.stderr
    )
    return made, assignment


def measure_loads(a: argparse.Namespace, made: dict[str, Any], assignment: int) -> list[tuple[str, Any, Any, str]]:
    """One row per load mode: (label, keydown to frame, keydown to painted, the load's check)."""
    port = a.port or free_port()
    server = load.gunicorn_start(port, a.workers, "wsgi", "sync", 1, start_seconds=300)
    url = f"http://127.0.0.1:{port}"
    rows = []
    try:
        for mode in a.load:
            if mode == "closed":
                accounts, rate = made["accounts"][a.assessors], None
            elif mode == "paced":
                accounts, rate = load.paced_accounts(a.assessors, a.rate), a.rate
            else:
                accounts, rate = [], None
            frame, painted, check = run_with_load(mode, url, server.pid, accounts, rate, a, assignment)
            label = {"closed": f"N={a.assessors} closed loop", "paced": f"N={a.assessors} paced {a.rate:g}/s"}.get(
                mode, "no load"
            )
            if a.rtt:
                label += f", {a.rtt:g} ms emulated RTT"
            rows.append((label, frame, painted, check))
            print(
                f"{label}: keydown to painted median {painted['median']:.1f}  p95 {painted['p95']:.1f}  max"
                f" {painted['max']:.1f} ms ({check})",
                file=sys.stderr,
            )
    finally:
        server.terminate()
        server.wait(timeout=30)
    return rows


def report(a: argparse.Namespace, rows: list[tuple[str, Any, Any, str]], stored: str) -> None:
    network = f", {a.rtt:g} ms emulated round trip, keys on a steady clock" if a.rtt else ""
    print(
        f"\nbench/keystroke.py: {a.keys} keystrokes a load, one every {a.interval:g} s{network}, Chromium at 1366x768,"
    )
    load_avg = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"gunicorn {a.workers} sync workers, {os.cpu_count()} cores, load average at the end {load_avg}")
    print(
        "| load on the server | keydown to frame: median / p95 / max ms | keydown to painted: median / p95 / max ms"
        " | card held in advance | median when not held |"
    )
    print("|---|---|---|---:|---:|")
    for label, frame, painted, _ in rows:
        print(
            f"| {label} | {frame['median']:.1f} / {frame['p95']:.1f} / {frame['max']:.1f} | "
            f"{painted['median']:.1f} / {painted['p95']:.1f} / {painted['max']:.1f} | {painted['held']:.0f} of {a.keys}"
            f" | {painted['waited_median']:.1f} |"
        )
    for label, _, painted, check in rows:
        print(f"  {label}: {check}")
        if a.rtt:
            print(
                f"  {label}: the page measured a {painted['round_trip']:.0f} ms round trip and asked for"
                f" {painted['asked']:.0f} cards ahead; fewest held before a key {painted['fewest_held']:.0f};"
                f" {painted['requests']:.0f} submit requests carried the answers (at most"
                f" {painted['most_in_one']:.0f} in one)"
            )
    print(f"  the browser's assessor: {stored}")
    report_goal(a, rows)


def report_goal(a: argparse.Namespace, rows: list[tuple[str, Any, Any, str]]) -> None:
    b = BEFORE_MS
    print(
        f"\nBefore (the issue, one request per keystroke): {b['min']:.0f}-{b['max']:.0f} ms, median {b['median']:.0f}."
    )
    goal_under = f"at {a.rtt:g} ms round trip, no key lost" if a.rtt else "under the 20-assessor load"
    print(f"Goal: p95 <= {GOAL_P95_MS:g} ms after the keydown, {goal_under}.")
    for label, _, painted, _ in rows:
        verdict = "met" if painted["p95"] <= GOAL_P95_MS else "not met"
        print(
            f"  {label}: p95 {painted['p95']:.1f} ms -> {verdict}; median {b['median'] / painted['median']:.1f}x lower"
            f" than before"
        )


def main(argv: list[str] | None = None) -> int:
    a = parse_args(argv)
    made, assignment = prepare(a)
    rows = measure_loads(a, made, assignment)
    stored = check_browser_judgments(a.keys * len(rows))
    report(a, rows, stored)
    ok = stored.startswith("ok") and all("FAILED" not in check for *_, check in rows)
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
