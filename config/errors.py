"""What a request gets when something fails outside the view's own checks, written once for every page and API.

Django's error handlers (`handler404`, `handler500` in config/urls.py) are the one place every failure of the
request cycle reaches, middleware included, so the outage answer lives here rather than in each view:

- an unreachable PostgreSQL or Redis (a connection refused, timed out or dropped; the Celery broker too) is a
  503 with a clear message and `Retry-After`, never a 500 and never an acknowledgement: a judgment is answered
  with success only after it is stored, so a 503 means "send it again" (the submission token stores it once);
- under /api/, errors are JSON (`{"detail": ...}`) as the schema documents them (config/schema.py); pages get
  HTML that touches neither the session nor the database, which may be what is down.
"""

from __future__ import annotations

import sqlite3
import sys

import kombu.exceptions
import psycopg.errors
import redis.exceptions
from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.db import InterfaceError, OperationalError
from django.http import HttpRequest, HttpResponse, JsonResponse
from django.template import loader
from django.views import defaults
from django_redis.exceptions import ConnectionInterrupted

# The failures that mean a service the platform needs cannot be reached right now (not a bug to report).
OUTAGES: tuple[type[BaseException], ...] = (
    OperationalError,
    InterfaceError,
    redis.exceptions.ConnectionError,
    redis.exceptions.TimeoutError,
    ConnectionInterrupted,
    kombu.exceptions.OperationalError,
)
RETRY_AFTER_SECONDS = 30
UNAVAILABLE = (
    "The service is unavailable for a moment: its database or Redis cannot be reached. Nothing was saved by this "
    "request; try again in a minute."
)

# The database exists but has no tables: an administrator has a command to run, no user can fix it by waiting.
NOT_MIGRATED = (
    "The service is not set up yet: its database has no tables. An administrator must run `manage.py migrate`. "
    "Nothing was saved by this request."
)


def is_api(request: HttpRequest) -> bool:
    return request.path_info.startswith("/api/")


def outage_of(exception: BaseException | None) -> BaseException | None:
    """The outage behind an exception (itself or what caused it), if it is one."""
    seen = 0
    while exception is not None and seen < 10:
        if isinstance(exception, OUTAGES):
            return exception
        exception = exception.__cause__ or exception.__context__
        seen += 1
    return None


def not_migrated(exception: BaseException | None) -> bool:
    """Whether an exception (or what caused it) says a table is missing: the database exists but `manage.py
    migrate` has not been run on it (PostgreSQL's undefined table, SQLite's "no such table")."""
    seen = 0
    while exception is not None and seen < 10:
        if isinstance(exception, psycopg.errors.UndefinedTable):
            return True
        if isinstance(exception, sqlite3.OperationalError) and str(exception).startswith("no such table"):
            return True
        exception = exception.__cause__ or exception.__context__
        seen += 1
    return False


def service_unavailable(request: HttpRequest, message: str = UNAVAILABLE) -> HttpResponse:
    response: HttpResponse
    if is_api(request):
        response = JsonResponse({"detail": message}, status=503)
    else:
        html = loader.get_template("503.html").render({"message": message})
        response = HttpResponse(html, status=503)
    response["Retry-After"] = str(RETRY_AFTER_SECONDS)
    return response


def server_error(request: HttpRequest, template_name: str = defaults.ERROR_500_TEMPLATE_NAME) -> HttpResponse:
    """`handler500`: Django calls it while handling the uncaught exception, which `sys.exception()` returns."""
    if not_migrated(sys.exc_info()[1]):
        return service_unavailable(request, NOT_MIGRATED)
    if outage_of(sys.exc_info()[1]) is not None:
        return service_unavailable(request)
    if is_api(request):
        return JsonResponse({"detail": "Server error: it has been logged."}, status=500)
    return defaults.server_error(request, template_name)


def bad_request(request: HttpRequest, exception: Exception, template_name: str = "400.html") -> HttpResponse:
    """`handler400`: a body above DATA_UPLOAD_MAX_MEMORY_SIZE (Django refuses it wherever it is first read, a
    middleware included) is a 413 saying the limit; under /api/ every 400 of the request cycle is JSON."""
    if isinstance(exception, RequestDataTooBig):
        limit = settings.DATA_UPLOAD_MAX_MEMORY_SIZE or 0
        message = f"The request body is larger than the server takes: at most {limit:,} bytes (files aside)."
        if is_api(request):
            return JsonResponse({"detail": message}, status=413)
        return HttpResponse(message, status=413, content_type="text/plain; charset=utf-8")
    if is_api(request):
        return JsonResponse({"detail": "Bad request."}, status=400)
    return defaults.bad_request(request, exception, template_name)


def page_not_found(request: HttpRequest, exception: Exception, template_name: str = "404.html") -> HttpResponse:
    """`handler404`: a URL no route matches (`/api/assignments/-1/`) is JSON under /api/, as DRF's own 404s are."""
    if is_api(request):
        return JsonResponse({"detail": "Not found."}, status=404)
    return defaults.page_not_found(request, exception, template_name)
