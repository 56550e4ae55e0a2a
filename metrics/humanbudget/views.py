"""Organizer pages of the human-budget samples: draw a sample of a campaign, assign it from scratch, read the
estimates (LLM-only, LLM + sample, human-only) and the planning curve. Included in the `metrics` namespace."""

from __future__ import annotations

from typing import Any

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.auth import organizer_required
from judging.labels import LabelSetError, label_set_choices, label_sets_available
from judging.models import Campaign, Condition, JudgeKind
from judging.queue import assignments_with_progress
from judging.scope import scope_for
from metrics.campaign_choice import page_campaign
from metrics.humanbudget import report
from metrics.humanbudget import selectors as budget_selectors
from metrics.humanbudget import services as budget_services
from metrics.humanbudget.forms import AssignForm, DrawForm
from metrics.humanbudget.models import BudgetSample
from metrics.humanbudget.plots import width_curve


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
        try:
            plan = report.budget_plan(
                llm=llm, human=human, scope=scope_for(campaign=campaign.name if campaign else None, depth=1)
            )
        except (LabelSetError, ValueError) as error:
            plan_error = str(error)
        else:
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


@organizer_required
@require_http_methods(["GET", "POST"])
def samples(request: HttpRequest) -> HttpResponse:
    """The budget samples (of one campaign with ?campaign=NAME) and the form that draws a new one."""
    campaign = page_campaign(request)
    form = DrawForm(request.POST or None, initial={"campaign": campaign} if campaign else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        pairs, share = data["budget"]
        try:
            sample = budget_services.budget_sample_draw(
                campaign=data["campaign"],
                llm=data["llm"],
                design=data["design"],
                pairs=pairs,
                share=share,
                second_llm=data["second_llm"] or "",
                seed=data["seed"],
                allow_unlabelled=data["allow_unlabelled"],
                created_by=request.user,  # type: ignore[arg-type]
            )
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
            "form": form,
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
            "metric_rows": [(m, estimates["metrics"][m]["runs"]) for m in report.METRICS],
            "topics": budget_selectors.budget_sample_topics(sample=sample),
            "assign_form": AssignForm(),
            "assignments": assignments_with_progress(
                sample.assignments.select_related("assessor", "topic").order_by("assessor__username", "order")
            ),
            **_plan(request, campaign=sample.campaign, llm=sample.llm),
        },
    )


@organizer_required
@require_POST
def sample_assign(request: HttpRequest, sample_id: int) -> HttpResponse:
    sample = _sample_or_404(sample_id)
    form = AssignForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not assigned: {form.errors.as_text()}")
        return redirect("metrics:budget-sample", sample_id=sample.pk)
    try:
        made = budget_services.budget_assign(sample=sample, assessor=form.cleaned_data["assessor"])
    except budget_services.BudgetError as error:
        messages.error(request, f"Not assigned: {error}")
    else:
        messages.success(request, f"{len(made)} from-scratch assignment(s) for {form.cleaned_data['assessor']}.")
    return redirect("metrics:budget-sample", sample_id=sample.pk)
