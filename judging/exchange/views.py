"""The judgment upload page (its form sits on the metrics dashboard, where the result is seen)."""

from __future__ import annotations

from django.contrib import messages
from django.http import HttpRequest, HttpResponse, HttpResponsePermanentRedirect
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_http_methods

from core.auth import organizer_required
from judging.exchange.forms import JudgmentUploadForm
from judging.exchange.services import judgments_import_uploads

RESULT_TEMPLATE = "judging/exchange/upload_result.html"


@require_http_methods(["GET", "POST"])
@organizer_required
def upload(request: HttpRequest) -> HttpResponse:
    """POST imports (a success redirects to the dashboard); GET is the form alone, so reloading or reopening
    the address of a rejected import shows the form again rather than a 405."""
    if request.method == "GET":
        return render(request, RESULT_TEMPLATE, {"form": JudgmentUploadForm(), "report": None})
    form = JudgmentUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, RESULT_TEMPLATE, {"form": form, "report": None}, status=400)
    report = judgments_import_uploads(
        uploads=form.cleaned_data["uploads"],
        fmt=form.cleaned_data["format"],
        options=form.options(),
        run_map_upload=form.cleaned_data.get("run_map"),
    )
    if report.ok:
        summary = ", ".join(f"{k} {v}" for k, v in report.counts.items())
        messages.success(request, f"imported: {summary}")
        return redirect("metrics:dashboard")
    return render(request, RESULT_TEMPLATE, {"form": form, "report": report}, status=400)


@require_http_methods(["GET", "POST"])
def upload_moved(request: HttpRequest) -> HttpResponse:
    """The old address: a permanent redirect that keeps the method and the body (308), so a script's POST still
    imports."""
    return HttpResponsePermanentRedirect(reverse("exchange:upload"), preserve_request=True)
