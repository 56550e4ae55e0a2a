"""Checks a web server makes once, before it serves a request (called by config/wsgi.py and config/asgi.py).

They live on the serving path, not in `AppConfig.ready` or a system check: `manage.py migrate`, `createdb`
flows, `collectstatic` in an image build and the tests must all run where the database does not exist yet or
cannot be reached, while a web server that starts on such a database would render a login page and then fail
every request after."""

from __future__ import annotations

import logging

import psycopg
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, OperationalError, connections

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
