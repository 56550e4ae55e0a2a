"""The organizers' page of assessors: create one, deactivate, set a password."""

from __future__ import annotations

from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.auth import organizer_required
from judging import selectors, services
from judging.forms import (
    AssessorCreateForm,
    AssessorPasswordForm,
)


@organizer_required
@require_http_methods(["GET", "POST"])
def assessors(request: HttpRequest) -> HttpResponse:
    """The assessors: create one, see their assignments and judgments, deactivate, reset a password."""
    form = AssessorCreateForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        user = services.assessor_create(username=form.cleaned_data["username"], password=form.cleaned_data["password"])
        messages.success(request, f"Assessor {user.username} created. Give them their password; they can log in now.")
        return redirect("judging:assessors")
    status = 400 if request.method == "POST" else 200
    context = {"assessors": selectors.assessor_list(), "form": form, "password_form": AssessorPasswordForm}
    return render(request, "judging/assessors.html", context, status=status)


def _assessor_or_404(user_id: int) -> User:
    assessor = selectors.assessor_get(user_id=user_id)
    if assessor is None:
        raise Http404("No such assessor")
    return assessor


@organizer_required
@require_POST
def assessor_active(request: HttpRequest, user_id: int) -> HttpResponse:
    assessor = _assessor_or_404(user_id)
    active = request.POST.get("active") == "true"
    services.assessor_active_set(assessor=assessor, active=active)
    done = "can log in again" if active else "is deactivated: they cannot log in; their judgments stay"
    messages.success(request, f"{assessor.username} {done}.")
    return redirect("judging:assessors")


@organizer_required
@require_POST
def assessor_password(request: HttpRequest, user_id: int) -> HttpResponse:
    assessor = _assessor_or_404(user_id)
    form = AssessorPasswordForm(request.POST, assessor=assessor)
    if form.is_valid():
        services.assessor_password_set(assessor=assessor, password=form.cleaned_data["password"])
        messages.success(request, f"New password set for {assessor.username}; their open sessions have ended.")
    else:
        messages.error(
            request,
            f"Password not changed for {assessor.username}: {' '.join(str(e) for e in form.errors['password'])}",
        )
    return redirect("judging:assessors")
