"""The bounds of a model's integer column, as an API serializer's `min_value` / `max_value`.

A number a request sends on to a column is refused (400) by its serializer when the column cannot hold it, before
it reaches the database (where it would be "integer out of range" or a check constraint: a 500). The column is
the one home of the bound: Django derives it from the database's integer range (`PositiveIntegerField` on
PostgreSQL is 0..2,147,483,647), and a serializer states only what is stricter (`min_value=1`)."""

from __future__ import annotations

from typing import Any

from django.core.validators import MaxValueValidator, MinValueValidator
from django.db import models

# A seed that only reaches numpy (a query's bootstrap seed, no column): numpy's SeedSequence takes 0..2**32-1 as
# one word; the same range keeps it one number in the JSON answers.
SEED_MAX = 2**32 - 1


def column_bounds(model: type[models.Model], name: str, **stricter: int) -> dict[str, Any]:
    """`{"min_value": ..., "max_value": ...}` of the column `model.name`, narrowed by `stricter` (which may only
    narrow it: a wider bound would let the database refuse what the serializer accepted)."""
    field = model._meta.get_field(name)
    bounds: dict[str, Any] = {}
    for validator in getattr(field, "validators", []):
        if isinstance(validator, MinValueValidator):
            bounds["min_value"] = int(validator.limit_value)  # type: ignore[arg-type]
        elif isinstance(validator, MaxValueValidator):
            bounds["max_value"] = int(validator.limit_value)  # type: ignore[arg-type]
    if set(bounds) != {"min_value", "max_value"}:
        raise ValueError(f"{model.__name__}.{name} is not a bounded integer column")
    if stricter.get("min_value", bounds["min_value"]) < bounds["min_value"]:
        raise ValueError(f"{model.__name__}.{name}: min_value below the column's")
    if stricter.get("max_value", bounds["max_value"]) > bounds["max_value"]:
        raise ValueError(f"{model.__name__}.{name}: max_value above the column's")
    bounds.update(stricter)
    return bounds
