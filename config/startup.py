"""Checks a web server makes once, before it serves a request (called by config/wsgi.py and config/asgi.py).

They live on the serving path, not in `AppConfig.ready` or a system check: `manage.py migrate`, `createdb`
flows, `collectstatic` in an image build and the tests must all run where the database does not exist yet or
cannot be reached, while a web server that starts on such a database would render a login page and then fail
every request after."""

from __future__ import annotations

import logging
import sys
from collections.abc import Sequence
from pathlib import Path

import psycopg
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, DatabaseError, OperationalError, connections

from config.errors import not_migrated

logger = logging.getLogger(__name__)


def database_exists(alias: str = DEFAULT_DB_ALIAS) -> bool | None:
    """Whether the configured PostgreSQL database exists: True, False, or None when it cannot be told (the
    server is unreachable). Asked of the server's `postgres` database, not read from an error message."""
    params = connections[alias].get_connection_params()
    name = params.pop("dbname", None) or connections[alias].settings_dict["NAME"]
    params = {k: v for k, v in params.items() if k in {"host", "port", "user", "password", "connect_timeout"}}
    try:
        with psycopg.connect(dbname="postgres", **params) as maintenance:
            row = maintenance.execute("SELECT 1 FROM pg_database WHERE datname = %s", [name]).fetchone()
    except psycopg.Error:
        return None
    return row is not None


def database_check(alias: str = DEFAULT_DB_ALIAS) -> None:
    """Refuse to serve (ImproperlyConfigured, naming the database and the fix) when the database does not exist.
    An unreachable server is not refused: it may be starting too, and until it answers requests get a 503."""
    connection = connections[alias]
    if connection.vendor != "postgresql":
        return  # SQLite creates its file on first use
    try:
        connection.ensure_connection()
    except OperationalError:
        exists = database_exists(alias)
        if exists is False:
            name = connection.settings_dict["NAME"]
            host = connection.settings_dict.get("HOST") or "localhost"
            raise ImproperlyConfigured(
                f"the database {name!r} does not exist on the PostgreSQL server at {host}: create it "
                f"(createdb {name}) and run `manage.py migrate`, or correct DATABASE_URL; not serving"
            ) from None
        logger.warning("PostgreSQL cannot be reached at start; requests answer 503 until it can")
    finally:
        connection.close()


def database_problem(exc: BaseException, alias: str = DEFAULT_DB_ALIAS) -> str | None:
    """One line naming the database and what to do, for a failure that means it is missing, unreachable or not
    migrated; None for any other error (a bug, shown with its traceback)."""
    if not isinstance(exc, DatabaseError):
        return None
    connection = connections[alias]
    name = str(connection.settings_dict["NAME"])
    if not_migrated(exc):
        return f"the database {name!r} has no tables yet: run `manage.py migrate` (or correct DATABASE_URL)"
    if not isinstance(exc, OperationalError):
        return None
    detail = (str(exc).strip().splitlines() or [type(exc).__name__])[0]
    if connection.vendor == "sqlite":
        folder = Path(name).parent
        if not folder.is_dir():
            return (
                f"the SQLite database {name} cannot be created: its folder {folder} does not exist; create it "
                f"(mkdir -p {folder}), or set DATA_DIR to a folder that does, or DATABASE_URL"
            )
        return f"the SQLite database {name} cannot be opened ({detail}): check the file and DATA_DIR"
    host = connection.settings_dict.get("HOST") or "localhost"
    port = connection.settings_dict.get("PORT") or 5432
    exists = database_exists(alias)
    if exists is False:
        return (
            f"the database {name!r} does not exist on the PostgreSQL server at {host}:{port}: create it "
            f"(createdb {name}) and run `manage.py migrate`, or correct DATABASE_URL"
        )
    if exists is None:
        return (
            f"the PostgreSQL server at {host}:{port} (database {name!r}) cannot be reached: start it, or correct "
            f"DATABASE_URL ({detail})"
        )
    return f"the database {name!r} on the PostgreSQL server at {host}:{port} refused the command: {detail}"


def run_command(argv: Sequence[str]) -> int:
    """`manage.py`: Django's command line, where a missing, unreachable or unmigrated database (and a setting that
    cannot be read) is one line on stderr and exit status 1 instead of a traceback. `--traceback` shows it all."""
    from django.core.management import execute_from_command_line

    prog = Path(argv[0]).name if argv else "manage.py"
    try:
        execute_from_command_line(list(argv))
    except ImproperlyConfigured as exc:
        if "--traceback" in argv:
            raise
        print(f"{prog}: {exc}", file=sys.stderr)
        return 1
    except DatabaseError as exc:
        problem = database_problem(exc)
        if problem is None or "--traceback" in argv:
            raise
        print(f"{prog}: {problem}", file=sys.stderr)
        return 1
    return 0
