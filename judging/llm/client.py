"""OpenAI, Azure OpenAI and OpenAI-compatible clients, configured from the environment (keys never in the DB)."""

from __future__ import annotations

import os
import threading

from django.conf import settings
from openai import AzureOpenAI, OpenAI

from judging.models import LLMJudge, Provider

DEFAULT_AZURE_API_VERSION = "2024-10-21"


class ProviderNotConfigured(RuntimeError):
    """The environment lacks what this provider needs (a key, an endpoint)."""


def request_timeout() -> float:
    return float(getattr(settings, "LLM_REQUEST_TIMEOUT", None) or os.environ.get("LLM_REQUEST_TIMEOUT") or 60)


def provider_check(llm: LLMJudge) -> None:
    """Raise ProviderNotConfigured with a message an organizer can act on."""
    env = os.environ
    if llm.provider == Provider.AZURE:
        if not env.get("AZURE_OPENAI_API_KEY"):
            raise ProviderNotConfigured("AZURE_OPENAI_API_KEY is not set")
        if not (llm.base_url or env.get("AZURE_OPENAI_ENDPOINT")):
            raise ProviderNotConfigured("set AZURE_OPENAI_ENDPOINT or the judge's base URL")
    elif llm.provider == Provider.COMPATIBLE:
        if not (llm.base_url or env.get("OPENAI_BASE_URL")):
            raise ProviderNotConfigured("an OpenAI-compatible judge needs a base URL (or OPENAI_BASE_URL)")
    elif not env.get("OPENAI_API_KEY"):
        raise ProviderNotConfigured("OPENAI_API_KEY is not set")


def client_for(llm: LLMJudge, *, timeout: float | None = None) -> OpenAI:
    """A client with the SDK's own retries off: retries, backoff and Retry-After are ours (judging.llm.calls).

    Clients are kept per process and configuration: building one costs a few hundred milliseconds (TLS
    context), and one client, thread-safe, keeps its connections alive across chunks.
    """
    provider_check(llm)
    env = os.environ
    timeout = timeout if timeout is not None else request_timeout()
    if llm.provider == Provider.AZURE:
        key: tuple[object, ...] = (
            os.getpid(),
            "azure",
            env["AZURE_OPENAI_API_KEY"],
            llm.base_url or env["AZURE_OPENAI_ENDPOINT"],
            env.get("AZURE_OPENAI_API_VERSION") or DEFAULT_AZURE_API_VERSION,
            timeout,
        )
    else:
        # vLLM, Ollama and most local servers accept any key; the SDK insists on one.
        api_key = env.get("OPENAI_API_KEY") or ("not-needed" if llm.provider == Provider.COMPATIBLE else "")
        key = (os.getpid(), "openai", api_key, llm.base_url or env.get("OPENAI_BASE_URL") or None, timeout)
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _build(key)
    return client


_clients: dict[tuple[object, ...], OpenAI] = {}
_lock = threading.Lock()


def _build(key: tuple[object, ...]) -> OpenAI:
    if key[1] == "azure":
        _, _, api_key, endpoint, api_version, timeout = key
        return AzureOpenAI(
            api_key=str(api_key),
            azure_endpoint=str(endpoint),
            api_version=str(api_version),
            max_retries=0,
            timeout=float(str(timeout)),
        )
    _, _, api_key, base_url, timeout = key
    return OpenAI(
        api_key=str(api_key),
        base_url=None if base_url is None else str(base_url),
        max_retries=0,
        timeout=float(str(timeout)),
    )


def batch_endpoint(llm: LLMJudge) -> str:
    return "/chat/completions" if llm.provider == Provider.AZURE else "/v1/chat/completions"
