"""The campaign page's deliverables button (organizers): the zip is written entry after entry to a temporary
file, which is then streamed to the browser and deleted."""

from __future__ import annotations

import re
import tempfile

from django import forms
from django.contrib import messages
from django.http import FileResponse, Http404, HttpRequest, HttpResponseBase
from django.shortcuts import redirect
from django.views.decorators.http import require_POST

from core.auth import organizer_required
from judging.labels import LabelSetError, label_set_get
from judging.models import Campaign
from metrics.deliverables.build import deliverables_write


class DeliverablesForm(forms.Form):
    labels = forms.CharField(max_length=512, strip=True)


@organizer_required
@require_POST
def campaign_deliverables(request: HttpRequest, campaign_id: int) -> HttpResponseBase:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404("No such campaign")
    form = DeliverablesForm(request.POST)
    problem = None
    if not form.is_valid() or "\x00" in form.cleaned_data.get("labels", ""):
        problem = "name a label set (e.g. final/" + campaign.name + ")"
    else:
        try:
            label_set = label_set_get(form.cleaned_data["labels"])
        except LabelSetError as exc:
            problem = str(exc)
    if problem is not None:
        messages.error(request, f"Deliverables not written: {problem}")
        return redirect("judging:campaign", campaign_id=campaign.pk)
    spool = tempfile.TemporaryFile()  # noqa: SIM115 - FileResponse closes (and so deletes) it once sent
    try:
        deliverables_write(spool, campaign=campaign, label_set=label_set)
    except BaseException:
        spool.close()
        raise
    spool.seek(0)
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{campaign.name}-{label_set.spec}")
    return FileResponse(spool, as_attachment=True, filename=f"deliverables-{safe}.zip", content_type="application/zip")
