"""The assessor quality page of a campaign (organizers only: it names every assessor's labels), its CSV, and
the gold upload."""

from __future__ import annotations

import tempfile
from pathlib import Path

from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from assess.importers.lines import InputFile
from core.auth import organizer_required
from judging.models import Campaign
from judging.selectors import campaign_get
from metrics.quality import export, plots, selectors, services
from metrics.quality.forms import GoldUploadForm
from metrics.quality.stats import SPEED_BLOCK

TEMPLATE = "quality/quality.html"


def _campaign_or_404(campaign_id: int) -> Campaign:
    campaign = campaign_get(campaign_id=campaign_id)
    if campaign is None:
        raise Http404("No such campaign")
    return campaign


def _page(
    request: HttpRequest, campaign: Campaign, *, form: GoldUploadForm, report_errors: object = None, status: int = 200
) -> HttpResponse:
    report = selectors.quality_report(campaign=campaign)
    names = [r.rater.spec for r in report.rows]
    cells = [[None if a is b else a.assessors.get(b.rater.spec) for b in report.rows] for a in report.rows]
    context = {
        "campaign": campaign,
        "report": report,
        "heatmap": plots.kappa_heatmap(names, cells) if len(names) >= 2 else None,
        "speed": plots.speed_plot([(r.rater.spec, r.speed) for r in report.rows], block=SPEED_BLOCK),
        "speed_block": SPEED_BLOCK,
        "drift_header": max((r.drift for r in report.rows), key=len, default=[]),
        "form": form,
        "gold_report": report_errors,
    }
    return render(request, TEMPLATE, context, status=status)


@organizer_required
@require_GET
def quality(request: HttpRequest, campaign_id: int) -> HttpResponse:
    return _page(request, _campaign_or_404(campaign_id), form=GoldUploadForm())


@organizer_required
@require_GET
def quality_csv(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign_or_404(campaign_id)
    body = export.quality_csv(selectors.quality_report(campaign=campaign))
    response = HttpResponse(body, content_type="text/csv")
    response["Content-Disposition"] = f'attachment; filename="quality-campaign-{campaign.pk}.csv"'
    return response


@organizer_required
@require_POST
def gold_upload(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign_or_404(campaign_id)
    form = GoldUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return _page(request, campaign, form=form, status=400)
    upload = form.cleaned_data["gold"]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "gold"
        with path.open("wb") as out:
            for chunk in upload.chunks():
                out.write(chunk)
        result = services.gold_items_load(
            campaign=campaign,
            f=InputFile(path, upload.name or "gold"),
            loaded_by=request.user,  # type: ignore[arg-type]
        )
    if not result.ok:
        return _page(request, campaign, form=form, report_errors=result, status=400)
    messages.success(request, f"{result.counts.get('gold items', 0)} gold items loaded; the previous ones replaced.")
    return redirect("metrics:quality", campaign_id=campaign.pk)
