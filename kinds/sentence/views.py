"""The sentence card: the assessor's page and its submit (thin; the rules are in services and selectors)."""

from __future__ import annotations

import io
import uuid
from typing import Any

from django.contrib.auth.decorators import login_required
from django.http import HttpRequest, HttpResponse
from django.shortcuts import get_object_or_404, render
from django.views.decorators.http import require_GET, require_POST

from core.auth import organizer_required
from core.downloads import attachment
from judging.exchange.schema import SECONDS_LIMIT
from judging.models import Assignment, Campaign, Condition
from judging.services import SubmissionRejected, assessor_judge
from judging.views import own_assignment

from . import selectors, services
from .agreement import sentence_agreement_report
from .exchange import nist_write, webassess_rows
from .kind import KIND
from .report import sentence_scores_report
from .selectors import sentence_label_set_get
from .vocabulary import COMBINED

RESAMPLES = 500  # the panel's intervals: enough for two decimals, quick on a page


def _card_context(assignment: Assignment, *, oob: bool = False) -> dict[str, Any]:
    judge = assessor_judge(user=assignment.assessor)
    item = selectors.item_next(assignment, judge.pk)
    card = selectors.card_of(item) if item is not None else None
    shown = selectors.shown_labels(assignment, item.sentence_id) if item is not None else None
    progress = selectors.assignments_progress([assignment])[assignment.pk]
    return {
        "assignment": assignment,
        "campaign": assignment.campaign,
        "kind": KIND,
        "oob": oob,
        "seconds_limit": SECONDS_LIMIT,
        "card": card,
        "token": uuid.uuid4(),
        "progress": progress,
        "post_edit": assignment.condition == Condition.POST_EDIT,
        "shown_worthy": None if shown is None else shown[0],
        "shown_combined": "" if shown is None else shown[1],
        "combined_terms": [
            (name, COMBINED.titles[name], COMBINED.code_of[name] + 1) for name in COMBINED.highest_first
        ],
    }


@login_required
@require_GET
def judge(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = own_assignment(request, assignment_id, kind=KIND.name)
    return render(request, "kind_sentence/judge.html", _card_context(assignment))


def _answer(request: HttpRequest) -> tuple[int, bool, str, uuid.UUID, float | None]:
    """The posted answer, or ValueError naming the field."""
    post = request.POST
    try:
        sentence_id = int(post.get("sentence", ""))
    except ValueError:
        raise ValueError("sentence: expected a sentence id") from None
    worthy = post.get("worthy", "")
    if worthy not in ("0", "1"):
        raise ValueError('worthy: expected "1" (needs a citation) or "0"')
    try:
        token = uuid.UUID(post.get("token", ""))
    except ValueError:
        raise ValueError("token: expected a UUID") from None
    seconds_text = post.get("seconds", "").strip()
    try:
        seconds = float(seconds_text) if seconds_text else None
    except ValueError:
        raise ValueError("seconds: expected a number") from None
    if seconds is not None and not 0 <= seconds <= SECONDS_LIMIT:
        raise ValueError(f"seconds: expected 0 to {SECONDS_LIMIT}")
    return sentence_id, worthy == "1", post.get("label", "").strip(), token, seconds


@login_required
@require_POST
def submit(request: HttpRequest, assignment_id: int) -> HttpResponse:
    """Store the card's answer (once per token) and answer with the next card (or the done card)."""
    assignment = own_assignment(request, assignment_id, kind=KIND.name)
    try:
        sentence_id, worthy, label, token, seconds = _answer(request)
        services.sentence_submit(
            assignment=assignment,
            sentence_id=sentence_id,
            worthy=worthy,
            combined=label,
            token=token,
            seconds=seconds,
        )
    except (ValueError, SubmissionRejected) as exc:
        return HttpResponse(f"Not stored: {exc}", status=400, content_type="text/plain")
    return render(request, "kind_sentence/_card.html", _card_context(assignment, oob=True))


# --- the organizer's campaign panel ---------------------------------------------------------------------------


def _chosen(request: HttpRequest, name: str, available: list[str], default: str) -> str:
    value = request.GET.get(name, "").strip()
    return value if value in available else default


@organizer_required
@require_GET
def campaign_page(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The kind's panel on a page of its own (the campaign page includes the same panel)."""
    campaign = get_object_or_404(Campaign, pk=campaign_id, kind=KIND.name)
    return render(request, "kind_sentence/campaign.html", {"campaign": campaign, "kind": KIND})


@organizer_required
@require_GET
def panel(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """Per-run scores of one label set with intervals, and the agreement of two sets (loaded into the campaign
    page's kind panel)."""
    campaign = get_object_or_404(Campaign, pk=campaign_id, kind=KIND.name)
    available = selectors.sentence_label_sets_available(campaign)
    campaign_sets = [s for s in available if s.startswith("campaign:")]
    scores_set = _chosen(request, "labels", available, (campaign_sets or available or [""])[0])
    a = _chosen(request, "a", available, scores_set)
    b = _chosen(request, "b", available, next((s for s in available if s != a), a))
    context: dict[str, Any] = {"campaign": campaign, "available": available, "labels": scores_set, "a": a, "b": b}
    if scores_set:
        context["report"] = sentence_scores_report(sentence_label_set_get(scores_set), resamples=RESAMPLES)
    if a and b and a != b:  # a set against itself agrees by construction: no figure to show
        context["agreement"] = sentence_agreement_report(
            sentence_label_set_get(a), sentence_label_set_get(b), resamples=RESAMPLES
        )
    return render(request, "kind_sentence/_panel_body.html", context)


@organizer_required
@require_GET
def export(request: HttpRequest, campaign_id: int) -> HttpResponse:
    """The chosen label set as NIST's Webassess JSONL."""
    campaign = get_object_or_404(Campaign, pk=campaign_id, kind=KIND.name)
    available = selectors.sentence_label_sets_available(campaign)
    spec = request.GET.get("labels", "")
    if spec not in available:
        return HttpResponse(f"labels: not a sentence label set of this campaign: {spec!r}", status=400)
    buffer = io.StringIO()
    nist_write(buffer, webassess_rows(sentence_label_set_get(spec)))
    response = HttpResponse(buffer.getvalue(), content_type="application/x-ndjson; charset=utf-8")
    return attachment(response, what="sentence-labels", ext="jsonl", campaign=campaign.name, label_sets=[spec])
