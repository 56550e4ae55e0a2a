"""docker compose cannot run here (no engine); check the stack's shape by reading docker-compose.yml."""

from __future__ import annotations

import re

import pytest
import yaml

from tests.conftest import ROOT


@pytest.fixture(scope="module")
def compose() -> dict:
    return yaml.safe_load((ROOT / "docker-compose.yml").read_text())


@pytest.fixture(scope="module")
def services(compose) -> dict:
    return compose["services"]


def command_text(service: dict) -> str:
    command = service.get("command", "")
    return " ".join(command) if isinstance(command, list) else command


def test_it_defines_the_four_services(services):
    assert set(services) == {"web", "worker", "db", "redis"}


def test_it_serves_the_web_with_gunicorn_after_migrating(services):
    command = command_text(services["web"])

    assert "manage.py migrate" in command
    # Django alone, with the settings file that says which workers and why.
    assert "gunicorn -c config/gunicorn.py" in command
    assert command.index("migrate") < command.index("gunicorn")
    assert any(str(p).endswith(":8000") for p in services["web"]["ports"])


def test_it_runs_a_celery_worker_on_the_projects_app(services):
    assert re.search(r"\bcelery -A config worker\b", command_text(services["worker"]))


def test_it_runs_postgresql_and_redis_from_their_images(services):
    assert services["db"]["image"].startswith("postgres:")
    assert services["redis"]["image"].startswith("redis:")


@pytest.mark.parametrize("name", ["web", "worker", "db", "redis"])
def test_it_gives_every_service_a_health_check(services, name):
    test = services[name]["healthcheck"]["test"]

    assert test[0] in ("CMD", "CMD-SHELL")
    assert len(test) > 1


@pytest.mark.parametrize("name", ["web", "worker"])
def test_it_starts_the_app_only_when_postgresql_and_redis_are_healthy(services, name):
    depends = services[name]["depends_on"]

    assert depends["db"]["condition"] == "service_healthy"
    assert depends["redis"]["condition"] == "service_healthy"


def test_it_keeps_the_database_on_a_named_volume(compose, services):
    mounts = {v.split(":")[1]: v.split(":")[0] for v in services["db"]["volumes"]}

    assert mounts["/var/lib/postgresql/data"] in compose["volumes"]


@pytest.mark.parametrize("name", ["web", "worker"])
def test_it_points_the_app_at_the_compose_database_and_broker(services, name):
    env = services[name]["environment"]

    assert re.fullmatch(r"postgres://[^@]+@db:5432/\w+", env["DATABASE_URL"])
    assert re.fullmatch(r"redis://redis:6379/\d+", env["REDIS_URL"])
    # No default key: compose refuses to start without SECRET_KEY, and settings refuse it outside DEBUG.
    assert env["SECRET_KEY"].startswith("${SECRET_KEY:?")
    assert "DEBUG" not in env


def test_it_shares_the_upload_volume_between_web_and_worker(compose, services):
    # the worker imports the files that the web process stored
    def uploads_mount(name: str) -> tuple[str, str]:
        media_root = services[name]["environment"]["MEDIA_ROOT"]
        (volume,) = [v.split(":")[0] for v in services[name]["volumes"] if v.split(":")[1] == media_root]
        return volume, media_root

    assert uploads_mount("web") == uploads_mount("worker")
    assert uploads_mount("web")[0] in compose["volumes"]


def test_it_builds_the_app_image_from_the_dockerfile(services):
    dockerfile = (ROOT / "Dockerfile").read_text()

    assert services["web"]["build"] == "."
    assert services["worker"]["build"] == "."
    assert re.search(r"^FROM python:3\.11", dockerfile, re.M)
    assert "requirements/base.txt" in dockerfile
    assert (ROOT / "requirements" / "base.txt").is_file()
    assert re.search(r'^CMD \["gunicorn", "-c", "config/gunicorn\.py"\]', dockerfile, re.M)
    assert ".venv" in (ROOT / ".dockerignore").read_text().split()
