"""A small OpenAI-compatible HTTP server on 127.0.0.1 for the LLM tests and the pre-label benchmark.

It serves chat completions (the OpenAI path and the Azure deployment path), files and batches, with
switches for latency and faults, and it counts what it receives. The label it answers is read from a
marker in the statement (`[FS]`, `[PS]`, `[NS]`), "Partial Support" when there is none.
"""

from __future__ import annotations

import email.parser
import email.policy
import json
import random
import re
import socket
import threading
import time
import uuid
from collections import Counter
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any
from urllib.parse import urlsplit

ANSWERS = {"FS": "Full Support", "PS": "Partial Support", "NS": "No Support"}
_MARKER = re.compile(r"\[(FS|PS|NS)\]")
_STATEMENT = re.compile(r"Statement: (.*?)\n\nCitation:", re.S)
AZURE_CHAT = re.compile(r"^/openai/deployments/(?P<model>[^/]+)/chat/completions$")
FAULTS = ("429", "500", "hang", "garbage", "odd_case")


# UMBRELA's prompt (kinds/relevance/prompt.py) asks for a grade: the marker's, 2 when there is none.
GRADES = {"FS": 3, "PS": 1, "NS": 0}


# The sentence kind's prompt (kinds/sentence/prompt.py) asks two lines: a sentence marked [NW] needs no citation,
# one citing nothing has "No Citations", else the support its marker says ("Partial Support" without one).
_SENTENCE = re.compile(r"\nSentence: (.*?)\n\nCited passages:\n(.*)\Z", re.S)


def _sentence_answer(prompt: str) -> str | None:
    found = _SENTENCE.search(prompt)
    if found is None:
        return None
    sentence, passages = found.groups()
    if "[NW]" in sentence:
        return "Needs citation: No\nSupport: None"
    if passages.strip() == "(none)":
        return "Needs citation: Yes\nSupport: No Citations"
    marker = _MARKER.search(sentence)
    return f"Needs citation: Yes\nSupport: {ANSWERS[marker.group(1)] if marker else 'Partial Support'}"


def answer_for(prompt: str) -> str:
    sentence = _sentence_answer(prompt)
    if sentence is not None:
        return sentence
    if "##final score" in prompt:
        marker = _MARKER.search(prompt)
        return f"##final score: {GRADES[marker.group(1)] if marker else 2}"
    found = _STATEMENT.search(prompt)
    statement = found.group(1) if found else prompt
    marker = _MARKER.search(statement)
    return ANSWERS[marker.group(1)] if marker else "Partial Support"


@dataclass
class Switches:
    latency: float = 0.0
    # Probability of each fault per chat call, drawn from a seeded generator.
    fault_rates: dict[str, float] = field(default_factory=dict)
    # Faults served first, in order, before the random ones (e.g. ["429", "ok"]).
    script: list[str] = field(default_factory=list)
    retry_after: str = "1"
    hang_seconds: float = 5.0
    batch_ready_after: float = 0.0
    seed: int = 7


class _Server(ThreadingHTTPServer):
    # socketserver's default backlog of 5 resets connections when 64 callers connect at once.
    request_queue_size = 256


class FakeOpenAI:
    """Start with `with FakeOpenAI() as server:`; `server.base_url` is the OpenAI-style /v1 URL."""

    def __init__(self, **switches: Any) -> None:
        self.switches = Switches(**switches)
        self._random = random.Random(self.switches.seed)
        self._lock = threading.Lock()
        self.chat_calls = 0
        self.in_flight = 0
        self.max_in_flight = 0
        self.request_times: list[float] = []
        self.paths: Counter[str] = Counter()
        self.faults_served: Counter[str] = Counter()
        self.models: Counter[str] = Counter()
        self.files: dict[str, bytes] = {}
        self.batches: dict[str, dict[str, Any]] = {}
        self.batch_lines = 0
        self._httpd = _Server(("127.0.0.1", 0), _handler_for(self))
        self._httpd.daemon_threads = True
        self._thread = threading.Thread(target=self._httpd.serve_forever, daemon=True)

    @property
    def port(self) -> int:
        return int(self._httpd.server_address[1])

    @property
    def root_url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    @property
    def base_url(self) -> str:
        return f"{self.root_url}/v1"

    def start(self) -> FakeOpenAI:
        self._thread.start()
        return self

    def stop(self) -> None:
        self._httpd.shutdown()
        self._httpd.server_close()

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    def per_second(self) -> list[int]:
        """Chat requests per calendar second, from the first request on."""
        if not self.request_times:
            return []
        first = int(min(self.request_times))
        counts = Counter(int(t) - first for t in self.request_times)
        return [counts.get(i, 0) for i in range(max(counts) + 1)]

    def reset_counts(self) -> None:
        with self._lock:
            self.chat_calls = 0
            self.max_in_flight = 0
            self.request_times.clear()
            self.paths.clear()
            self.faults_served.clear()

    def max_in_any_second(self) -> int:
        """The most chat requests that arrived within any sliding one-second window."""
        return self.max_in_window(1.0)

    def max_in_window(self, seconds: float) -> int:
        times = sorted(self.request_times)
        best, start = 0, 0
        for end, t in enumerate(times):
            while t - times[start] >= seconds:
                start += 1
            best = max(best, end - start + 1)
        return best

    # -- behaviour -------------------------------------------------------------------------------

    def _next_fault(self) -> str:
        with self._lock:
            if self.switches.script:
                return self.switches.script.pop(0)
            roll = self._random.random()
        edge = 0.0
        for name in FAULTS:
            edge += self.switches.fault_rates.get(name, 0.0)
            if roll < edge:
                return name
        return "ok"

    def chat(
        self, body: dict[str, Any], model: str, fault: str | None = None
    ) -> tuple[int, dict[str, str], dict[str, Any] | None]:
        with self._lock:
            self.chat_calls += 1
            self.request_times.append(time.time())
            self.models[model] += 1
            self.in_flight += 1
            self.max_in_flight = max(self.max_in_flight, self.in_flight)
        try:
            return self._chat(body, model, fault)
        finally:
            with self._lock:
                self.in_flight -= 1

    def _chat(
        self, body: dict[str, Any], model: str, fault: str | None
    ) -> tuple[int, dict[str, str], dict[str, Any] | None]:
        fault = fault or self._next_fault()
        if fault != "ok":
            with self._lock:
                self.faults_served[fault] += 1
        if self.switches.latency:
            time.sleep(self.switches.latency)
        if fault == "429":
            error = {"error": {"message": "Rate limit reached", "type": "rate_limit_error", "code": "rate_limit"}}
            return 429, {"Retry-After": self.switches.retry_after}, error
        if fault == "500":
            return 500, {}, {"error": {"message": "The server had an error", "type": "server_error"}}
        if fault == "hang":
            time.sleep(self.switches.hang_seconds)
            return 504, {}, {"error": {"message": "too late", "type": "timeout"}}
        prompt = "".join(str(m.get("content", "")) for m in body.get("messages", []))
        text = answer_for(prompt)
        if fault == "garbage":
            text = "I cannot decide; the passage is about something else entirely."
        elif fault == "odd_case":
            text = f'"{text.upper()}."'
        return 200, {}, completion(model=model, text=text, prompt=prompt)

    def file_create(self, data: bytes, purpose: str) -> dict[str, Any]:
        file_id = f"file-{uuid.uuid4().hex[:12]}"
        with self._lock:
            self.files[file_id] = data
        return {"id": file_id, "object": "file", "bytes": len(data), "created_at": int(time.time()),
                "filename": "input.jsonl", "purpose": purpose, "status": "processed"}  # fmt: skip

    def batch_create(self, body: dict[str, Any]) -> dict[str, Any]:
        batch_id = f"batch_{uuid.uuid4().hex[:12]}"
        batch = {
            "id": batch_id,
            "object": "batch",
            "endpoint": body.get("endpoint", "/v1/chat/completions"),
            "input_file_id": body["input_file_id"],
            "completion_window": body.get("completion_window", "24h"),
            "status": "in_progress",
            "created_at": int(time.time()),
            "output_file_id": None,
            "error_file_id": None,
            "request_counts": {"total": 0, "completed": 0, "failed": 0},
            "_created": time.monotonic(),
        }
        with self._lock:
            self.batches[batch_id] = batch
        return _public(batch)

    def batch_retrieve(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
        if batch is None:
            return None
        if batch["status"] == "in_progress" and time.monotonic() - batch["_created"] >= self.switches.batch_ready_after:
            self._batch_finish(batch)
        elif batch["status"] == "cancelling":
            # A cancelled batch ends with what it had done: here, the first half of its requests.
            lines = self.files[batch["input_file_id"]].decode().splitlines()
            self._batch_finish(batch, upto=len(lines) // 2, ending="cancelled")
        return _public(batch)

    def batch_cancel(self, batch_id: str) -> dict[str, Any] | None:
        with self._lock:
            batch = self.batches.get(batch_id)
            if batch is None:
                return None
            if batch["status"] == "in_progress":
                batch["status"] = "cancelling"
        return _public(batch)

    def _batch_finish(self, batch: dict[str, Any], *, upto: int | None = None, ending: str = "completed") -> None:
        out, errors = [], []
        lines = self.files[batch["input_file_id"]].decode().splitlines()[:upto]
        for line in lines:
            if not line.strip():
                continue
            request = json.loads(line)
            fault = self._next_fault()
            with self._lock:
                self.batch_lines += 1
            if fault in ("500", "429", "hang"):
                errors.append({"id": f"req_{uuid.uuid4().hex[:8]}", "custom_id": request["custom_id"], "response": None,
                               "error": {"code": "server_error", "message": f"injected {fault}"}})  # fmt: skip
                continue
            status, _, body = self.chat(request["body"], request["body"].get("model", ""), fault)
            out.append({"id": f"req_{uuid.uuid4().hex[:8]}", "custom_id": request["custom_id"],
                        "response": {"status_code": status, "request_id": "r", "body": body}, "error": None})  # fmt: skip
        output_id = self.file_create("\n".join(json.dumps(o) for o in out).encode(), "batch_output")["id"]
        batch["output_file_id"] = output_id
        if errors:
            batch["error_file_id"] = self.file_create(
                "\n".join(json.dumps(e) for e in errors).encode(), "batch_output"
            )["id"]
        batch["request_counts"] = {"total": len(out) + len(errors), "completed": len(out), "failed": len(errors)}
        batch["status"] = ending


def completion(*, model: str, text: str, prompt: str) -> dict[str, Any]:
    prompt_tokens = max(1, len(prompt) // 4)
    completion_tokens = max(1, len(text) // 4)
    return {
        "id": f"chatcmpl-{uuid.uuid4().hex[:12]}",
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {"index": 0, "message": {"role": "assistant", "content": text}, "finish_reason": "stop", "logprobs": None}
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": completion_tokens,
            "total_tokens": prompt_tokens + completion_tokens,
        },
    }


def _public(batch: dict[str, Any]) -> dict[str, Any]:
    return {k: v for k, v in batch.items() if not k.startswith("_")}


class _Handler(BaseHTTPRequestHandler):
    """The fake's HTTP routes; `fake` is the FakeOpenAI that answers them (set by `_handler_for`)."""

    protocol_version = "HTTP/1.1"
    fake: FakeOpenAI

    def setup(self) -> None:
        super().setup()
        self.request.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def _send(self, status: int, body: dict[str, Any] | bytes | None, headers: dict[str, str] | None = None) -> None:
        payload = body if isinstance(body, bytes) else json.dumps(body or {}).encode()
        try:
            self.send_response(status)
            self.send_header("Content-Type", "application/json")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in (headers or {}).items():
                self.send_header(key, value)
            # Headers and body in one write: two small writes meet Nagle's algorithm and the
            # client's delayed ACK, which adds 40 ms to every response (real servers avoid it too).
            self._headers_buffer.append(b"\r\n" + payload)
            self.flush_headers()
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _body(self) -> bytes:
        length = int(self.headers.get("Content-Length") or 0)
        return self.rfile.read(length) if length else b""

    def _route(self) -> str:
        path = urlsplit(self.path).path
        with self.fake._lock:
            self.fake.paths[path] += 1
        return (
            path[len("/openai") :] if path.startswith("/openai/files") or path.startswith("/openai/batches") else path
        )

    def do_POST(self) -> None:
        path = self._route()
        raw = self._body()
        azure = AZURE_CHAT.match(path)
        if path == "/v1/chat/completions" or azure:
            body = json.loads(raw or b"{}")
            model = azure.group("model") if azure else body.get("model", "")
            status, headers, reply = self.fake.chat(body, model)
            self._send(status, reply, headers)
        elif path in ("/v1/files", "/files"):
            data, purpose = _multipart(self.headers.get("Content-Type", ""), raw)
            self._send(200, self.fake.file_create(data, purpose))
        elif path in ("/v1/batches", "/batches"):
            self._send(200, self.fake.batch_create(json.loads(raw or b"{}")))
        elif cancel := re.match(r"^(?:/v1)?/batches/(?P<id>[^/]+)/cancel$", path):
            batch = self.fake.batch_cancel(cancel.group("id"))
            self._send(200 if batch else 404, batch or {"error": {"message": "no such batch"}})
        else:
            self._send(404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}})

    def do_GET(self) -> None:
        path = self._route()
        files = re.match(r"^(?:/v1)?/files/(?P<id>[^/]+)/content$", path)
        batches = re.match(r"^(?:/v1)?/batches/(?P<id>[^/]+)$", path)
        if files and files.group("id") in self.fake.files:
            self._send(200, self.fake.files[files.group("id")])
        elif batches:
            batch = self.fake.batch_retrieve(batches.group("id"))
            self._send(200 if batch else 404, batch or {"error": {"message": "no such batch"}})
        else:
            self._send(404, {"error": {"message": f"no route {path}", "type": "invalid_request_error"}})


def _handler_for(server: FakeOpenAI) -> type[BaseHTTPRequestHandler]:
    return type("Handler", (_Handler,), {"fake": server})


def _multipart(content_type: str, raw: bytes) -> tuple[bytes, str]:
    message = email.parser.BytesParser(policy=email.policy.HTTP).parsebytes(
        f"Content-Type: {content_type}\r\n\r\n".encode() + raw
    )
    data, purpose = b"", ""
    for part in message.iter_parts():
        name = part.get_param("name", header="content-disposition")
        payload = part.get_payload(decode=True) or b""
        if name == "file":
            data = payload
        elif name == "purpose":
            purpose = payload.decode()
    return data, purpose
