"""Management commands on a database that is missing, unreachable or not migrated (issue 22, point 4): one line
on stderr naming the database and what to do, exit status 1, no traceback; and a server on a database that is
not migrated answers 503 saying to run migrate, not 500."""

from __future__ import annotations

import os
import subprocess
import sys

import psycopg
import pytest
import requests
from django.conf import settings

from tests.config.test_outages import closed_port, database_url, serving
from tests.conftest import ROOT


def manage(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    environment = {k: v for k, v in os.environ.items() if k not in ("DATABASE_URL", "DATA_DIR")}
    environment.update(DJANGO_SETTINGS_MODULE="tests.settings", **env)
    return subprocess.run(
        [sys.executable, "manage.py", *args], cwd=ROOT, env=environment, capture_output=True, text=True, timeout=120
    )


@pytest.fixture
def empty_database():
    """A PostgreSQL database that exists and has no tables."""
    name = f"{settings.DATABASES['default']['NAME']}_unmigrated"
    with psycopg.connect(database_url(name="postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
        conn.execute(f'CREATE DATABASE "{name}"')
    yield name
    with psycopg.connect(database_url(name="postgres"), autocommit=True) as conn:
        conn.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def one_line(done: subprocess.CompletedProcess[str]) -> str:
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    assert "Traceback" not in done.stderr
    return lines[0]


@pytest.mark.parametrize("command", [["migrate", "--check"], ["showmigrations"], ["createsuperuser", "--noinput"]])
def test_a_command_on_a_database_that_does_not_exist_prints_one_line_saying_what_to_do(command):
    # when
    done = manage(*command, DATABASE_URL=database_url(name="assess_no_such_database"))

    # then
    assert done.returncode == 1
    line = one_line(done)
    assert "the database 'assess_no_such_database' does not exist" in line
    assert "createdb assess_no_such_database" in line


def test_a_command_on_an_unreachable_server_prints_one_line_naming_the_server_and_the_database():
    # given
    port = closed_port()

    # when
    done = manage("migrate", "--check", DATABASE_URL=database_url(port=port))

    # then
    assert done.returncode == 1
    line = one_line(done)
    assert f"127.0.0.1:{port}" in line
    assert f"database '{settings.DATABASES['default']['NAME']}'" in line
    assert "cannot be reached: start it, or correct DATABASE_URL" in line


def test_a_command_on_the_embedded_default_without_its_folder_prints_one_line_naming_data_dir(tmp_path):
    # given
    missing = tmp_path / "no-such-folder"

    # when
    done = manage("migrate", "--check", DATA_DIR=str(missing))

    # then
    assert done.returncode == 1
    line = one_line(done)
    assert f"its folder {missing} does not exist" in line
    assert "DATA_DIR" in line
    assert not missing.exists()


def test_a_command_that_needs_tables_on_an_unmigrated_database_says_to_run_migrate(empty_database):
    # when
    done = manage("createsuperuser", "--noinput", "--username", "x", DATABASE_URL=database_url(name=empty_database))

    # then
    assert done.returncode == 1
    assert "run `manage.py migrate`" in one_line(done)


def test_the_traceback_is_still_there_when_asked_for():
    # when
    done = manage("migrate", "--check", "--traceback", DATABASE_URL=database_url(name="assess_no_such_database"))

    # then
    assert done.returncode == 1
    assert "Traceback" in done.stderr


def test_a_server_on_an_unmigrated_database_answers_503_saying_to_run_migrate(empty_database):
    # given
    with serving(DATABASE_URL=database_url(name=empty_database)) as base:
        # when
        api = requests.get(f"{base}/api/topics/", auth=("org", "pw"), timeout=30)
        page = requests.post(
            f"{base}/accounts/login/",
            cookies={"csrftoken": "k" * 32},
            data={"username": "org", "password": "pw", "csrfmiddlewaretoken": "k" * 32},
            timeout=30,
        )

    # then
    assert api.status_code == 503, api.text[:300]
    assert "run `manage.py migrate`" in api.json()["detail"]
    assert page.status_code == 503, page.text[:300]
    assert "manage.py migrate" in page.text
