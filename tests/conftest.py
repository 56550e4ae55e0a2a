"""Shared fixtures: real PostgreSQL (DATABASE_URL), real Redis, Chromium through Playwright."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.factories import OrganizerFactory, UserFactory

ROOT = Path(__file__).resolve().parent.parent
DATA = Path(os.environ.get("ASSESS_DATA_DIR", "").strip() or ROOT / "data" / "trec-rag-2024")
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
PASSWORD = "pw-for-tests-1"


@pytest.fixture(scope="session")
def data_dir() -> Path:
    if not DATA.is_dir():
        pytest.fail(f"the data directory is missing: {DATA} (ASSESS_DATA_DIR, or the repository's data/trec-rag-2024)")
    return DATA


@pytest.fixture
def organizer(db: Any) -> Any:
    return OrganizerFactory(username="org")


@pytest.fixture
def assessor(db: Any) -> Any:
    return UserFactory(username="alice")


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    os.environ.setdefault("DJANGO_ALLOW_ASYNC_UNSAFE", "true")
    with sync_playwright() as pw:
        browser = pw.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS, headless=True)
        yield browser
        browser.close()


@pytest.fixture
def page(browser: Any) -> Iterator[Any]:
    context = browser.new_context()
    page = context.new_page()
    page.set_default_timeout(15_000)
    yield page
    context.close()


def browser_login(page: Any, live_server: Any, username: str, password: str = PASSWORD) -> None:
    page.goto(f"{live_server.url}/accounts/login/")
    page.fill("input[name=username]", username)
    page.fill("input[name=password]", password)
    page.click("button[type=submit]")
    page.wait_for_load_state("networkidle")


@pytest.fixture
def fake_openai() -> Iterator[Any]:
    """The OpenAI-compatible test server on 127.0.0.1 (tests/fake_openai.py); switch faults on `.switches`."""
    from tests.fake_openai import FakeOpenAI

    with FakeOpenAI() as server:
        yield server


@pytest.fixture
def llm_fast(settings: Any, monkeypatch: Any) -> Any:
    """Short timeouts and backoff for LLM tests, and no provider keys from the machine's environment."""
    for name in ("OPENAI_API_KEY", "OPENAI_BASE_URL", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_ENDPOINT"):
        monkeypatch.delenv(name, raising=False)
    settings.LLM_REQUEST_TIMEOUT = 1.0
    settings.LLM_BACKOFF_BASE_SECONDS = 0.02
    settings.LLM_BACKOFF_CAP_SECONDS = 0.2
    settings.LLM_MAX_ATTEMPTS = 5
    settings.LLM_BATCH_POLL_SECONDS = 0.05
    settings.LLM_RATE_LIMIT_STORAGE = "memory://"
    settings.BACKGROUND_IN_THREAD = False
    return settings


@pytest.fixture
def fresh_cache() -> Iterator[None]:
    """An empty Django cache, for tests that count what a cold page does (the metrics keys carry the newest
    rows' creation times beside their ids, so a recreated test database no longer meets its old keys)."""
    from django.core.cache import cache

    cache.clear()
    yield
    cache.clear()


def nist_excerpts_import(data_dir: Path) -> Any:
    """NIST's from-scratch labels (judge `nist`) of the two excerpt topics, with the answers they describe."""
    from judging.exchange.reading import JudgmentFormat, JudgmentImportOptions
    from judging.exchange.services import judgments_import

    excerpts = data_dir / "excerpts"
    return judgments_import(
        files=[
            excerpts / "final.citation_judgments_without_prediction.20241025.excerpt.jsonl",
            excerpts / "final.citation_judgments_Webassess.20241031.excerpt.jsonl",
        ],
        fmt=JudgmentFormat.NIST,
        options=JudgmentImportOptions(judge="nist", kind="human", condition="from_scratch"),
    )
