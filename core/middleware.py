"""Request checks that hold for every URL, before any view runs."""

from __future__ import annotations

from collections.abc import Callable

from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest, JsonResponse

NUL = "\x00"
NUL_REFUSED = "NUL bytes (%00) are not allowed in a URL."


def refuse_nul_middleware(get_response: Callable[[HttpRequest], HttpResponse]) -> Callable[[HttpRequest], HttpResponse]:
    """400 for a NUL byte (`%00`) anywhere in the path or the query string. PostgreSQL refuses NUL in text, so
    a lookup by such an id or name fails in the database (a 500) instead of finding nothing; no id, name or
    parameter the platform accepts holds one, so the whole request is refused here, once for every view."""

    def middleware(request: HttpRequest) -> HttpResponse:
        if NUL in request.path_info or any(
            NUL in key or any(NUL in value for value in values) for key, values in request.GET.lists()
        ):
            if request.path_info.startswith("/api/"):
                return JsonResponse({"detail": NUL_REFUSED}, status=400)
            return HttpResponseBadRequest(NUL_REFUSED, content_type="text/plain")
        return get_response(request)

    return middleware
