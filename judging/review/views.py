"""The review pages: the campaigns to review, and one campaign's queue, one pair at a time (htmx swaps the
pair; without JavaScript each link and the form load a whole page)."""

from __future__ import annotations

from django.contrib import messages
from django.core.exceptions import PermissionDenied
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST
from django_htmx.middleware import HtmxDetails

from judging.label_set_names import LabelSetName
from judging.models import Campaign, Label
from judging.review import selectors, services
from judging.review.access import review_refusal, reviewer_required
from judging.review.forms import FinalLabelForm

LABEL_KEYS = [
    (Label.FULL.value, "1", Label.FULL.label),
    (Label.PARTIAL.value, "2", Label.PARTIAL.label),
    (Label.NONE.value, "3", Label.NONE.label),
]


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


def _campaign_for(request: HttpRequest, campaign_id: int) -> Campaign:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404("No such campaign")
    refusal = review_refusal(request.user, campaign)
    if refusal is not None:
        raise PermissionDenied(refusal)
    return campaign


@reviewer_required
@require_GET
def review_campaigns(request: HttpRequest) -> HttpResponse:
    rows = []
    for campaign in Campaign.objects.order_by("name"):
        if review_refusal(request.user, campaign) is None:
            rows.append((campaign, selectors.review_counts(selectors.review_queue(campaign=campaign))))
    return render(request, "judging/review_campaigns.html", {"rows": rows})


def _neighbours(items: list[selectors.ReviewItem], pair_id: int | None) -> tuple[int | None, int | None, int]:
    ids = [i.pair_id for i in items]
    if pair_id not in ids:
        return None, (ids[0] if ids else None), 0
    at = ids.index(pair_id)
    return (ids[at - 1] if at > 0 else None), (ids[at + 1] if at + 1 < len(ids) else None), at + 1


def _render(
    request: HtmxHttpRequest,
    campaign: Campaign,
    *,
    pair_id: int | None,
    reason: str,
    form: FinalLabelForm | None = None,
    status: int = 200,
) -> HttpResponse:
    every = selectors.review_queue(campaign=campaign)
    items = [i for i in every if reason in i.reasons] if reason in selectors.REASONS else every
    if pair_id is None:
        pair_id = next((i.pair_id for i in items if not i.reviewed), None)
    detail = selectors.review_detail(campaign=campaign, pair_id=pair_id, items=every) if pair_id else None
    if pair_id is not None and detail is None:
        raise Http404(f"pair {pair_id} is not in campaign {campaign.name}")
    previous, following, position = _neighbours(items, pair_id)
    context = {
        "campaign": campaign,
        "items": items,
        "counts": selectors.review_counts(every),
        "reasons": selectors.REASONS,
        "reason": reason if reason in selectors.REASONS else "",
        "detail": detail,
        "previous": previous,
        "following": following,
        "position": position,
        "label_keys": LABEL_KEYS,
        "form": form or FinalLabelForm(initial={"label": detail.item.final_label if detail else None}),
        "final_spec": LabelSetName.final(campaign.name).format(),
    }
    template = "judging/review.html#review-item" if request.htmx else "judging/review.html"
    return render(request, template, context, status=status)


def _pair_param(request: HttpRequest) -> int | None:
    raw = request.GET.get("pair", "")
    if not raw:
        return None
    if not raw.isdigit() or len(raw) > 12:
        raise Http404("pair: expected a pair id")
    return int(raw)


@reviewer_required
@require_GET
def review_queue_page(request: HtmxHttpRequest, campaign_id: int) -> HttpResponse:
    campaign = _campaign_for(request, campaign_id)
    return _render(request, campaign, pair_id=_pair_param(request), reason=request.GET.get("reason", ""))


@reviewer_required
@require_POST
def review_final(request: HtmxHttpRequest, campaign_id: int, pair_id: int) -> HttpResponse:
    campaign = _campaign_for(request, campaign_id)
    reason_filter = request.POST.get("queue_reason", "")
    form = FinalLabelForm(request.POST)
    if not form.is_valid():
        return _render(request, campaign, pair_id=pair_id, reason=reason_filter, form=form, status=400)
    try:
        services.final_label_set(
            campaign=campaign,
            pair_id=pair_id,
            label=form.cleaned_data["label"],
            reason=form.cleaned_data["reason"],
            reviewer=request.user,  # type: ignore[arg-type]
        )
    except services.ReviewError as exc:
        form.add_error(None, str(exc))
        status = 409 if isinstance(exc, services.ReviewConflict) else 400
        if selectors.review_detail(campaign=campaign, pair_id=pair_id) is None:
            raise Http404(str(exc)) from None
        return _render(request, campaign, pair_id=pair_id, reason=reason_filter, form=form, status=status)
    every = selectors.review_queue(campaign=campaign)
    items = [i for i in every if reason_filter in i.reasons] if reason_filter in selectors.REASONS else every
    _previous, following, _ = _neighbours(items, pair_id)
    next_open = next((i.pair_id for i in items if not i.reviewed), following)
    if not request.htmx:
        messages.success(request, f"Final label {form.cleaned_data['label']} given to pair {pair_id}.")
        url = reverse("judging:review", args=[campaign.pk])
        query = [f"pair={next_open}"] if next_open else []
        query += [f"reason={reason_filter}"] if reason_filter in selectors.REASONS else []
        return redirect(url + ("?" + "&".join(query) if query else ""))
    return _render(request, campaign, pair_id=next_open, reason=reason_filter)
