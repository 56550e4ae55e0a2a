"""The organizers' pages of flags and cannot-judge reasons: a campaign's list, resolving a flag, the CSV."""

from __future__ import annotations

from django.contrib import messages
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.views.decorators.http import require_GET, require_POST

from core.auth import organizer_required
from core.csvsafe import SafeCsvWriter
from core.downloads import attachment
from judging import selectors, services
from judging.views import campaign_or_404

FLAGS_PER_PAGE = 25
FLAG_COLUMNS = [
    "judgment_id", "created_at", "assessor", "topic_id", "run_id", "passage_id", "sentence", "label",
    "comment", "state", "resolved_by", "resolved_at", "note", "not_judged_reason",
]  # fmt: skip


@organizer_required
@require_GET
def campaign_flags(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's flags to review (open first), each with its sentence and passage, resolved with a note."""
    campaign = campaign_or_404(campaign_id)
    try:
        state = selectors.FlagState(request.GET.get("state", "open"))
    except ValueError:
        state = selectors.FlagState.OPEN
    flags = selectors.campaign_flags(campaign=campaign, state=state)
    page = Paginator(flags, FLAGS_PER_PAGE).get_page(request.GET.get("page"))
    tabs = [(s, selectors.campaign_flags(campaign=campaign, state=s).count()) for s in selectors.FlagState]
    context = {"campaign": campaign, "page": page, "state": state, "tabs": tabs}
    return render(request, "judging/flags.html", context)


@organizer_required
@require_GET
def campaign_cannot_judge(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The campaign's "cannot judge" answers that stand, with their reasons: how often each reason was given,
    then each answer (who, topic, pair, reason, flag and comment), newest first."""
    campaign = campaign_or_404(campaign_id)
    judgments = selectors.campaign_cannot_judge(campaign=campaign)
    page = Paginator(judgments, FLAGS_PER_PAGE).get_page(request.GET.get("page"))
    context = {"campaign": campaign, "page": page, "reasons": selectors.cannot_judge_reasons(judgments=judgments)}
    return render(request, "judging/cannot_judge.html", context)


@organizer_required
@require_POST
def flag_resolve(request: HttpRequest, campaign_id: int, judgment_id: int) -> HttpResponse:
    campaign = campaign_or_404(campaign_id)
    judgment = selectors.campaign_flags(campaign=campaign).filter(pk=judgment_id).first()
    if judgment is None:
        raise Http404("No such flag in this campaign")
    services.flag_resolve(judgment=judgment, resolved_by=request.user, note=request.POST.get("note", "")[:2000])  # type: ignore[arg-type]
    messages.success(request, f"Flag of {judgment.judge.name} on topic {judgment.assignment.topic.topic_id} resolved.")  # type: ignore[union-attr]
    return redirect(f"{reverse('judging:campaign_flags', args=[campaign.pk])}?page={request.POST.get('page', '1')}")


@organizer_required
@require_GET
def campaign_flags_csv(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Every flag of the campaign (open, resolved and withdrawn), one row each, safe to open in a spreadsheet."""
    campaign = campaign_or_404(campaign_id)
    response = HttpResponse(content_type="text/csv; charset=utf-8")
    attachment(response, what="flags", ext="csv", campaign=campaign.name)
    writer = SafeCsvWriter(response)
    writer.writerow(FLAG_COLUMNS)
    for j in selectors.campaign_flags(campaign=campaign).iterator(chunk_size=500):
        review = getattr(j, "flag_review", None)
        sentence = j.citation.sentence if j.citation is not None else None
        row = [
            j.pk, j.created_at.isoformat(), j.judge.name, j.assignment.topic.topic_id if j.assignment else "",
            sentence.answer.run.run_id if sentence else "", j.pair.passage.passage_id, sentence.text if sentence else "",
            j.label or "NJ", j.comment, selectors.flag_state(j).value,
            review.resolved_by.username if review and review.resolved_by else "",
            review.resolved_at.isoformat() if review else "", review.note if review else "",
            j.not_judged_reason if not j.label else "",
        ]  # fmt: skip
        writer.writerow(row)
    return response
