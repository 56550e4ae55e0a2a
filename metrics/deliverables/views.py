"""The campaign page's deliverables button (organizers): the zip is sent as it is written, entry after entry
(`build.deliverables_stream`), so its first bytes leave before the last entry is computed and memory holds
one entry at most. The label set is checked before anything is sent."""

from __future__ import annotations

import re

from django import forms
from django.contrib import messages
from django.http import Http404, HttpRequest, HttpResponseBase, StreamingHttpResponse
from django.shortcuts import redirect
from django.utils.http import content_disposition_header
from django.views.decorators.http import require_POST

from core.auth import organizer_required
from judging.label_set_names import LabelSetError
from judging.labels import label_set_get
from judging.models import Campaign
from metrics.deliverables.build import deliverables_stream


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
    safe = re.sub(r"[^A-Za-z0-9._-]+", "_", f"{campaign.name}-{label_set.spec}")
    response = StreamingHttpResponse(
        deliverables_stream(campaign=campaign, label_set=label_set), content_type="application/zip"
    )
    response["Content-Disposition"] = content_disposition_header(True, f"deliverables-{safe}.zip") or ""
    return response
