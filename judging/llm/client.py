"""OpenAI, Azure OpenAI and OpenAI-compatible clients, configured from the environment (keys never in the DB)."""

from __future__ import annotations

import atexit
import contextlib
import os
import threading
from typing import Any

from django.conf import settings
from openai import AsyncAzureOpenAI, AsyncOpenAI, AzureOpenAI, DefaultAioHttpClient, OpenAI

from judging.llm import aio
from judging.llm.models import LLMJudge, Provider

DEFAULT_AZURE_API_VERSION = "2024-10-21"


class ProviderNotConfigured(RuntimeError):
    """The environment lacks what this provider needs (a key, an endpoint)."""


def request_timeout() -> float:
    return float(settings.LLM_REQUEST_TIMEOUT)


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


def _config(llm: LLMJudge, timeout: float | None) -> tuple[object, ...]:
    provider_check(llm)
    env = os.environ
    timeout = timeout if timeout is not None else request_timeout()
    if llm.provider == Provider.AZURE:
        return (
            "azure",
            env["AZURE_OPENAI_API_KEY"],
            llm.base_url or env["AZURE_OPENAI_ENDPOINT"],
            env.get("AZURE_OPENAI_API_VERSION") or DEFAULT_AZURE_API_VERSION,
            timeout,
        )
    # vLLM, Ollama and most local servers accept any key; the SDK insists on one.
    api_key = env.get("OPENAI_API_KEY") or ("not-needed" if llm.provider == Provider.COMPATIBLE else "")
    return ("openai", api_key, llm.base_url or env.get("OPENAI_BASE_URL") or None, timeout)


def client_for(llm: LLMJudge, *, timeout: float | None = None) -> OpenAI:
    """A synchronous client (files and batches), with the SDK's own retries off.

    Clients are kept per process and configuration: building one costs a few hundred milliseconds (TLS
    context), and one client, thread-safe, keeps its connections alive.
    """
    key = (os.getpid(), *_config(llm, timeout))
    with _lock:
        client = _clients.get(key)
        if client is None:
            client = _clients[key] = _build(key[1:])
    return client


def async_client_for(llm: LLMJudge, *, timeout: float | None = None) -> AsyncOpenAI:
    """The client the live calls use, on this process's loop (judging.llm.aio); call it from the loop.

    Its transport is aiohttp, the SDK's documented choice for many concurrent requests. Retries,
    backoff and Retry-After are ours (judging.llm.calls), so the SDK's are off.
    """
    key = (os.getpid(), *_config(llm, timeout))
    client = _async_clients.get(key)
    if client is None:
        if not _async_clients:
            atexit.register(_async_clients_close)
        client = _async_clients[key] = _build_async(key[1:])
    return client


def _async_clients_close() -> None:
    """At exit, close this process's sessions on their loop (aiohttp complains of unclosed ones)."""
    clients = [client for key, client in _async_clients.items() if key[0] == os.getpid()]
    _async_clients.clear()

    async def close_all() -> None:
        for client in clients:
            await client.close()

    if clients:
        with contextlib.suppress(Exception):
            aio.submit(close_all()).result(timeout=5)


_clients: dict[tuple[object, ...], OpenAI] = {}
_async_clients: dict[tuple[object, ...], AsyncOpenAI] = {}
_lock = threading.Lock()


def _build(key: tuple[object, ...]) -> OpenAI:
    return _construct(key, OpenAI, AzureOpenAI)  # type: ignore[no-any-return]


def _build_async(key: tuple[object, ...]) -> AsyncOpenAI:
    return _construct(key, AsyncOpenAI, AsyncAzureOpenAI, http_client=DefaultAioHttpClient())  # type: ignore[no-any-return]


def _construct(key: tuple[object, ...], plain: Any, azure: Any, **extra: Any) -> Any:
    if key[0] == "azure":
        _, api_key, endpoint, api_version, timeout = key
        return azure(
            api_key=str(api_key),
            azure_endpoint=str(endpoint),
            api_version=str(api_version),
            max_retries=0,
            timeout=float(str(timeout)),
            **extra,
        )
    _, api_key, base_url, timeout = key
    return plain(
        api_key=str(api_key),
        base_url=None if base_url is None else str(base_url),
        max_retries=0,
        timeout=float(str(timeout)),
        **extra,
    )


def batch_endpoint(llm: LLMJudge) -> str:
    return "/chat/completions" if llm.provider == Provider.AZURE else "/v1/chat/completions"
