"""Settings read the environment strictly: each case imports `config.settings` in a fresh process."""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from tests.conftest import ROOT

SHOW = (
    "import json, config.settings as s; print(json.dumps({'debug': s.DEBUG, 'secret': s.SECRET_KEY,"
    " 'hosts': s.ALLOWED_HOSTS, 'conn_max_age': s.DATABASES['default']['CONN_MAX_AGE'],"
    " 'eager': s.CELERY_TASK_ALWAYS_EAGER, 'timeout': s.LLM_REQUEST_TIMEOUT}))"
)


def settings_import(**env: str) -> subprocess.CompletedProcess[str]:
    """`import config.settings` with only these variables set (and what a process needs to run)."""
    base = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    return subprocess.run(
        [sys.executable, "-c", SHOW], cwd=ROOT, env={**base, **env}, capture_output=True, text=True, timeout=60
    )


def settings_of(**env: str) -> dict:
    done = settings_import(**env)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def refusal_of(**env: str) -> str:
    done = settings_import(**env)
    assert done.returncode != 0
    return done.stderr.strip().splitlines()[-1]


def test_it_refuses_to_start_without_a_secret_key_outside_debug():
    message = refusal_of()

    assert message.startswith("django.core.exceptions.ImproperlyConfigured: SECRET_KEY is not set")


def test_it_refuses_an_empty_secret_key_outside_debug():
    assert "SECRET_KEY is not set" in refusal_of(SECRET_KEY="", DEBUG="false")


def test_it_runs_a_debug_process_with_a_local_key():
    settings = settings_of(DEBUG="true")

    assert settings["debug"] is True
    assert settings["secret"].startswith("insecure-local-only")


def test_it_takes_the_secret_key_from_the_environment():
    settings = settings_of(SECRET_KEY="k" * 50)

    assert settings["debug"] is False
    assert settings["secret"] == "k" * 50


@pytest.mark.parametrize("value", ["maybe", "2", "tru", "enabled"])
def test_it_refuses_an_unknown_boolean_naming_the_variable(value):
    message = refusal_of(SECRET_KEY="k", DEBUG=value)

    assert (
        message == f"django.core.exceptions.ImproperlyConfigured: DEBUG={value!r} is not a boolean: use true or false"
    )


def test_it_names_any_boolean_variable_it_cannot_read():
    assert "CELERY_TASK_ALWAYS_EAGER='sometimes' is not a boolean" in refusal_of(
        SECRET_KEY="k", CELERY_TASK_ALWAYS_EAGER="sometimes"
    )


@pytest.mark.parametrize(
    ("value", "expected"), [("1", True), ("Yes", True), ("ON", True), ("0", False), ("off", False)]
)
def test_it_reads_the_usual_words_for_true_and_false(value, expected):
    assert settings_of(SECRET_KEY="k", CELERY_TASK_ALWAYS_EAGER=value)["eager"] is expected


def test_it_refuses_a_whole_number_it_cannot_read():
    assert refusal_of(SECRET_KEY="k", CONN_MAX_AGE="soon").endswith("CONN_MAX_AGE='soon' is not a whole number")


def test_it_refuses_a_number_it_cannot_read():
    assert refusal_of(SECRET_KEY="k", LLM_REQUEST_TIMEOUT="1m").endswith("LLM_REQUEST_TIMEOUT='1m' is not a number")


def test_it_reads_numbers():
    settings = settings_of(
        SECRET_KEY="k", DATABASE_URL="postgres://u@h:5432/d", CONN_MAX_AGE="7", LLM_REQUEST_TIMEOUT="2.5"
    )

    assert settings["conn_max_age"] == 7
    assert settings["timeout"] == 2.5


def test_it_counts_an_empty_variable_as_unset():
    # docker-compose passes `${ALLOWED_HOSTS:-}`: an empty value keeps the one default, written in settings.
    settings = settings_of(SECRET_KEY="k", ALLOWED_HOSTS="", DEBUG="", CONN_MAX_AGE="")

    assert settings["hosts"] == ["localhost", "127.0.0.1", "[::1]"]
    assert settings["debug"] is False


def test_it_reads_a_list_of_hosts():
    assert settings_of(SECRET_KEY="k", ALLOWED_HOSTS="a.example.org, b.example.org,")["hosts"] == [
        "a.example.org",
        "b.example.org",
    ]
