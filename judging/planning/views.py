"""The assignment plan's page: the plan previewed (nothing written), then confirmed."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from core.auth import organizer_required
from judging import selectors
from judging.models import Campaign
from judging.planning.forms import ConfirmForm, PlanForm
from judging.planning.selectors import DEFAULT_SECONDS_PER_JUDGMENT
from judging.planning.services import Plan, PlanError, assignment_plan, assignment_plan_carry_out


def _campaign_or_404(campaign_id: int) -> Campaign:
    campaign = selectors.campaign_get(campaign_id=campaign_id)
    if campaign is None:
        raise Http404("No such campaign")
    return campaign


@organizer_required
@require_GET
def plan_preview(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The form; with its fields, the plan it would make, written nowhere, and the button that writes it."""
    campaign = _campaign_or_404(campaign_id)
    form = PlanForm(request.GET or None)
    plan: Plan | None = None
    error = ""
    if form.is_bound and form.is_valid():
        try:
            data = form.cleaned_data
            plan = assignment_plan(
                campaign=campaign,
                assessors=list(data["assessors"]),
                condition=data["condition"],
                overlap=data["overlap"],
                overlap_share=data["overlap_share"],
                seed=data["seed"],
                rebalance=data["rebalance"],
            )
        except PlanError as exc:
            error = exc.message
    return render(
        request,
        "judging/planning/plan.html",
        {
            "campaign": campaign,
            "form": form,
            "plan": plan,
            "error": error,
            "default_seconds": DEFAULT_SECONDS_PER_JUDGMENT,
            "query": request.GET.urlencode(),
        },
    )


@organizer_required
@require_POST
def plan_confirm(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign_or_404(campaign_id)
    form = ConfirmForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Nothing assigned: {form.errors.as_text()}")
        return redirect("judging:plan_preview", campaign_id=campaign.pk)
    data = form.cleaned_data
    try:
        plan = assignment_plan_carry_out(
            campaign=campaign,
            assessors=list(data["assessors"]),
            condition=data["condition"],
            overlap=data["overlap"],
            overlap_share=data["overlap_share"],
            seed=data["seed"],
            rebalance=data["rebalance"],
            fingerprint=data["fingerprint"],
        )
    except PlanError as exc:
        messages.error(request, exc.message)
        return redirect("judging:plan_preview", campaign_id=campaign.pk)
    messages.success(
        request, f"Assigned by plan: {len(plan.new)} new assignment(s), {len(plan.moves)} moved ({plan.condition})."
    )
    return redirect("judging:campaign", campaign_id=campaign.pk)
