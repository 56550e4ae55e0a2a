"""One judge call per pair, with our own retries: exponential backoff with jitter, Retry-After honoured.

Runs on the calls' event loop (judging.llm.aio) and touches no database; the chunk writes the outcomes.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import openai
from openai import AsyncOpenAI

from judging.llm import ratelimit
from judging.llm.meter import CallMeter
from judging.llm.models import LLMResultStatus
from judging.llm.parse import label_parse

RETRYABLE_STATUS = {408, 409, 429}
RETRY_AFTER_CAP = 120.0


@dataclass(frozen=True)
class CallRequest:
    pair_id: int
    messages: list[dict[str, str]]
    estimated_tokens: int


@dataclass
class CallOutcome:
    pair_id: int  # the unit called: a support pair, or a kind's unit (judging/llm/units.py)
    status: str
    label: Any = ""  # a support label code; a kind's parsed label (its PRELABEL.parse)
    raw_output: str = ""
    error: str = ""
    latency_ms: int | None = None
    input_tokens: int = 0
    output_tokens: int = 0
    attempts: int = 0


@dataclass(frozen=True)
class RetryPolicy:
    max_attempts: int = 5
    backoff_base: float = 1.0
    backoff_cap: float = 60.0

    def backoff(self, attempt: int) -> float:
        """Equal jitter: half the exponential delay, plus up to as much again at random."""
        delay = min(self.backoff_cap, self.backoff_base * 2 ** (attempt - 1))
        return delay / 2 + random.uniform(0, delay / 2)


SUPPORT_PARSE_ERROR = "the reply names none of Full, Partial or No Support"


@dataclass(frozen=True)
class ReplyParser:
    """How a reply becomes a label: support's `label_parse`, or a kind's PRELABEL.parse (None: a parse error)."""

    parse: Callable[[str], Any] = label_parse
    error: str = SUPPORT_PARSE_ERROR


SUPPORT_REPLIES = ReplyParser()


def outcome_from_text(
    *, pair_id: int, text: str, input_tokens: int, output_tokens: int, parser: ReplyParser = SUPPORT_REPLIES
) -> CallOutcome:
    label = parser.parse(text)
    ok = label is not None and label != ""
    return CallOutcome(
        pair_id=pair_id,
        status=LLMResultStatus.LABELLED if ok else LLMResultStatus.PARSE_ERROR,
        label=label if ok else "",
        raw_output=text,
        error="" if ok else parser.error,
        input_tokens=input_tokens,
        output_tokens=output_tokens,
    )


def outcome_from_body(*, pair_id: int, body: Any, parser: ReplyParser = SUPPORT_REPLIES) -> CallOutcome:
    """An outcome from a chat completion's JSON body (a live reply, or a line of a batch output)."""
    body = body if isinstance(body, dict) else {}
    choices = body.get("choices") or [{}]
    message = (choices[0] or {}).get("message") or {}
    usage = body.get("usage") or {}
    return outcome_from_text(
        pair_id=pair_id,
        text=str(message.get("content") or ""),
        input_tokens=int(usage.get("prompt_tokens") or 0),
        output_tokens=int(usage.get("completion_tokens") or 0),
        parser=parser,
    )


def retry_after_seconds(error: openai.APIStatusError) -> float | None:
    headers = error.response.headers
    millis = headers.get("retry-after-ms")
    if millis:
        try:
            return min(RETRY_AFTER_CAP, float(millis) / 1000)
        except ValueError:
            pass
    value = headers.get("retry-after")
    if not value:
        return None
    try:
        return min(RETRY_AFTER_CAP, float(value))
    except ValueError:
        parsed = email.utils.parsedate_to_datetime(value) if value else None
        return None if parsed is None else max(0.0, min(RETRY_AFTER_CAP, parsed.timestamp() - time.time()))


def is_transient(error: Exception) -> bool:
    if isinstance(error, openai.APIConnectionError):  # includes APITimeoutError
        return True
    if isinstance(error, openai.APIStatusError):
        return error.status_code in RETRYABLE_STATUS or error.status_code >= 500
    return False


def _describe(error: Exception) -> str:
    if isinstance(error, openai.APIStatusError):
        return f"HTTP {error.status_code}: {error.message}"[:2000]
    return f"{type(error).__name__}: {error}"[:2000]


class Caller:
    """Calls one judge from the calls' event loop (judging.llm.aio); shared by the calls of a chunk."""

    def __init__(
        self,
        *,
        client: AsyncOpenAI,
        model: str,
        temperature: float,
        budget: ratelimit.Budget,
        policy: RetryPolicy,
        stop: threading.Event | None = None,
        lease_seconds: float = 90.0,
        meter: CallMeter | None = None,
        parser: ReplyParser = SUPPORT_REPLIES,
    ) -> None:
        self.client = client
        self.parser = parser
        self.model = model
        self.temperature = temperature
        self.budget = budget
        self.policy = policy
        self.stop = stop or threading.Event()
        self.meter = meter or CallMeter()
        self.slots = (
            ratelimit.ConcurrencySlots(budget.key, budget.max_concurrency, lease_seconds=lease_seconds)
            if budget.max_concurrency
            else None
        )

    async def _sleep(self, seconds: float) -> None:
        deadline = time.monotonic() + seconds
        while (left := deadline - time.monotonic()) > 0:
            if self.stop.is_set():
                raise InterruptedError("stopped")
            await asyncio.sleep(min(left, 0.25))

    async def slot_acquire(self) -> str | None:
        """A concurrency slot for a call about to be made (None when the judge sets no bound)."""
        return await self.slots.acquire(stop=self.stop) if self.slots else None

    async def slots_drain(self) -> None:
        """No call is left to start: give back the slots kept for reuse."""
        if self.slots is not None:
            await self.slots.drain()

    async def _post(self, request: CallRequest, slot: str | None) -> Any:
        # The slot is held for the request only, not while backing off between attempts.
        if self.slots is not None and slot is None:
            slot = await self.slots.acquire(stop=self.stop)
        try:
            if self.budget.items(request.estimated_tokens):
                # `limits` waits by sleeping: in a thread, so that the other calls go on.
                await asyncio.to_thread(ratelimit.acquire, self.budget, tokens=request.estimated_tokens, stop=self.stop)
            # The SDK's generic `post` (its documented way to reach any endpoint) rather than
            # `chat.completions.create`: the same auth, Azure deployment routing and typed errors,
            # at half the CPU per call, which is what bounds a worker at high concurrency.
            self.meter.started()
            try:
                return await self.client.post(
                    "/chat/completions",
                    body={"model": self.model, "messages": request.messages, "temperature": self.temperature},
                    cast_to=object,
                )
            finally:
                self.meter.ended()
        finally:
            if self.slots is not None and slot is not None:
                await self.slots.release(slot)

    async def call(self, request: CallRequest, *, slot: str | None = None) -> CallOutcome:
        """Call until a label, a parse error or a lasting failure; `slot`, if given, is used by the first
        attempt and released by it. Raises InterruptedError when stopped while waiting."""
        last_error = ""
        for attempt in range(1, self.policy.max_attempts + 1):
            held, slot = slot, None
            if self.stop.is_set():
                # Stopped between attempts (the job was cancelled): the pair stays to do, not an error.
                if held is not None and self.slots is not None:
                    await self.slots.release(held)
                raise InterruptedError("stopped")
            started = time.monotonic()
            try:
                response = await self._post(request, held)
            except InterruptedError:
                raise
            except Exception as error:
                last_error = _describe(error)
                if not is_transient(error) or attempt == self.policy.max_attempts:
                    return CallOutcome(request.pair_id, LLMResultStatus.ERROR, error=last_error, attempts=attempt)
                wait = retry_after_seconds(error) if isinstance(error, openai.APIStatusError) else None
                await self._sleep(wait + random.uniform(0, 0.1) if wait is not None else self.policy.backoff(attempt))
                continue
            latency_ms = int((time.monotonic() - started) * 1000)
            outcome = outcome_from_body(pair_id=request.pair_id, body=response, parser=self.parser)
            outcome.latency_ms = latency_ms
            outcome.attempts = attempt
            return outcome
        return CallOutcome(request.pair_id, LLMResultStatus.ERROR, error=last_error, attempts=self.policy.max_attempts)
