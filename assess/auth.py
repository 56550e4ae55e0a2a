"""Who may do what: Django's model backend with a cheaper user read, and the organizers' page check."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from django.contrib.auth import get_user_model
from django.contrib.auth.backends import ModelBackend as DjangoModelBackend
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.db import connection
from django.http import HttpRequest, HttpResponseBase

from assess.sql import columns, fields_of, from_row

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


class ModelBackend(DjangoModelBackend):
    """Django's model backend, reading the session's user in one plain statement: the ORM's `get` was a tenth
    of the CPU of a judging keystroke. Everything else (passwords, permissions, inactive users refused) is
    Django's."""

    def get_user(self, user_id: Any) -> Any:
        model = get_user_model()
        fields = fields_of(model)
        sql = (
            f"SELECT {', '.join(columns('u', fields))} FROM {connection.ops.quote_name(model._meta.db_table)} u"
            f" WHERE u.{connection.ops.quote_name(model._meta.pk.column)} = %s"
        )
        with connection.cursor() as cur:
            cur.execute(sql, [user_id])
            row = cur.fetchone()
        if row is None:
            return None
        user = from_row(model, fields, row)
        return user if self.user_can_authenticate(user) else None


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
