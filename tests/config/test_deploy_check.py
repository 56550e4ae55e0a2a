"""`manage.py check --deploy` is clean under the production environment docs/operations.md documents (issue 17,
point 7): the block is read from the document, so the documentation and the settings cannot drift apart."""

from __future__ import annotations

import os
import re
import subprocess
import sys

from tests.conftest import ROOT

BLOCK = re.compile(r"```sh production-environment\n(.*?)```", re.S)


def documented_production_environment() -> dict[str, str]:
    text = (ROOT / "docs" / "operations.md").read_text()
    block = BLOCK.search(text)
    assert block, "docs/operations.md has no production-environment block"
    lines = [line for line in block.group(1).splitlines() if line.strip() and not line.startswith("#")]
    return dict(line.split("=", 1) for line in lines)


def deploy_check(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    base = {name: os.environ[name] for name in ("PATH", "HOME", "LANG") if name in os.environ}
    return subprocess.run(
        [sys.executable, "manage.py", "check", "--deploy", "--fail-level", "WARNING"],
        cwd=ROOT,
        env={**base, **env, "DJANGO_SETTINGS_MODULE": "config.settings"},
        capture_output=True,
        text=True,
        timeout=120,
    )


def test_it_passes_the_deploy_check_under_the_documented_production_environment():
    done = deploy_check(documented_production_environment())

    assert done.returncode == 0, done.stderr
    assert "System check identified no issues" in done.stdout


def test_it_documents_every_https_setting_as_an_environment_variable():
    env = documented_production_environment()

    for name in ("SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_COOKIES", "TRUST_X_FORWARDED_PROTO"):
        assert name in env


def test_it_fails_the_deploy_check_without_the_https_settings():
    env = documented_production_environment()
    for name in ("SECURE_SSL_REDIRECT", "SECURE_HSTS_SECONDS", "SECURE_COOKIES"):
        env.pop(name)

    done = deploy_check(env)

    assert done.returncode != 0
    for warning in ("security.W004", "security.W008", "security.W012", "security.W016"):
        assert warning in done.stderr
