"""Figures as the quality page prints them: "—" where there is nothing to show, never 0."""

from __future__ import annotations

from typing import Any

from django import template

register = template.Library()
DASH = "—"


@register.filter
def num(value: Any, digits: int = 2) -> str:
    return DASH if value is None or value == "" else f"{float(value):.{int(digits)}f}"


@register.filter
def pct(value: Any) -> str:
    return DASH if value is None or value == "" else f"{100 * float(value):.1f}%"


@register.filter
def get(mapping: Any, key: Any) -> Any:
    return mapping.get(key) if mapping is not None else None
