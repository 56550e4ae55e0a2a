"""Who may do what: Django's model backend, the organizers' page check, and HTTP Basic that tells a locked-out
client so."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from axes.handlers.proxy import AxesProxyHandler
from axes.helpers import get_cool_off
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponse, HttpResponseBase
from django.shortcuts import render
from drf_spectacular.authentication import BasicScheme
from rest_framework import exceptions
from rest_framework.authentication import BasicAuthentication

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


class ModelBackend(DjangoModelBackend):
    """Django's model backend, as it is (passwords, permissions, the session's user read with the ORM, inactive
    users refused), under the dotted path that signed-in sessions have stored since it had changes of its own."""


def organizer_required(view: View) -> View:
    """Organizers' pages: anonymous users go to the login page; signed-in users who are not staff get 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not (request.user.is_active and request.user.is_staff):
            raise PermissionDenied("organizers only")
        return view(request, *args, **kwargs)

    return cast(View, wrapper)


class LockoutAwareBasicAuthentication(BasicAuthentication):
    """DRF's HTTP Basic, which already asks Django's `authenticate` (and so django-axes) for every attempt. When
    axes refused it because the username is locked out at this address, say so with a 429 and what to do,
    instead of the 401 a wrong password gets: a script would otherwise keep retrying the right password."""

    def authenticate_credentials(self, userid: str, password: str, request: Any = None) -> tuple[Any, None]:
        try:
            return super().authenticate_credentials(userid, password, request)
        except exceptions.AuthenticationFailed:
            if request is not None and AxesProxyHandler.is_locked(request, {"username": userid}):
                raise LoginLockedOut() from None
            raise


class LockoutAwareBasicScheme(BasicScheme):
    """The API schema's security scheme for it: HTTP Basic, as for DRF's own (registered by subclassing)."""

    target_class = "core.auth.LockoutAwareBasicAuthentication"


class LoginLockedOut(exceptions.APIException):
    status_code = 429
    default_code = "login_locked_out"

    def __init__(self) -> None:
        super().__init__(detail=lockout_advice())


def lockout_advice() -> str:
    """What a locked-out person is told, on the login page and by the API alike."""
    minutes = int(get_cool_off().total_seconds() // 60) if get_cool_off() else None
    wait = f"wait {minutes} minutes and try again" if minutes else "ask an organizer to unlock it"
    return (
        f"Too many failed logins for this username from this address: it is locked. {wait[0].upper()}{wait[1:]}, "
        "or ask an organizer to lift the lock (admin, Axes, Access attempts: delete the attempt)."
    )


def lockout_response(request: HttpRequest, original_response: Any = None, credentials: Any = None) -> HttpResponse:
    """The page django-axes answers a locked-out login with (AXES_LOCKOUT_CALLABLE)."""
    username = (credentials or {}).get("username") or request.POST.get("username", "")
    context = {"username": username, "advice": lockout_advice()}
    return render(request, "registration/locked_out.html", context, status=429)
