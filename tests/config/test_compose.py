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


def test_it_defines_the_four_services_and_the_one_shot_migration(services):
    assert set(services) == {"web", "worker", "db", "redis", "migrate"}


def test_it_serves_the_web_with_gunicorn_and_leaves_migrating_to_the_one_shot(services):
    command = command_text(services["web"])

    # Django alone, with the settings file that says which workers and why.
    assert command == "gunicorn -c config/gunicorn.py"
    assert "migrate" not in command_text(services["worker"])
    assert any(str(p).endswith(":8000") for p in services["web"]["ports"])


def test_it_migrates_once_in_a_one_shot_service_after_postgresql_is_healthy(services):
    migrate = services["migrate"]

    assert command_text(migrate) == "python manage.py migrate --noinput"
    # a one-shot: not restarted once it has exited, published on no port, waiting for nothing but the database
    assert migrate["restart"] == "no"
    assert "ports" not in migrate
    assert migrate["depends_on"] == {"db": {"condition": "service_healthy"}}
    assert migrate["build"] == services["web"]["build"]
    assert migrate["environment"] == services["web"]["environment"]


@pytest.mark.parametrize("name", ["web", "worker"])
def test_it_starts_web_and_worker_only_after_the_migration_succeeded(services, name):
    assert services[name]["depends_on"]["migrate"] == {"condition": "service_completed_successfully"}


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


def redis_options(service: dict) -> dict[str, str]:
    args = service["command"]
    assert args[0] == "redis-server"
    return {args[i].removeprefix("--"): args[i + 1] for i in range(1, len(args), 2)}


def test_it_keeps_the_brokers_tasks_over_a_redis_restart(compose, services):
    # the Celery broker's countdown tasks (stale-claim checks, batch polls) must outlive a restart of Redis
    options = redis_options(services["redis"])
    mounts = {v.split(":")[1]: v.split(":")[0] for v in services["redis"]["volumes"]}

    assert options["appendonly"] == "yes"
    assert options["appendfsync"] in ("always", "everysec")
    assert options.get("save") != ""  # not turned off as it was
    # the official image writes its append-only files under /data, its working directory
    assert mounts["/data"] in compose["volumes"]
    # a full Redis refuses writes rather than evicting queued tasks
    assert options.get("maxmemory-policy", "noeviction") == "noeviction"


# Every way the code reads an environment variable: settings' helpers, os.environ, the LLM client's `env`.
ENV_READ = re.compile(
    r"""\benv_(?:str|bool|int|float|list)\(\s*"(?P<a>[A-Z][A-Z0-9_]*)"
      |\b(?:os\.environ|env)(?:\.get\(|\[)\s*"(?P<b>[A-Z][A-Z0-9_]*)"
    """,
    re.X,
)
NOT_PASSED_ON_PURPOSE = {"DEBUG"}  # never in a served stack


def env_vars_the_code_reads() -> set[str]:
    names = set()
    for path in ROOT.rglob("*.py"):
        parts = path.relative_to(ROOT).parts
        if parts[0] in {".venv", "tests", "bench", "scripts"} or "migrations" in parts:
            continue
        for m in ENV_READ.finditer(path.read_text()):
            names.add(m["a"] or m["b"])
    return names


def test_the_scan_finds_the_variables_of_settings_gunicorn_and_the_llm_client():
    names = env_vars_the_code_reads()

    assert {"SECRET_KEY", "DB_POOL_SIZE", "LLM_REQUEST_TIMEOUT", "LLM_RATE_LIMIT_STORAGE"} <= names
    assert {"WEB_CONCURRENCY", "GUNICORN_BIND", "AZURE_OPENAI_API_KEY", "AZURE_OPENAI_API_VERSION"} <= names
    assert "DJANGO_SETTINGS_MODULE" not in names  # set by the entry points, not read from the deployment


@pytest.mark.parametrize("name", ["web", "worker", "migrate"])
def test_it_passes_every_variable_the_code_reads_through_to_the_app(services, name):
    env = services[name]["environment"]

    assert env_vars_the_code_reads() - NOT_PASSED_ON_PURPOSE - set(env) == set()


@pytest.mark.parametrize("name", ["web", "worker"])
def test_it_passes_optional_variables_through_unset_so_the_settings_defaults_hold(services, name):
    env = services[name]["environment"]

    for variable in ("LLM_REQUEST_TIMEOUT", "AZURE_OPENAI_ENDPOINT", "DB_POOL", "CELERY_BROKER_URL"):
        assert env[variable] == "${" + variable + ":-}"
    # the image's own places stay where the Dockerfile put them when nothing is set
    assert env["DATA_DIR"] == "${DATA_DIR:-/data}"
    assert env["STATIC_ROOT"] == "${STATIC_ROOT:-/app/staticfiles}"


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


@pytest.mark.parametrize(
    "pattern",
    [
        ".env",  # secrets
        ".env.*",
        "*.sqlite3",  # a local database and its WAL files
        "*.sqlite3-*",
        "var/",  # local data and uploads
        ".venv",
        "**/__pycache__",
        ".mypy_cache",
        ".ruff_cache",
        ".pytest_cache",
        ".git",
        "staticfiles/",
    ],
)
def test_it_keeps_secrets_local_data_and_caches_out_of_the_image(pattern):
    lines = [line.strip() for line in (ROOT / ".dockerignore").read_text().splitlines()]

    assert pattern in lines
    assert "!" + pattern not in lines
