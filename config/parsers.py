"""The API's body parsers: DRF's, with the nesting of a JSON body bounded and no control character in any
string of a body (JSON, form or multipart fields), for every API view at once.

PostgreSQL refuses NUL in text, so a NUL that reaches a lookup or a row is a database error (a 500) rather than
"not found"; no name, id or text the API accepts holds NUL or another control character but the whitespace
ones (the rule of the import lines, `assess.importers.schema.TEXT_CONTROLS`). Query strings and paths are
checked by `core.middleware`; bodies here, so every serializer field, slug lookups included, is covered."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import QueryDict
from rest_framework import status
from rest_framework.exceptions import APIException, ParseError
from rest_framework.parsers import DataAndFiles, FormParser, JSONParser, MultiPartParser

from assess.importers.schema import TEXT_CONTROLS

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


def control_character_at(value: Any) -> str | None:
    """Where the first string (a key or a value) holding a control character is in a parsed body, as a field
    path (`topics[0]`, `body` for the body itself), with the character; None when there is none."""
    stack: list[tuple[Any, str]] = [(value, "")]
    while stack:
        item, where = stack.pop()
        if isinstance(item, str):
            bad = next((ch for ch in item if ch in TEXT_CONTROLS), None)
            if bad is not None:
                return f"{where or 'body'}: holds the control character U+{ord(bad):04X}"
        elif isinstance(item, Mapping):
            for key, child in item.items():
                path = f"{where}.{key}" if where else str(key)
                stack.append((key, path))
                stack.append((child, path))
        elif isinstance(item, list):
            stack.extend((child, f"{where}[{i}]") for i, child in enumerate(item))
    return None


def refuse_control_characters(data: Any) -> None:
    problem = control_character_at(data)
    if problem is not None:
        raise ParseError(f"{problem}; no text the API accepts holds one")


class BodyTooLarge(APIException):
    status_code = status.HTTP_413_REQUEST_ENTITY_TOO_LARGE
    default_detail = "The request body is larger than the server takes."
    default_code = "body_too_large"


def refuse_too_large(parser_context: Mapping[str, Any] | None) -> None:
    """A JSON or form body above DATA_UPLOAD_MAX_MEMORY_SIZE is a 413 before it is read (DRF reads these bodies
    from the stream, past Django's own check of the setting). Files in a multipart body are not counted."""
    limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE
    request = (parser_context or {}).get("request")
    length = request.META.get("CONTENT_LENGTH") if request is not None else None
    if limit is not None and length and str(length).isdigit() and int(length) > limit:
        raise BodyTooLarge(f"The request body has {int(length):,} bytes; the server takes at most {limit:,} bytes.")


def _form_fields(data: QueryDict) -> dict[str, Any]:
    """A form's fields as the JSON body would hold them: one value, or a list of the repeated ones."""
    return {key: values[0] if len(values) == 1 else values for key, values in data.lists()}


class BoundedJSONParser(JSONParser):
    """A body nested deeper than MAX_JSON_DEPTH is a 400, whether Python's own decoder gives up first (its
    recursion limit: a RecursionError, which DRF would let through as a 500) or this check does."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        refuse_too_large(parser_context)
        try:
            data = super().parse(stream, media_type, parser_context)
        except RecursionError:
            data = None
            too_deep = True
        else:
            too_deep = json_depth(data) > MAX_JSON_DEPTH
        if too_deep:
            raise ParseError(f"JSON parse error - the body is nested more than {MAX_JSON_DEPTH} levels deep")
        refuse_control_characters(data)
        return data


class CheckedFormParser(FormParser):
    """DRF's form parser; a field holding a control character is a 400."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        refuse_too_large(parser_context)
        data = super().parse(stream, media_type, parser_context)
        refuse_control_characters(_form_fields(data))
        return data


class CheckedMultiPartParser(MultiPartParser):
    """DRF's multipart parser; a field (not a file's content, which its importer checks) holding a control
    character is a 400, and so is a file name holding one; fields above DATA_UPLOAD_MAX_MEMORY_SIZE are a 413."""

    def parse(self, stream: Any, media_type: str | None = None, parser_context: Mapping[str, Any] | None = None) -> Any:
        try:
            parsed: DataAndFiles = super().parse(stream, media_type, parser_context)
        except RequestDataTooBig as exc:
            raise BodyTooLarge(f"The form fields are larger than the server takes ({exc}).") from exc
        refuse_control_characters(_form_fields(parsed.data))
        refuse_control_characters({key: [f.name or "" for f in parsed.files.getlist(key)] for key in parsed.files})
        return parsed
