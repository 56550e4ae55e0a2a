"""Who may review: an organizer (staff), or a user of the `reviewer` group (made by judging's migration 0015).
A reviewer sees every assessor's labels and the LLM's replies, so nobody reviews a campaign in which they
hold an assignment, staff or not (blindness, DESIGN §3)."""

from __future__ import annotations

from collections.abc import Callable
from functools import wraps
from typing import Any, TypeVar, cast

from django.contrib.auth.models import AbstractBaseUser, AnonymousUser, User
from django.contrib.auth.views import redirect_to_login
from django.core.exceptions import PermissionDenied
from django.http import HttpRequest, HttpResponseBase
from rest_framework.permissions import BasePermission
from rest_framework.request import Request

from judging.models import Assignment, Campaign

REVIEWER_GROUP = "reviewer"

View = TypeVar("View", bound=Callable[..., HttpResponseBase])


def is_reviewer(user: AbstractBaseUser | AnonymousUser) -> bool:
    """An organizer, or an active member of the reviewer group."""
    if not (user.is_authenticated and user.is_active):
        return False
    if not isinstance(user, User):
        return False
    return user.is_staff or user.groups.filter(name=REVIEWER_GROUP).exists()


def review_refusal(user: AbstractBaseUser | AnonymousUser, campaign: Campaign) -> str | None:
    """Why `user` may not review `campaign`, or None when they may."""
    if not is_reviewer(user):
        return "reviewers and organizers only"
    if Assignment.objects.filter(campaign=campaign, assessor_id=user.pk).exists():
        return (
            f"you hold assignments in campaign {campaign.name}: its review shows the other assessors' and the "
            "LLM's labels, so another reviewer reviews it"
        )
    return None


def reviewer_required(view: View) -> View:
    """Review pages: anonymous users go to the login page; users who are neither reviewers nor staff get 403."""

    @wraps(view)
    def wrapper(request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:
        if not request.user.is_authenticated:
            return redirect_to_login(request.get_full_path())
        if not is_reviewer(request.user):
            raise PermissionDenied("reviewers and organizers only")
        return view(request, *args, **kwargs)

    return cast(View, wrapper)


class IsReviewer(BasePermission):
    message = "reviewers and organizers only"

    def has_permission(self, request: Request, view: Any) -> bool:
        return is_reviewer(request.user)
