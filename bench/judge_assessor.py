"""bench/judge.py's simulated assessor: an HTTP session that logs in through the login page (a real session cookie
and CSRF token) and does what the judging page does on each keystroke: one POST of the label with the card's
submission token, whose response is the next pair's card (the htmx partial with `--via page`, the JSON of
`POST /api/assignments/{id}/submit/` with `--via api`), parsed for the next pair and token."""

from __future__ import annotations

import http.client
import json
import random
import re
import resource
import time
import urllib.parse
from dataclasses import dataclass, field
from typing import Any

from judge_data import PASSWORD

LABELS = ("FS", "PS", "NS")


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
