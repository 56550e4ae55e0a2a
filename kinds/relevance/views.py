"""The relevance card (an assessor's) and the qrels download (an organizer's). Thin: the rules are in services
and selectors."""

from __future__ import annotations

import uuid
from typing import Any

from django.contrib.admin.views.decorators import staff_member_required
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse, HttpResponseBadRequest
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from judging.exchange.schema import SECONDS_LIMIT
from judging.kinds import kind_of
from judging.label_set_names import LabelSetError
from judging.models import Assignment, Campaign
from judging.views import own_assignment
from kinds.relevance import selectors
from kinds.relevance.exchange import label_set_qrels_write, qrels_filename
from kinds.relevance.report import relevance_report
from kinds.relevance.services import GradeRejected, grade_submit
from kinds.relevance.vocabulary import MEANING, RELEVANCE
from metrics.plots import heatmap, scatter


def _card_context(assignment: Assignment) -> dict[str, Any]:
    item = selectors.assignment_next_item(assignment)
    progress = selectors.items_progress([assignment])[assignment.pk]
    context: dict[str, Any] = {
        "assignment": assignment,
        "campaign": assignment.campaign,
        "kind": kind_of(assignment.campaign),
        "item": item,
        "progress": progress,
        "seconds_limit": SECONDS_LIMIT,
    }
    if item is None:
        return context
    shown = selectors.shown_grade(assignment, item)
    context.update(
        token=selectors.item_token(assignment, item),
        grades=[{"name": t.name, "title": t.title, "meaning": MEANING[t.name]} for t in RELEVANCE.terms],
        shown=None if shown is None else {"name": str(shown), "title": RELEVANCE.titles[str(shown)]},
        shown_source=selectors.post_edit_source(assignment.campaign) if shown is not None else "",
    )
    return context


@login_required
@require_GET
def judge_page(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = own_assignment(request, assignment_id, kind="relevance")
    return render(request, "kind_relevance/judge.html", _card_context(assignment))


@login_required
@require_POST
def submit(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """Store the card's grade and answer with the next card (or the done card); a bad answer is a 400."""
    assignment = own_assignment(request, assignment_id, kind="relevance")
    data = request.POST
    try:
        item_id, grade, token = int(data.get("item", "")), int(data.get("grade", "")), uuid.UUID(data.get("token", ""))
    except ValueError:
        return HttpResponseBadRequest("give item (an id), grade (0 to 3) and token (the card's UUID)")
    seconds: float | None = None
    if data.get("seconds"):
        try:
            seconds = float(data["seconds"])
        except ValueError:
            return HttpResponseBadRequest("seconds must be a number")
        if not 0 <= seconds <= SECONDS_LIMIT:
            return HttpResponseBadRequest(f"seconds must be between 0 and {SECONDS_LIMIT}")
    try:
        grade_submit(assignment=assignment, item_id=item_id, grade=grade, token=token, seconds=seconds)
    except GradeRejected as exc:
        return HttpResponseBadRequest(str(exc))
    return render(request, "kind_relevance/card.html", {**_card_context(assignment), "oob": True})


def _default_sets(campaign: Campaign) -> tuple[str, str]:
    """The panel's default comparison: the campaign's from-scratch grades (or its first other source) against
    its post-edit source (or its pool's source)."""
    settings = selectors.relevance_settings_of(campaign)
    b = selectors.post_edit_source(campaign) or settings.pool_source or "umbrela"
    sources = [s for s in selectors.relevance_sources() if s != b]
    judged = selectors.campaign_conditions(campaign)
    a = f"campaign:{campaign.name}/{judged[0]}" if judged else (sources[0] if sources else b)
    return a, b


@staff_member_required
@require_GET
def report_panel(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The kind's campaign panel: agreement of two label sets and the runs ranked by nDCG under each; the whole
    page, or the fragment when htmx asks (the campaign page's panel loads it)."""
    campaign = get_object_or_404(Campaign, pk=campaign_id, kind="relevance")
    default_a, default_b = _default_sets(campaign)
    a, b = request.GET.get("a", default_a), request.GET.get("b", default_b)
    context: dict[str, Any] = {"campaign": campaign, "a": a, "b": b, "sources": selectors.relevance_sources()}
    try:
        report = relevance_report(a, b, campaign=campaign)
    except LabelSetError as exc:
        context["error"] = str(exc)
    else:
        agreement, first = report.agreement, report.measures[0]
        context.update(
            report=report,
            heatmap=heatmap(agreement.matrix, agreement.matrix_percent, agreement.labels, a=a, b=b, unit="pairs"),
            scatter=scatter(
                title=f"runs' {first}",
                tau=report.tau[first],
                run_ids=[r.run_id for r in report.runs],
                run_x=[r.scores_a[first] for r in report.runs],
                run_y=[r.scores_b[first] for r in report.runs],
                topic_ids=[],
                topic_x=[],
                topic_y=[],
                x_label=a,
                y_label=b,
            ),
        )
    template = "kind_relevance/report.html" if request.headers.get("HX-Request") else "kind_relevance/report_page.html"
    return render(request, template, context)


@staff_member_required
@require_GET
def qrels_download(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """A relevance label set as trec_eval qrels (`?labels=umbrela` or `campaign:NAME/from_scratch`)."""
    get_object_or_404(Campaign, pk=campaign_id, kind="relevance")
    spec = request.GET.get("labels", "")
    response = HttpResponse(content_type="text/plain; charset=utf-8")
    try:
        label_set_qrels_write(response, spec)
    except LabelSetError as exc:
        return HttpResponseBadRequest(str(exc))
    response["Content-Disposition"] = f'attachment; filename="{qrels_filename(spec)}"'
    return response
