"""The API's JSON parser: DRF's, with the nesting of a request body bounded, for every API view at once."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from rest_framework.exceptions import ParseError
from rest_framework.parsers import JSONParser

# No request body the API reads nests deeper than a few levels; a hundred leaves room and stops abuse early.
MAX_JSON_DEPTH = 100


def json_depth(value: Any) -> int:
    """How deeply lists and objects nest in a parsed JSON value (a scalar is 0), without recursion."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, Mapping):
            children: Any = item.values()
        elif isinstance(item, list):
            children = item
        else:
            continue
        deepest = max(deepest, depth + 1)
        if deepest > MAX_JSON_DEPTH:
            break
        stack.extend((child, depth + 1) for child in children)
    return deepest


class BoundedJSONParser(JSONParser):
    """A body nested deeper than MAX_JSON_DEPTH is a 400, whether Python's own decoder gives up first (its
    recursion limit: a RecursionError, which DRF would let through as a 500) or this check does."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
            too_deep = True
        else:
            too_deep = json_depth(data) > MAX_JSON_DEPTH
        if too_deep:
            raise ParseError(f"JSON parse error - the body is nested more than {MAX_JSON_DEPTH} levels deep")
        return data
