"""Organizer pages of the disagreement study: create a study on a campaign, assign the blind
re-judging, run a second LLM judge on the sample, and read the report (Figures 4 and 5, the table, CSV)."""

from __future__ import annotations

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.auth import organizer_required
from core.downloads import attachment
from judging.counts import assignments_with_progress
from metrics.campaign_choice import page_campaign
from metrics.study import report, second_judge
from metrics.study import selectors as study_selectors
from metrics.study import services as study_services
from metrics.study.forms import AssignForm, SecondJudgeForm, StudyForm
from metrics.study.models import Study


def _study_or_404(study_id: int) -> Study:
    study = study_selectors.study_get(study_id=study_id)
    if study is None:
        raise Http404("No such study")
    return study


@organizer_required
@require_http_methods(["GET", "POST"])
def studies(request: HttpRequest) -> HttpResponse:
    """The studies (of one campaign with ?campaign=NAME) and the form that samples a new one."""
    campaign = page_campaign(request)
    form = StudyForm(request.POST or None, initial={"campaign": campaign} if campaign else None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            study = study_services.study_create(
                campaign=data["campaign"],
                a=data["a"],
                b=data["b"],
                per_topic=data["per_topic"],
                seed=data["seed"],
                created_by=request.user,  # type: ignore[arg-type]
            )
        except study_services.StudyError as error:
            messages.error(request, f"No study made: {error}")
        else:
            messages.success(request, f"Study #{study.pk}: {study.summary['sampled']} pairs sampled.")
            return redirect("metrics:study", study_id=study.pk)
    return render(
        request,
        "study/study_list.html",
        {"studies": study_selectors.study_list(campaign=campaign), "campaign": campaign, "form": form},
    )


@organizer_required
@require_GET
def study(request: HttpRequest, study_id: int) -> HttpResponse:
    study = _study_or_404(study_id)
    table = study_selectors.study_table(study=study)
    data = report.study_report(table)
    names = [j["name"] for j in data["judges"]]
    pairs = report.agreements(table.rows, report.columns_of(table))
    grid = report.kappa_grid(pairs, names)
    return render(
        request,
        "study/study.html",
        {
            "study": study,
            "table": table,
            "report": data,
            "columns": report.columns_of(table),
            "kappa_rows": list(zip(names, grid, strict=True)),
            "names": names,
            "chart": report.distribution_chart({n: d["counts"] for n, d in data["distributions"].items()}),
            "assign_form": AssignForm(),
            "second_form": SecondJudgeForm(initial={"judge": study.second_judge}),
            "assignments": assignments_with_progress(
                study.assignments.select_related("assessor", "topic").order_by("assessor__username", "order")
            ),
        },
    )


@organizer_required
@require_GET
def study_csv(request: HttpRequest, study_id: int) -> HttpResponse:
    study = _study_or_404(study_id)
    response = HttpResponse(report.study_csv(study_selectors.study_table(study=study)), content_type="text/csv")
    attachment(
        response, what=f"study-{study.pk}", ext="csv", campaign=study.campaign.name, label_sets=[study.a, study.b]
    )
    return response


@organizer_required
@require_POST
def study_assign(request: HttpRequest, study_id: int) -> HttpResponse:
    study = _study_or_404(study_id)
    form = AssignForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not assigned: {form.errors.as_text()}")
        return redirect("metrics:study", study_id=study.pk)
    try:
        made = study_services.study_assign(study=study, assessor=form.cleaned_data["assessor"])
    except study_services.StudyError as error:
        messages.error(request, f"Not assigned: {error}")
    else:
        messages.success(request, f"{len(made)} adjudication assignment(s) for {form.cleaned_data['assessor']}.")
    return redirect("metrics:study", study_id=study.pk)


@organizer_required
@require_POST
def study_second_judge(request: HttpRequest, study_id: int) -> HttpResponse:
    study = _study_or_404(study_id)
    form = SecondJudgeForm(request.POST)
    if not form.is_valid():
        messages.error(request, f"Not started: {form.errors.as_text()}")
        return redirect("metrics:study", study_id=study.pk)
    try:
        job = second_judge.study_second_judge_start(
            study=study,
            judge=form.cleaned_data["judge"],
            created_by=request.user,  # type: ignore[arg-type]
        )
    except study_services.StudyError as error:
        messages.error(request, f"Not started: {error}")
    else:
        messages.success(request, f"{job.judge.name} is labelling the {job.total} sampled pairs (job #{job.pk}).")
    return redirect("metrics:study", study_id=study.pk)
