"""The lifecycle buttons of the campaign page: clone, archive, restore, delete (with its confirmation page)."""

from __future__ import annotations

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_http_methods, require_POST

from core.auth import organizer_required
from judging.lifecycle.selectors import campaign_losses
from judging.lifecycle.services import (
    LifecycleError,
    campaign_archive,
    campaign_clone,
    campaign_delete,
    campaign_restore,
)
from judging.models import Campaign


class CloneForm(forms.Form):
    name = forms.CharField(max_length=128)


class DeleteForm(forms.Form):
    confirm = forms.CharField(max_length=128, label="Type the campaign's name")
    force = forms.BooleanField(required=False)


def _campaign_or_404(campaign_id: int) -> Campaign:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404("No such campaign")
    return campaign


@organizer_required
@require_POST
def clone(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign_or_404(campaign_id)
    form = CloneForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not cloned: {form.errors.as_text()}")
        return redirect("judging:campaign", campaign_id=campaign.pk)
    try:
        copy = campaign_clone(campaign=campaign, name=form.cleaned_data["name"])
    except LifecycleError as exc:
        messages.error(request, f"Not cloned: {exc.message}")
        return redirect("judging:campaign", campaign_id=campaign.pk)
    messages.success(request, f"Campaign {copy.name}: a copy of {campaign.name}, no assignments or judgments.")
    return redirect("judging:campaign", campaign_id=copy.pk)


@organizer_required
@require_POST
def archive(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_archive(campaign=_campaign_or_404(campaign_id))
    messages.success(request, f"Campaign {campaign.name} archived: read-only, out of the lists, restorable.")
    return redirect("judging:campaign", campaign_id=campaign.pk)


@organizer_required
@require_POST
def restore(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_restore(campaign=_campaign_or_404(campaign_id))
    messages.success(request, f"Campaign {campaign.name} restored.")
    return redirect("judging:campaign", campaign_id=campaign.pk)


@organizer_required
@require_http_methods(["GET", "POST"])
def delete(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """What deleting would lose, and the typed confirmation; a campaign with human judgments needs the box
    that says they were exported (the page links the export)."""
    campaign = _campaign_or_404(campaign_id)
    form = DeleteForm(request.POST or None)
    error = ""
    if request.method == "POST" and form.is_valid():
        try:
            deleted = campaign_delete(
                campaign=campaign, confirm=form.cleaned_data["confirm"], force=form.cleaned_data["force"]
            )
        except LifecycleError as exc:
            error = exc.message
        else:
            messages.success(request, f"Campaign {deleted.name} deleted: {'; '.join(deleted.losses.lines())}.")
            return redirect("judging:campaigns")
    losses = campaign_losses(campaign=campaign)
    return render(
        request,
        "judging/lifecycle/delete.html",
        {"campaign": campaign, "form": form, "losses": losses, "error": error},
        status=400 if error else 200,
    )
