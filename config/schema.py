"""The OpenAPI schema's error answers, written once for every operation (a drf-spectacular postprocessing hook).

DRF answers the same few errors on every view: 401/403 before a view runs (authentication, permission), 400 when a
query or body fails its serializer, 404 when a path names no row, and config/errors.py's 503 when PostgreSQL
or Redis cannot be reached. A view documents only what is its own (a 409 on cancel, a 400 body of its own shape)."""

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


def _answer(description: str, component: str) -> dict[str, Any]:
    return {
        "description": description,
        "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{component}"}}},
    }


def error_responses(method: str, operation: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The error answers DRF and the middleware can give this operation (an action, even without a body, can be
    refused as invalid: a 400)."""
    parameters = operation.get("parameters", [])
    answers = {
        "401": _answer("Not signed in (no session, token or Basic credentials).", "ErrorDetail"),
        "403": _answer("Signed in without the right (an organizer's API, another assessor's row).", "ErrorDetail"),
        "503": _answer("The database or Redis cannot be reached: nothing was done; retry later.", "ErrorDetail"),
    }
    if any(p.get("in") == "query" for p in parameters) or "requestBody" in operation or method != "get":
        answers["400"] = _answer(
            "The query or body is invalid (the errors name each field), or the action is refused.", "ValidationErrors"
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
