"""The OpenAPI schema's error answers, written once for every operation (a drf-spectacular postprocessing hook).

DRF answers the same few errors on every view: 401/403 before a view runs (authentication, permission), 400 when a
query or body fails its serializer (or holds a NUL: core.middleware, config/parsers.py), 404 when a path names
no row, 429 with `Retry-After` when the API throttle (REST_FRAMEWORK's DEFAULT_THROTTLE_RATES) slows a client,
config/errors.py's 413 for a body above DATA_UPLOAD_MAX_MEMORY_SIZE, DRF's 415 for a body whose Content-Type the view
does not parse, and 503 (with `Retry-After`) when PostgreSQL
or Redis cannot be reached, and 414 from the web server (gunicorn's request-line limit) for a URL too long to
read. A view documents only what is its own (a 409 on cancel, a 400 body of its own shape)."""

from __future__ import annotations

from typing import Any

DETAIL = {
    "type": "object",
    "properties": {"detail": {"type": "string"}},
    "required": ["detail"],
}
# A serializer's errors by field ({"field": ["message"]}), or {"detail": "..."}; a view's bare refusal is a list.
VALIDATION_ERRORS = {"oneOf": [{"type": "object"}, {"type": "array", "items": {"type": "string"}}]}
COMPONENTS = {"ErrorDetail": DETAIL, "ValidationErrors": VALIDATION_ERRORS}


RETRY_AFTER = {
    "Retry-After": {
        "description": "Seconds to wait before sending the request again.",
        "schema": {"type": "integer", "minimum": 0},
    }
}


def _answer(description: str, component: str, *, retry_after: bool = False) -> dict[str, Any]:
    answer: dict[str, Any] = {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{component}"}}},
    }
    if retry_after:
        answer["headers"] = RETRY_AFTER
    return answer


def error_responses(method: str, operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The error answers DRF, the middleware and the web server can give this operation. Every one can be a 400:
    a query string holding a NUL is refused whatever the operation reads."""
    parameters = operation.get("parameters", [])
    answers = {
        "400": _answer(
            "The query or body is invalid (the errors name each field), or the action is refused.", "ValidationErrors"
        ),
        "401": _answer("Not signed in (no session, token or Basic credentials).", "ErrorDetail"),
        "403": _answer("Signed in without the right (an organizer's API, another assessor's row).", "ErrorDetail"),
        "414": {"description": "The URL is longer than the web server reads (gunicorn's request-line limit)."},
        "429": _answer(
            "Too many requests from this client this minute (the API throttle): wait `Retry-After` seconds.",
            "ErrorDetail",
            retry_after=True,
        ),
        "503": _answer(
            "The database or Redis cannot be reached: nothing was done; retry later.", "ErrorDetail", retry_after=True
        ),
    }
    if "requestBody" in operation:
        answers["413"] = _answer(
            "The body is larger than the server takes (DATA_UPLOAD_MAX_MEMORY_SIZE).", "ErrorDetail"
        )
        answers["415"] = _answer(
            "The body's Content-Type is not one this operation reads (its request body lists them).", "ErrorDetail"
        )
    if any(p.get("in") == "path" for p in parameters):
        answers["404"] = _answer("No such row (or not one this user may see).", "ErrorDetail")
    return answers


def add_error_responses(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    for path_item in result.get("paths", {}).values():
        for method, operation in path_item.items():
            responses = operation.setdefault("responses", {})
            for code, answer in error_responses(method, operation).items():
                responses.setdefault(code, answer)
    schemas = result.setdefault("components", {}).setdefault("schemas", {})
    for name, schema in COMPONENTS.items():
        schemas.setdefault(name, schema)
    return result
