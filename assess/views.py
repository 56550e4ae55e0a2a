from __future__ import annotations

from collections.abc import Iterator
from typing import Any

from django.contrib import messages
from django.core.paginator import Paginator
from django.db.models import QuerySet
from django.http import HttpRequest, HttpResponse, StreamingHttpResponse
from django.shortcuts import get_object_or_404, redirect, render
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from assess import selectors
from assess.forms import CorpusFillForm, UploadForm
from assess.importers.job_run import ImportJobInvalid, import_job_progress, import_job_stalled
from assess.models import ImportJob, ImportKind, ImportStatus
from assess.uploads import import_job_create, import_job_resume
from core.auth import organizer_required
from core.downloads import attachment

MISSING_SHOWN = 200


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def home(request: HttpRequest) -> HttpResponse:
    if not request.user.is_authenticated:
        return redirect("login")
    return redirect("assess:dashboard" if request.user.is_staff else "judging:queue")


@require_GET
@organizer_required
def dashboard(request: HttpRequest) -> HttpResponse:
    return render(
        request,
        "assess/dashboard.html",
        {"counts": selectors.counts(), "jobs": selectors.import_job_list(limit=10)},
    )


@require_http_methods(["GET", "POST"])
@organizer_required
def upload(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = UploadForm(request.POST, request.FILES)
        if form.is_valid():
            job = import_job_create(
                kind=form.cleaned_data["kind"],
                uploaded_files=form.cleaned_data["uploads"],
                options=form.options(),
                user=request.user,
            )
            return redirect("assess:job", job_id=job.pk)
        return render(request, "assess/upload.html", {"form": form}, status=400)
    form = UploadForm(initial={"kind": request.GET.get("kind") or ImportKind.RUNS})
    return render(request, "assess/upload.html", {"form": form})


@require_GET
@organizer_required
def job(request: HtmxHttpRequest, job_id: int) -> HttpResponse:
    import_job = get_object_or_404(ImportJob.objects.select_related("created_by"), pk=job_id)
    stalled = import_job_stalled(import_job)
    context = {
        "job": import_job,
        "progress": import_job_progress(import_job),
        "running": import_job.status in (ImportStatus.PENDING, ImportStatus.RUNNING) and not stalled,
        "stalled": stalled,
    }
    template = "assess/job.html#job-status" if request.htmx else "assess/job.html"
    return render(request, template, context)


@require_POST
@organizer_required
def job_resume(request: HttpRequest, job_id: int) -> HttpResponse:
    import_job = get_object_or_404(ImportJob, pk=job_id)
    try:
        import_job_resume(job=import_job)
    except ImportJobInvalid as error:
        messages.error(request, str(error))
    else:
        messages.success(request, f"Import #{import_job.pk} resumed: it starts again from its first line.")
    return redirect("assess:job", job_id=import_job.pk)


LIST_PAGE_SIZE = 50


def _list_page(request: HtmxHttpRequest, template: str, rows: QuerySet[Any]) -> HttpResponse:
    """A searchable, paginated list: the whole page, or (htmx, while the organizer types) only its table."""
    page = Paginator(rows, LIST_PAGE_SIZE).get_page(request.GET.get("page"))
    context = {"page": page, "search": request.GET.get("q", "").strip()}
    return render(request, f"{template}#list" if request.htmx else template, context)


@require_GET
@organizer_required
def runs(request: HtmxHttpRequest) -> HttpResponse:
    search = request.GET.get("q", "").strip()
    return _list_page(request, "assess/runs.html", selectors.run_list(search=search))


@require_GET
@organizer_required
def topics(request: HtmxHttpRequest) -> HttpResponse:
    search = request.GET.get("q", "").strip()
    return _list_page(request, "assess/topics.html", selectors.topic_list(search=search))


@require_http_methods(["GET", "POST"])
@organizer_required
def missing(request: HttpRequest) -> HttpResponse:
    if request.method == "POST":
        form = CorpusFillForm(request.POST)
        if form.is_valid():
            fill = import_job_create(
                kind=ImportKind.PASSAGES,
                uploaded_files=[],
                options={"corpus_dir": form.cleaned_data["corpus_dir"]},
                user=request.user,
            )
            return redirect("assess:job", job_id=fill.pk)
    else:
        form = CorpusFillForm()
    passages = selectors.passages_missing_text()
    return render(
        request,
        "assess/missing.html",
        {
            "count": passages.count(),
            "passages": selectors.passages_missing_with_citations(limit=MISSING_SHOWN),
            "shown": MISSING_SHOWN,
            "form": form,
        },
    )


@require_GET
@organizer_required
def missing_ids(request: HttpRequest) -> StreamingHttpResponse:
    def lines() -> Iterator[str]:
        for passage_id in selectors.passages_missing_text().values_list("passage_id", flat=True).iterator(5000):
            yield passage_id + "\n"

    response = StreamingHttpResponse(lines(), content_type="text/plain; charset=utf-8")
    attachment(response, what="passages-without-text-ids", ext="txt")
    return response
