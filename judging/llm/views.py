"""Organizer pages for LLM judges and campaign pre-labelling, with an htmx progress bar."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from django import forms
from django.contrib import messages
from django.contrib.auth.models import User
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.template.loader import render_to_string
from django.utils.http import url_has_allowed_host_and_scheme
from django.views.decorators.http import require_GET, require_http_methods, require_POST

from core.auth import organizer_required
from judging.llm import jobs, services
from judging.llm.connection import ConnectionCheck, connection_check
from judging.llm.models import PrelabelJob, PrelabelMode, Provider
from judging.llm.prompt import CURRENT_VERSION, PROMPTS, UnknownPromptVersion, prompt_text
from judging.llm.selectors import (
    campaign_jobs,
    campaigns_recent,
    imported_label_count,
    llm_judges,
    prelabel_estimate,
    prelabel_progress,
)
from judging.llm.services import JOB_OPEN
from judging.models import Campaign, Judge, JudgeKind
from judging.views import HtmxHttpRequest


class LLMJudgeForm(forms.Form):
    name = forms.CharField(max_length=128, help_text="e.g. gpt-4o")
    provider = forms.ChoiceField(choices=Provider.choices, initial=Provider.OPENAI)
    base_url = forms.URLField(
        required=False, assume_scheme="http", help_text="OpenAI-compatible servers, or the Azure endpoint"
    )
    model = forms.CharField(max_length=128, help_text="model name, or the deployment name on Azure")
    prompt_version = forms.ChoiceField(choices=[(v, v) for v in PROMPTS], initial=CURRENT_VERSION)
    temperature = forms.FloatField(initial=0.0, min_value=0.0, max_value=2.0)
    max_concurrency = forms.IntegerField(initial=8, min_value=1, max_value=512)
    requests_per_minute = forms.IntegerField(required=False, min_value=1)
    tokens_per_minute = forms.IntegerField(required=False, min_value=1)
    price_input_per_million = forms.DecimalField(initial=0, min_value=0, max_digits=10, decimal_places=4)
    price_output_per_million = forms.DecimalField(initial=0, min_value=0, max_digits=10, decimal_places=4)


def _user(request: HttpRequest) -> User | None:
    return request.user if isinstance(request.user, User) else None


@organizer_required
@require_http_methods(["GET", "POST"])
def judges(request: HttpRequest) -> HttpResponse:
    form = LLMJudgeForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        try:
            llm = services.llm_judge_create(**form.cleaned_data)
        except services.PrelabelError as error:
            form.add_error(None, str(error))
        else:
            messages.success(request, f"LLM judge {llm.judge.name} created.")
            return redirect("judging:llm_judges")
    context = {"judges": llm_judges(), "form": form, "campaigns": campaigns_recent()}
    return render(request, "llm/judges.html", context)


@organizer_required
@require_GET
def prompt(request: HttpRequest, version: str) -> HttpResponse:
    """The prompt a pre-labelling job sends, as it is sent (organizers only: assessors never see it)."""
    try:
        text = prompt_text(version)
    except UnknownPromptVersion as error:
        raise Http404(str(error)) from None
    judges = [j for j in llm_judges() if hasattr(j, "llm") and j.llm.prompt_version == version]
    return render(request, "llm/prompt.html", {"version": version, "text": text, "judges": judges})


def _judge_rows(campaign: Campaign) -> list[dict[str, Any]]:
    jobs = list(campaign_jobs(campaign))
    rows = []
    for judge in llm_judges():
        latest = next((j for j in jobs if j.judge_id == judge.pk), None)
        configured = hasattr(judge, "llm")
        rows.append(
            {
                "judge": judge,
                "configured": configured,
                "job": latest,
                "progress": prelabel_progress(latest) if latest else None,
                "estimate": prelabel_estimate(campaign=campaign, judge=judge) if configured else None,
                "imported": 0 if configured else imported_label_count(campaign=campaign, judge=judge),
            }
        )
    return rows


def _jobs_context(campaign: Campaign) -> dict[str, Any]:
    recent = list(campaign_jobs(campaign)[:20])
    return {"campaign": campaign, "jobs": recent, "jobs_open": any(job.status in JOB_OPEN for job in recent)}


@organizer_required
@require_GET
def prelabel(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    context = {
        "campaign": campaign,
        "rows": _judge_rows(campaign),
        "modes": PrelabelMode.choices,
        **_jobs_context(campaign),
    }
    return render(request, "llm/prelabel.html", context)


@organizer_required
@require_GET
def prelabel_jobs(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The jobs table alone, which the page polls while a job is open."""
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    return render(request, "llm/prelabel.html#jobs-table", _jobs_context(campaign))


@organizer_required
@require_POST
def judge_connection_check(request: HtmxHttpRequest, judge_id: int) -> HttpResponse:
    """One real call to the judge; htmx swaps in the answer or the error, without JS it comes as a message."""
    judge = get_object_or_404(Judge.objects.select_related("llm"), pk=judge_id, kind=JudgeKind.LLM)
    try:
        check = connection_check(services.llm_config(judge))
    except services.PrelabelError as error:
        check = ConnectionCheck(ok=False, error=str(error))
    if request.htmx:
        return render(request, "llm/prelabel.html#connection-check", {"judge": judge, "check": check})
    if check.ok:
        messages.success(request, f"{judge.name} answered in {check.latency_ms} ms: {check.answer!r}")
    else:
        messages.error(request, f"{judge.name} did not answer: {check.error}")
    back = request.POST.get("next") or ""
    if not url_has_allowed_host_and_scheme(back, allowed_hosts={request.get_host()}):
        back = ""
    return redirect(back or "judging:llm_judges")


@organizer_required
@require_POST
def prelabel_start(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    judge = get_object_or_404(Judge, pk=request.POST.get("judge") or 0, kind=JudgeKind.LLM)
    mode = request.POST.get("mode") or PrelabelMode.LIVE
    retry_errors = request.POST.get("retry_errors") == "1"
    try:
        job = jobs.prelabel_job_create(
            campaign=campaign, judge=judge, mode=mode, retry_errors=retry_errors, created_by=_user(request)
        )
    except services.PrelabelError as error:
        messages.error(request, str(error))
    else:
        if job.total:
            messages.success(
                request, f"Pre-labelling started: job #{job.pk}, {job.total} pairs to call with {judge.name}."
            )
        else:
            messages.info(
                request,
                "Nothing to call: "
                + jobs.nothing_to_call_message(campaign=campaign, judge=judge, retry_errors=retry_errors),
            )
    return redirect("judging:llm_prelabel", campaign_id=campaign.pk)


@organizer_required
@require_GET
def job_progress(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    return _progress_block(request, _job(job_id))


def _job(job_id: int) -> PrelabelJob:
    return get_object_or_404(PrelabelJob.objects.select_related("judge__llm", "campaign"), pk=job_id)


def _progress_block(request: HtmxHttpRequest, job: PrelabelJob) -> HttpResponse:
    progress = prelabel_progress(job)
    response = render(request, "llm/prelabel.html#progress", {"job": job, "progress": progress})
    if request.htmx and progress.finished:
        # The judge's estimate and start buttons come back with the job's end, swapped in out of band.
        context = {
            "campaign": job.campaign,
            "judge": job.judge,
            "job": job,
            "progress": progress,
            "estimate": prelabel_estimate(campaign=job.campaign, judge=job.judge),
            "modes": PrelabelMode.choices,
            "oob": True,
        }
        response.content += render_to_string("llm/prelabel.html#actions", context, request=request).encode()
    return response


@organizer_required
@require_POST
def job_retry(request: HttpRequest, job_id: int) -> HttpResponse:
    return _follow_up(request, _job(job_id), jobs.prelabel_retry_errors, "Retrying the failed calls: job #{}.")


def _follow_up(request: HttpRequest, job: PrelabelJob, start: Callable[..., PrelabelJob], done: str) -> HttpResponse:
    """Start the job that follows `job` (a retry of its errors, a resume) and go back to the campaign's page."""
    try:
        started = start(job=job, created_by=_user(request))
    except services.PrelabelError as error:
        messages.error(request, str(error))
    else:
        messages.success(request, done.format(started.pk))
    return redirect("judging:llm_prelabel", campaign_id=job.campaign_id)


@organizer_required
@require_POST
def job_cancel(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    job = _job(job_id)
    try:
        job = jobs.prelabel_job_cancel(job=job, by=_user(request))
    except services.PrelabelError as error:
        error_text = str(error)
    else:
        error_text = ""
    if request.htmx:
        # The job's progress block, now showing how it ended (and, when pairs are left, a resume button).
        return _progress_block(request, job)
    if error_text:
        messages.error(request, error_text)
    else:
        messages.success(request, f"Job #{job.pk} cancelled: the calls in flight finish and are kept.")
    return redirect("judging:llm_prelabel", campaign_id=job.campaign_id)


@organizer_required
@require_POST
def job_resume(request: HttpRequest, job_id: int) -> HttpResponse:
    done = "Resumed as job #{}: it calls only the pairs without a result."
    return _follow_up(request, _job(job_id), jobs.prelabel_job_resume, done)


@organizer_required
@require_POST
def post_edit_judge(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = get_object_or_404(Campaign, pk=campaign_id)
    judge = get_object_or_404(Judge, pk=request.POST.get("judge") or 0, kind=JudgeKind.LLM)
    services.campaign_post_edit_judge_set(campaign=campaign, judge=judge)
    messages.success(request, f"Post-editing now shows the labels of {judge.name}.")
    return redirect("judging:llm_prelabel", campaign_id=campaign.pk)
