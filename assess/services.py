"""Writes for the material under assessment that are not imports (those are `assess.importers`)."""

from __future__ import annotations

from collections.abc import Iterable

from django.db import connection
from django.db.models import Model


def tables_analyze(*, models: Iterable[type[Model]]) -> None:
    """Refresh PostgreSQL's planner statistics after a bulk write.

    Without them (autovacuum off, or not yet run) the planner takes a freshly filled table for empty and
    picks plans that cost seconds instead of milliseconds. A no-op on other databases."""
    if connection.vendor != "postgresql":
        return
    tables = ", ".join(connection.ops.quote_name(m._meta.db_table) for m in models)
    with connection.cursor() as cursor:
        cursor.execute(f"ANALYZE {tables}")
