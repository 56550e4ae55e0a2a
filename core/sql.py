"""Model instances from plain-SQL rows, for the few reads on every keystroke where composing the query with the
ORM cost more CPU than the database's work (see `judging.selectors`)."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime
from typing import Any, TypeVar

from django.db import connection, models
from django.utils import timezone
from django.utils.dateparse import parse_datetime

M = TypeVar("M", bound=models.Model)


def aware(value: Any) -> Any:
    """A datetime column read in plain SQL as the ORM gives it: SQLite gives naive UTC (or text)."""
    if isinstance(value, str):
        value = parse_datetime(value)
    if isinstance(value, datetime) and timezone.is_naive(value):
        return timezone.make_aware(value, UTC)
    return value


def fields_of(model: type[models.Model], names: Iterable[str] | None = None) -> list[Any]:
    """The model's concrete fields (those of these attribute names), in the model's order, the order
    `from_row` takes values in."""
    wanted = None if names is None else set(names)
    return [f for f in model._meta.concrete_fields if wanted is None or f.attname in wanted]


def from_row(model: type[M], fields: Sequence[Any], values: Sequence[Any]) -> M:
    """An instance loaded from the database with these fields (the others deferred, as with `only`)."""
    converted = [aware(v) if isinstance(f, models.DateTimeField) else v for f, v in zip(fields, values, strict=True)]
    return model.from_db(connection.alias, [f.attname for f in fields], converted)


def columns(alias: str, fields: Sequence[Any]) -> list[str]:
    return [f"{alias}.{connection.ops.quote_name(f.column)}" for f in fields]
