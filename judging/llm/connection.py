"""One real call to a judge, to see before a job that its endpoint, key and model answer."""

from __future__ import annotations

import time
from dataclasses import dataclass

import openai

from judging.llm.client import ProviderNotConfigured, client_for
from judging.llm.models import LLMJudge
from judging.llm.parse import label_parse
from judging.llm.prompt import messages_for

SAMPLE_STATEMENT = "The Eiffel Tower is in Paris."
SAMPLE_CITATION = (
    "Eiffel Tower: The Eiffel Tower is a wrought-iron lattice tower on the Champ de Mars in Paris, France."
)
TIMEOUT_SECONDS = 30.0


@dataclass(frozen=True)
class ConnectionCheck:
    ok: bool
    answer: str = ""
    label: str = ""
    error: str = ""
    latency_ms: int | None = None
    input_tokens: int = 0
    output_tokens: int = 0


def connection_check(llm: LLMJudge) -> ConnectionCheck:
    """Call the judge once with its own prompt on a sample pair; an error is said in one readable line."""
    messages = messages_for(version=llm.prompt_version, statement=SAMPLE_STATEMENT, citation=SAMPLE_CITATION)
    try:
        client = client_for(llm, timeout=TIMEOUT_SECONDS)
    except ProviderNotConfigured as error:
        return ConnectionCheck(ok=False, error=f"not configured: {error}")
    started = time.monotonic()
    try:
        response = client.chat.completions.create(
            model=llm.model,
            messages=messages,  # type: ignore[arg-type]
            temperature=llm.temperature,
        )
    except openai.APIStatusError as error:
        return ConnectionCheck(ok=False, error=f"HTTP {error.status_code}: {_status_text(error)}"[:500])
    except openai.APITimeoutError:
        return ConnectionCheck(ok=False, error=f"no answer within {TIMEOUT_SECONDS:.0f} s")
    except openai.APIConnectionError as error:
        cause = error.__cause__ or error
        return ConnectionCheck(ok=False, error=f"cannot connect to {client.base_url}: {cause}"[:500])
    latency_ms = int((time.monotonic() - started) * 1000)
    answer = (response.choices[0].message.content or "") if response.choices else ""
    usage = response.usage
    return ConnectionCheck(
        ok=True,
        answer=answer[:500],
        label=label_parse(answer) or "",
        latency_ms=latency_ms,
        input_tokens=usage.prompt_tokens if usage else 0,
        output_tokens=usage.completion_tokens if usage else 0,
    )


def _status_text(error: openai.APIStatusError) -> str:
    """The provider's own message (`{"error": {"message": ...}}`, which the SDK unwraps), else the SDK's."""
    body = error.body
    if isinstance(body, dict) and isinstance(body.get("message"), str):
        return str(body["message"])
    return error.message
