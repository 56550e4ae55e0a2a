"""Our platform behind the Label Studio peer's bench.py (a harness outside this project; bench/assessor_load.sh finds it through PEER): the same client, load and
task bodies, so its figures compare like for like with the recorded Label Studio CE figures.

    PYTHONPATH=bench python $PEER/bench.py --adapter ls_adapter:AssessPlatformAdapter \
        --url http://127.0.0.1:8017 --token <organizer token> --worker-tokens workers.json --phases load

(bench/assessor_load.sh does all of it.) How bench.py's calls map onto the platform, through its public API only:

* project = a campaign; its id here is the campaign's name (names are unique; the export and the assessors'
  assignment list name campaigns by name). `create_project` uploads the campaign's topics (a TSV file).
* task {pair_id, sentence, context, passage} = one answer of three sentences (the context around the sentence,
  the sentence, the rest of the context) whose middle sentence cites one passage. `import_tasks` uploads a
  passages file (MS MARCO segment JSONL) and the answers as a NIST-format run file (one row per topic x run),
  waits for both import jobs, creates the campaign over those runs and topics (which builds its pairs), and
  assigns topic k to assessor k. Passage ids carry the campaign name, so every project has its own pairs
  (pairs are global: the same sentence and passage in two campaigns would be one pair, judged once).
* Label Studio's `maximum_annotations = 1`, every assessor taking the next unlabelled task of one shared
  queue, maps to our NIST-style layout: the tasks are split over T topics (ASSESS_BENCH_TOPICS, default one
  per assessor account, 20) and each assessor has their own topic; an assessor's next pair is the next
  unjudged pair of their topic. No pair is in two assessors' queues, so 2+ judgments on a task cannot happen
  by construction (not by a lock, as in Label Studio); the export check still counts them.
* next = GET /api/assignments/{id}/next/ (the caller's own assignment in the campaign, found once per worker
  through GET /api/assignments/); submit = POST /api/assignments/{id}/submit/ with the card's submission token,
  as the judging page does. Our submit also returns the next pair; ASSESS_BENCH_NEXT=piggyback uses it (one
  request per judgment, as our page works) instead of a separate GET (the default, two requests as in LS).
* export JSON/CSV = GET /api/metrics/judgments/?campaign=<name>&fmt=jsonl|csv (the judgments exchange file);
  annotations_per_task counts its rows per citation (one row per judge and citation: a judge's own repeat
  shows as fewer rows than 201 responses instead).
"""

from __future__ import annotations

import json
import os
import subprocess
import time
from collections import Counter
from pathlib import Path
from typing import Any

import requests

try:  # bench.py's own session class when run by it, so that both platforms see the same HTTP client
    from bench import OneShotSession  # type: ignore[attr-defined]
except ImportError:  # imported from the project (tests), where `bench` is this directory

    class OneShotSession(requests.Session):  # type: ignore[no-redef]
        """One TCP connection per request (`Connection: close`), as bench.py's client does by default."""

        def __init__(self) -> None:
            super().__init__()
            self.headers["Connection"] = "close"

        def request(self, *args: Any, **kwargs: Any) -> requests.Response:  # type: ignore[override]
            try:
                return super().request(*args, **kwargs)
            finally:
                self.close()


ROOT = Path(__file__).resolve().parent.parent
LABELS = {"Full Support": "FS", "Partial Support": "PS", "No Support": "NS"}
NIST_SUPPORT = {"FS": "2", "PS": "1", "NS": "0"}
DEFAULT_ASSESSORS = 20
IMPORT_JUDGE = "bench-import"


def assessor_name(k: int) -> str:
    return f"bench-assessor-{k + 1:02d}"  # as bench/bench_users.py names them


def _worker_usernames() -> list[str]:
    """Assessor k of the worker-token file (bench.py gives worker i the i-th token) gets topic k."""
    path = os.environ.get("BENCH_WORKER_TOKENS")
    if path and Path(path).is_file():
        names = [w.get("username") for w in json.loads(Path(path).read_text())]
        if all(names):
            return [str(n) for n in names]
    return [assessor_name(k) for k in range(DEFAULT_ASSESSORS)]


def split_context(task: dict[str, Any]) -> tuple[list[str], int]:
    """The answer's sentences (context before the sentence, the sentence, context after; empty parts left
    out) and the index of the sentence that cites the passage."""
    context, sentence = task["context"], task["sentence"]
    at = context.find(sentence)
    if at < 0:
        return [sentence], 0
    before, after = context[:at].strip(), context[at + len(sentence) :].strip()
    return [*([before] if before else []), sentence, *([after] if after else [])], 1 if before else 0


class ImportFailed(RuntimeError):
    pass


class AssessPlatformAdapter:
    name = "assess-platform"

    def __init__(self, url: str, admin_token: str, keepalive: bool = False, timeout: float = 600) -> None:
        self.url = url.rstrip("/")
        self.keepalive = keepalive
        self.timeout = timeout
        self.admin = self.session(admin_token)
        self.next_mode = os.environ.get("ASSESS_BENCH_NEXT", "get")
        if self.next_mode not in ("get", "piggyback"):
            raise ValueError("ASSESS_BENCH_NEXT must be get or piggyback")
        self.usernames = _worker_usernames()
        self.topics = int(os.environ.get("ASSESS_BENCH_TOPICS") or len(self.usernames))
        self.poll_seconds = 0.1

    # --- sessions and info ---------------------------------------------------------------------------

    def session(self, token: str) -> requests.Session:
        s = requests.Session() if self.keepalive else OneShotSession()
        s.headers["Authorization"] = f"Token {token}"
        return s

    def info(self) -> dict[str, Any]:
        r = self.admin.get(self.url + "/api/assignments/", params={"limit": 1}, timeout=30)
        r.raise_for_status()  # the organizer token works
        try:
            commit = subprocess.run(
                ["git", "-C", str(ROOT), "rev-parse", "--short", "HEAD"], capture_output=True, text=True, check=True
            ).stdout.strip()
        except (OSError, subprocess.CalledProcessError):
            commit = ""
        return {
            "version": f"git {commit}" if commit else "",
            "next_mode": self.next_mode,
            "topics_per_project": self.topics,
            "http_session": f"{OneShotSession.__module__}.{OneShotSession.__name__}",
        }

    # --- organizer side -------------------------------------------------------------------------------

    def _topic_ids(self, pid: str) -> list[str]:
        return [f"{pid}-t{k:02d}" for k in range(self.topics)]

    def _upload(self, kind: str, filename: str, body: bytes, **fields: str) -> dict[str, Any]:
        """Upload one file to /api/imports/<kind>/ and wait for its import job to finish."""
        r = self.admin.post(
            f"{self.url}/api/imports/{kind}/",
            files=[("files", (filename, body, "application/octet-stream"))],
            data=fields,
            timeout=self.timeout,
        )
        if r.status_code != 202:
            raise ImportFailed(f"upload {kind} {r.status_code}: {r.text[:500]}")
        job = r.json()
        deadline = time.monotonic() + self.timeout * 6
        while job["status"] not in ("done", "failed"):
            if time.monotonic() > deadline:
                raise ImportFailed(f"import job {job['id']} still {job['status']}")
            time.sleep(self.poll_seconds)
            r = self.admin.get(f"{self.url}/api/imports/{job['id']}/", timeout=self.timeout)
            r.raise_for_status()
            job = r.json()
        if job["status"] != "done":
            raise ImportFailed(f"import {kind} failed: {[e['text'] for e in job['errors'][:5]]}")
        return job

    def create_project(self, title: str) -> str:
        tsv = "".join(f"{t}\tSynthetic question {k} of {title}\n" for k, t in enumerate(self._topic_ids(title)))
        self._upload("topics", "topics.tsv", tsv.encode())
        return title

    def _nist_rows(self, pid: str, tasks: list[dict[str, Any]], labels: list[str] | None = None) -> list[str]:
        topics = self._topic_ids(pid)
        rows = []
        for i, task in enumerate(tasks):
            sentences = []
            texts, judged = split_context(task)
            for n, text in enumerate(texts):
                cites = []
                if n == judged:
                    support = NIST_SUPPORT[labels[i]] if labels else "-1"
                    cites = [{"citationID": 0, "reference": f"{pid}#{task['pair_id']}", "support": support}]
                sentences.append({"sentenceID": n, "text": text, "citations": cites})
            row = {"topic_id": topics[i % len(topics)], "run_id": self._run_id(pid, i), "sentences": sentences}
            rows.append(json.dumps(row))
        return rows

    def _run_id(self, pid: str, i: int) -> str:
        return f"{pid}.r{i // self.topics:05d}"

    def import_tasks(self, pid: str, tasks: list[dict[str, Any]]) -> dict[str, Any]:
        """Passages, then the answers (NIST-format run file), then the campaign (its pairs) and assignments."""
        t0 = time.perf_counter()
        passages = "".join(
            json.dumps({"docid": f"{pid}#{t['pair_id']}", "title": "", "url": "", "segment": t["passage"]}) + "\n"
            for t in tasks
        )
        self._upload("passages", "passages.jsonl", passages.encode())
        t1 = time.perf_counter()
        self._upload("runs", "runs.nist.jsonl", ("\n".join(self._nist_rows(pid, tasks)) + "\n").encode(), format="nist")
        t2 = time.perf_counter()
        run_ids = sorted({self._run_id(pid, i) for i in range(len(tasks))})
        r = self.admin.post(
            f"{self.url}/api/campaigns/",
            json={"name": pid, "runs": run_ids, "topics": self._topic_ids(pid), "depth": 1},
            timeout=self.timeout,
        )
        if r.status_code != 201 or "build_error" in r.json():
            raise ImportFailed(f"campaign {r.status_code}: {r.text[:500]}")
        campaign = r.json()
        t3 = time.perf_counter()
        for k, topic in enumerate(self._topic_ids(pid)[: len(self.usernames)]):
            a = self.admin.post(
                f"{self.url}/api/assignments/",
                json={
                    "campaign": campaign["id"],
                    "assessor": self.usernames[k],
                    "topics": [topic],
                    "condition": "from_scratch",
                },
                timeout=self.timeout,
            )
            if a.status_code != 201:
                raise ImportFailed(f"assignment {a.status_code}: {a.text[:500]}")
        t4 = time.perf_counter()
        pairs = campaign["build_summary"]["pairs"]
        if pairs != len(tasks):
            raise ImportFailed(f"{len(tasks)} tasks made {pairs} pairs")
        return {
            "task_count": pairs,
            "annotation_count": 0,
            "server_duration_s": None,
            "steps_s": {
                "passages": round(t1 - t0, 2),
                "runs": round(t2 - t1, 2),
                "campaign_build": round(t3 - t2, 2),
                "assignments": round(t4 - t3, 2),
            },
        }

    def import_annotated(self, pid: str, tasks: list[dict[str, Any]], choice_of: Any) -> dict[str, Any]:
        """The tasks as above, then one label per task as NIST support judgments of the `bench-import` judge."""
        out = self.import_tasks(pid, tasks)
        labels = [LABELS[choice_of(i)] for i in range(len(tasks))]
        body = ("\n".join(self._nist_rows(pid, tasks, labels)) + "\n").encode()
        r = self.admin.post(
            f"{self.url}/api/metrics/judgments/import/",
            files=[("files", ("labels.nist.jsonl", body, "application/octet-stream"))],
            data={"format": "nist", "judge": IMPORT_JUDGE, "kind": "human", "condition": "from_scratch"},
            timeout=self.timeout * 6,
        )
        if r.status_code != 200:
            raise ImportFailed(f"judgments import {r.status_code}: {r.text[:500]}")
        out["annotation_count"] = r.json().get("counts", {}).get("judgments")
        return out

    def export(self, pid: str, fmt: str) -> bytes:
        r = self.admin.get(
            f"{self.url}/api/metrics/judgments/",
            params={"campaign": pid, "fmt": "csv" if fmt == "CSV" else "jsonl"},
            timeout=self.timeout * 6,
        )
        r.raise_for_status()
        return r.content

    def annotations_per_task(self, pid: str) -> dict[str, int]:
        per_task: Counter[str] = Counter()
        for line in self.export(pid, "JSON").splitlines():
            if line.strip():
                row = json.loads(line)
                per_task[f"{row['topic_id']}/{row['run_id']}/{row['sentence_index']}/{row['citation_slot']}"] += 1
        return dict(per_task)

    # --- assessor side (one session per worker process) -----------------------------------------------

    def _assignment(self, s: requests.Session, pid: str) -> int | None:
        found: dict[str, int] = s.__dict__.setdefault("assess_assignments", {})
        if pid not in found:
            r = s.get(f"{self.url}/api/assignments/", params={"limit": 1000}, timeout=self.timeout)
            r.raise_for_status()
            mine = [a for a in r.json()["results"] if a["campaign"] == pid]
            if not mine:
                return None
            found[pid] = mine[0]["id"]
        return found[pid]

    def next_task(self, s: requests.Session, pid: str) -> tuple[int | None, int | str]:
        aid = self._assignment(s, pid)
        if aid is None:
            return None, 404
        cards: dict[str, Any] = s.__dict__.setdefault("assess_next", {})
        card = cards.pop(pid, None) if self.next_mode == "piggyback" else None
        if card is None:
            r = s.get(f"{self.url}/api/assignments/{aid}/next/", timeout=self.timeout)
            if r.status_code != 200:
                return None, r.status_code
            card = r.json()
        pair = card["pair"]
        if pair is None:
            return None, 404
        s.__dict__.setdefault("assess_tokens", {})[(pid, pair["pair_id"])] = pair["token"]
        return pair["pair_id"], 200

    def submit(self, s: requests.Session, pid: str, task_id: int, choice: str, lead_time: float) -> int:
        aid = self._assignment(s, pid)
        token = s.__dict__.get("assess_tokens", {}).pop((pid, task_id))
        r = s.post(
            f"{self.url}/api/assignments/{aid}/submit/",
            json={"pair_id": task_id, "token": token, "label": LABELS[choice], "seconds": lead_time},
            timeout=self.timeout,
        )
        if self.next_mode == "piggyback" and r.status_code in (200, 201):
            s.__dict__.setdefault("assess_next", {})[pid] = r.json()["next"]
        return r.status_code
