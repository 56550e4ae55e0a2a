"""The API's pagination: limit and offset validated as bounded integers, so a bad one is a clear 400."""

from __future__ import annotations

from typing import Any

from rest_framework import serializers
from rest_framework.exceptions import ValidationError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.request import Request

# PostgreSQL's LIMIT and OFFSET are bigints: a larger value ("bigint out of range") fails in the database.
LARGEST_OFFSET = 2**63 - 1
PAGE_PARAMS = ("limit", "offset")


class PageInputSerializer(serializers.Serializer[dict[str, Any]]):
    limit = serializers.IntegerField(required=False, min_value=1, max_value=LARGEST_OFFSET)
    offset = serializers.IntegerField(required=False, min_value=0, max_value=LARGEST_OFFSET)


class BoundedLimitOffsetPagination(LimitOffsetPagination):
    """DRF's limit/offset pagination, refusing (400) what DRF would silently replace (`limit=-1`, `offset=x`)
    or pass on to the database (30 digits); a limit above `max_limit` is capped to it."""

    max_limit = 1000

    def _page_input(self, request: Request) -> dict[str, Any]:
        serializer = PageInputSerializer(data={k: v for k, v in request.query_params.items() if k in PAGE_PARAMS})
        if not serializer.is_valid():
            raise ValidationError(serializer.errors)
        return dict(serializer.validated_data)

    def get_limit(self, request: Request) -> int | None:
        limit = self._page_input(request).get("limit")
        if limit is None:
            return self.default_limit
        return min(limit, self.max_limit) if self.max_limit else limit

    def get_offset(self, request: Request) -> int:
        return int(self._page_input(request).get("offset", 0))

    def get_schema_operation_parameters(self, view: Any) -> list[dict[str, Any]]:
        """DRF's two parameters, with the bounds `PageInputSerializer` holds them to."""
        bounds = {"limit": (1, LARGEST_OFFSET), "offset": (0, LARGEST_OFFSET)}
        parameters = super().get_schema_operation_parameters(view)
        for parameter in parameters:
            low, high = bounds[parameter["name"]]
            parameter["schema"] = {**parameter["schema"], "minimum": low, "maximum": high}
        return parameters
