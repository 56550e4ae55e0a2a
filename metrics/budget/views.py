"""Organizer pages of the human-budget samples: draw a sample of a campaign, assign it from scratch, read the
estimates (LLM-only, LLM + sample, human-only) and the planning curve. Included in the `metrics` namespace."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.auth import organizer_required
from judging.label_set_names import LabelSetError
from judging.label_set_pickers import label_set_choices
from judging.labels import label_sets_available
from judging.models import Campaign, Condition, JudgeKind
from metrics.budget import report
from metrics.budget import selectors as budget_selectors
from metrics.budget import services as budget_services
from metrics.budget.estimators import Design
from metrics.budget.inputs import (
    ASSESSORS,
    BUDGET_HELP,
    CAMPAIGNS,
    BudgetAssignInput,
    BudgetDrawInput,
    BudgetPlanInput,
    errors_text,
)
from metrics.budget.models import BudgetSample
from metrics.budget.plots import width_curve
from metrics.campaign_choice import page_campaign


def _sample_or_404(sample_id: int) -> BudgetSample:
    sample = budget_selectors.budget_sample_get(sample_id=sample_id)
    if sample is None:
        raise Http404("No such budget sample")
    return sample


def _plan(request: HttpRequest, *, campaign: Campaign | None, llm: str = "") -> dict[str, Any]:
    """The planning curve's context: from the human from-scratch labels already made (`plan_human`, else the
    set with the most) beside an LLM's (`plan_llm`, else the sample's, else the first LLM set), in the campaign's
    first citations (everything loaded when none is chosen). Shown before any draw, and on every sample."""
    available = label_sets_available()
    available_humans = [
        s for s in available if s.judge_kind == JudgeKind.HUMAN and s.condition == Condition.FROM_SCRATCH
    ]
    human_names = dict(label_set_choices(available_humans))
    humans = [
        (spec, human_names[spec]) for spec in budget_selectors.plan_label_sets(available_humans) if spec in human_names
    ]
    llms = label_set_choices([s for s in available if s.judge_kind == JudgeKind.LLM])
    human = request.GET.get("plan_human") or (humans[0][0] if humans else "")
    llm = request.GET.get("plan_llm") or llm or (llms[0][0] if llms else "")
    plan, plan_error, plots = None, "", {}
    if human and llm:
        planned = BudgetPlanInput(data={"llm": llm, "human": human, "campaign": campaign.name if campaign else None})
        if planned.is_valid():
            try:
                plan = report.budget_plan(**planned.validated_data)
            except (LabelSetError, ValueError) as error:
                plan_error = str(error)
        else:
            plan_error = errors_text(planned.errors)
    if plan is not None:
        plots = {
            m: width_curve(plan["curves"][m], title=f"weighted {m}: expected 95% interval width")
            for m in report.METRICS
        }
    return {
        "plan": plan,
        "plan_error": plan_error,
        "plan_human": human,
        "plan_humans": humans,
        "plan_llm": llm,
        "plan_llms": llms,
        "plan_campaign": campaign,
        "plots": plots,
    }


def _draw_form(campaign: Campaign | None, draw: BudgetDrawInput | None) -> dict[str, Any]:
    """The draw form's context: the schema's choices, the values sent (else the defaults) and the errors."""
    fields = BudgetDrawInput().fields
    values: Any = (
        draw.initial_data
        if draw is not None
        else {
            "campaign": campaign.name if campaign else "",
            "design": fields["design"].default,
            "budget": "10%",
            "seed": fields["seed"].default,
        }
    )
    return {
        "values": values,
        "campaigns": CAMPAIGNS.values_list("name", flat=True),
        "llms": label_set_choices([s for s in label_sets_available() if s.judge_kind == JudgeKind.LLM]),
        "designs": Design.choices,
        "budget_help": BUDGET_HELP,
        "errors": errors_text(draw.errors) if draw is not None and draw.errors else "",
    }


@organizer_required
@require_http_methods(["GET", "POST"])
def samples(request: HttpRequest) -> HttpResponse:
    """The budget samples (of one campaign with ?campaign=NAME) and the form that draws a new one."""
    campaign = page_campaign(request)
    draw = BudgetDrawInput(data=request.POST) if request.method == "POST" else None
    if draw is not None and draw.is_valid():
        try:
            sample = budget_services.budget_sample_draw(**draw.validated_data, created_by=request.user)  # type: ignore[arg-type]
        except budget_services.BudgetError as error:
            messages.error(request, f"No sample drawn: {error}")
        else:
            messages.success(request, f"Budget sample #{sample.pk}: {sample.items.count()} pairs drawn.")
            return redirect("metrics:budget-sample", sample_id=sample.pk)
    return render(
        request,
        "humanbudget/sample_list.html",
        {
            "samples": budget_selectors.budget_sample_list(campaign=campaign),
            "campaign": campaign,
            "draw": _draw_form(campaign, draw),
            **_plan(request, campaign=campaign),
        },
    )


@organizer_required
@require_GET
def sample(request: HttpRequest, sample_id: int) -> HttpResponse:
    sample = _sample_or_404(sample_id)
    estimates = report.budget_estimates(sample=sample)
    return render(
        request,
        "humanbudget/sample.html",
        {
            "sample": sample,
            "estimates": estimates,
            "metric_rows": [
                (m, estimates["metrics"][m]["runs"], estimates["metrics"][m]["kendall_tau_llm"]) for m in report.METRICS
            ],
            "topics": budget_selectors.budget_sample_topics(sample=sample),
            "assessors": ASSESSORS.values_list("username", flat=True),
            "assignments": budget_selectors.budget_sample_assignments(sample=sample),
            **_plan(request, campaign=sample.campaign, llm=sample.llm),
        },
    )


@organizer_required
@require_POST
def sample_assign(request: HttpRequest, sample_id: int) -> HttpResponse:
    sample = _sample_or_404(sample_id)
    assign = BudgetAssignInput(data=request.POST)
    if not assign.is_valid():
        messages.error(request, f"Not assigned: {errors_text(assign.errors)}")
        return redirect("metrics:budget-sample", sample_id=sample.pk)
    assessor = assign.validated_data["assessor"]
    try:
        made = budget_services.budget_assign(sample=sample, assessor=assessor)
    except budget_services.BudgetError as error:
        messages.error(request, f"Not assigned: {error}")
    else:
        messages.success(request, f"{len(made)} from-scratch assignment(s) for {assessor}.")
    return redirect("metrics:budget-sample", sample_id=sample.pk)
