"""Pages: the assessor's queue and judging page (htmx), and the organizer's campaign pages."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from django.contrib import messages
from django.contrib.auth.decorators import login_required
from django.contrib.auth.models import User
from django.core.paginator import Paginator
from django.http import Http404, HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.template.loader import render_to_string
from django.urls import reverse
from django.utils.html import format_html, format_html_join
from django.views.decorators.http import require_GET, require_http_methods, require_POST
from django_htmx.middleware import HtmxDetails

from core.auth import organizer_required
from judging import build, queue, selectors, services
from judging.blindness import BlindnessViolation, blindness_violations, card_shows_llm_label
from judging.exchange.schema import SECONDS_LIMIT
from judging.forms import (
    CANNOT_JUDGE_REASONS,
    AssignForm,
    BuildForm,
    CampaignForm,
    CampaignSettingsForm,
    JudgedFilterForm,
    SubmitForm,
    errors_text,
)
from judging.guidelines import guidelines_html
from judging.highlight import highlight_evidence
from judging.kinds import SUPPORT_KIND, assignments_kind_progress, build_summary_text, kind_of, progress_by_kind
from judging.label_set_names import LabelSetName
from judging.models import Assignment, Campaign, Label
from judging.session import assessor_session_figures


class HtmxHttpRequest(HttpRequest):
    htmx: HtmxDetails


LABEL_KEYS = [
    (Label.FULL.value, "1", "f", Label.FULL.label),
    (Label.PARTIAL.value, "2", "p", Label.PARTIAL.label),
    (Label.NONE.value, "3", "n", Label.NONE.label),
]


def own_assignment(request: HttpRequest, assignment_id: int, *, kind: str | None = None) -> Assignment:
    """The user's own assignment (of `kind`, when given), else a 404: another's, or another kind's."""
    assignment = selectors.assessor_assignment_get(user=request.user, assignment_id=assignment_id)  # type: ignore[arg-type]
    if assignment is None or (kind is not None and assignment.campaign.kind != kind):
        raise Http404("No such assignment")
    return assignment


# --- assessor pages -------------------------------------------------------------------------------


@login_required
@require_GET
def queue_page(request: HtmxHttpRequest) -> HttpResponse:
    """The assessor's start page: their assignments in order, with progress."""
    user = request.user
    assignments = list(selectors.assessor_assignments(user=user))  # type: ignore[arg-type]
    assignments_kind_progress(assignments)
    current = next((a for a in assignments if a.status == "open"), None)
    overall = progress_by_kind(assignments)
    return render(request, "judging/queue.html", {"assignments": assignments, "current": current, "overall": overall})


def judge_context(
    state: queue.QueueState, request: HttpRequest | None = None, *, session: Any = None
) -> dict[str, Any]:
    card = state.card
    if session is None:
        session = assessor_session_figures(user=state.assignment.assessor)
    passage_html = None
    if card is not None and state.assignment.campaign.highlight_evidence:
        passage_html = highlight_evidence(card.passage.text, card.sentence_text)
    pk = state.assignment.pk
    return {
        "state": state,
        "assignment": state.assignment,
        "campaign": state.assignment.campaign,
        "card": card,
        "shows_llm_label": card_shows_llm_label(state.assignment),
        "passage_html": passage_html,
        # Built here rather than in template loops and tags: the card is rendered on every keystroke.
        "answer_html": _answer_html(card) if card is not None else "",
        "submit_url": reverse("judging:submit", args=[pk]),
        "back_url": reverse("judging:back", args=[pk]),
        "judged_url": reverse("judging:judged", args=[pk]),
        "label_keys": LABEL_KEYS,
        "cannot_judge_reasons": CANNOT_JUDGE_REASONS,
        "seconds_limit": SECONDS_LIMIT,
        # Read once per request: the held card shows them as of now (the server's answer brings them fresh).
        "session": session,
        # The cards after this one, held by the page so that a keystroke shows the next at once (docs/judging.md).
        # A card the page said it holds already comes back as its token only (`known`).
        "held_cards": [
            {"known": True, "token": held.card.token, "html": ""}
            if held.known and held.card is not None
            else {
                "known": False,
                "html": render_to_string("judging/judge.html#pair-card", judge_context(held, session=session), request),
            }
            for held in state.held
        ],
    }


def _answer_html(card: queue.PairCard) -> str:
    """The whole answer, the judged sentence in bold (NIST's "sentence context")."""
    return format_html_join(
        "",
        "{} ",
        (
            (
                format_html('<strong class="judged-sentence">{}</strong>', s.text or "(sentence text missing)")
                if s.is_judged
                else format_html("<span>{}</span>", s.text),
            )
            for s in card.context
        ),
    )


def _ahead(request: HttpRequest) -> int | None:
    """The cards to hold ahead that the page asks for (`?ahead=`, bounded by the queue), or None."""
    asked = request.GET.get("ahead", "")
    return int(asked) if asked.isdigit() and len(asked) <= 3 else None


def _known(request: HttpRequest) -> list[int]:
    """The pairs whose cards the page holds already (`?known=`, comma-separated ids; anything else is none)."""
    parts = request.GET.get("known", "").split(",")
    ids = [int(p) for p in parts if p.isdigit() and len(p) <= 12]
    return ids[: queue.HELD_AHEAD_MAX] if len(ids) == len([p for p in parts if p]) else []


def _render_state(
    request: HtmxHttpRequest, state: queue.QueueState, *, status: int = 200, refused: Sequence[dict[str, str]] = ()
) -> HttpResponse:
    if request.htmx:
        # The answers of a submit that were refused ride in the card, as its held cards do (judge-cards.js).
        context = {**judge_context(state, request), "refused_answers": refused}
        return render(request, "judging/judge.html#pair-card", context, status=status)
    campaign = state.assignment.campaign
    context = {
        **judge_context(state, request),
        "guidelines_html": guidelines_html(campaign.guidelines),
        "guidelines_unread": selectors.guidelines_unread(campaign=campaign, user=request.user),  # type: ignore[arg-type]
        "guidelines_read_url": reverse("judging:guidelines_read", args=[state.assignment.pk]),
    }
    return render(request, "judging/judge.html", context, status=status)


@login_required
@require_POST
def guidelines_read(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """The assessor closed the guidelines shown at the start: they are not shown at the start again (until
    they change). Without JavaScript the overlay's button posts here and comes back to the card."""
    assignment = own_assignment(request, assignment_id)
    services.guidelines_read(campaign=assignment.campaign, assessor=request.user)  # type: ignore[arg-type]
    if request.htmx:
        return HttpResponse(status=204)
    return redirect("judging:judge", assignment_id=assignment.pk)


@login_required
@require_GET
def judge(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """The judging page: resumes at the first pair this assignment has not judged."""
    assignment = own_assignment(request, assignment_id)
    if assignment.campaign.archived_at is not None:
        messages.info(request, services.CampaignArchived(assignment.campaign).message)
        return redirect("judging:queue")
    if assignment.campaign.kind != SUPPORT_KIND:
        return redirect(kind_of(assignment.campaign).judge_url, assignment.pk)
    state = queue.queue_state(assignment=assignment, following=True, ahead=_ahead(request), known=_known(request))
    return _render_state(request, state)


@login_required
@require_POST
def submit(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """Store the answers of a submit (one from the form, several from the page's outbox: `SubmitForm`) and return
    the next pair's card. An answer refused among several is named in the card (its token and why) while the
    others are stored; a single one refused is a 400 or 409, as its kind says."""
    assignment = own_assignment(request, assignment_id)
    form = SubmitForm(request.POST)
    if not form.is_valid():
        return HttpResponse(f"Not saved: {form.errors.as_text()}", status=400, content_type="text/plain")
    valid = [a for a in form.answers if a.is_valid()]
    if not valid:
        errors = "; ".join(errors_text(a.errors) for a in form.answers)
        return HttpResponse(f"Not saved: {errors}", status=400, content_type="text/plain")
    refused = [
        {"token": str(a.initial_data.get("token", ""))[:64], "reason": errors_text(a.errors)}
        for a in form.answers
        if a.errors
    ]
    data = form.cleaned_data
    outcomes, state = services.judgments_submit_and_next(
        assignment=assignment,
        answers=[services.Answer(**a.validated_data) for a in valid],
        following=True,
        ahead=data["ahead"],
        skip=data["skip"],
        known=data["known"],
    )
    refused += [
        {"token": str(a.validated_data["token"]), "reason": str(outcome)}
        for a, outcome in zip(valid, outcomes, strict=True)
        if isinstance(outcome, services.SubmissionRejected)
    ]
    if refused and (len(form.answers) == 1 or not request.htmx):
        reasons = "; ".join(r["reason"] if len(form.answers) == 1 else f"{r['token']}: {r['reason']}" for r in refused)
        return HttpResponse(f"Not saved: {reasons}", status=409, content_type="text/plain")
    if not request.htmx:
        return redirect("judging:judge", assignment_id=assignment.pk)
    return _render_state(request, state, refused=refused)


@login_required
@require_GET
def back(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """The previous pair, to change its judgment (the change is a new judgment row)."""
    assignment = own_assignment(request, assignment_id)
    before = request.GET.get("before")
    ahead = _ahead(request)
    state = queue.back_state(
        assignment=assignment,
        before=int(before) if before and before.isdigit() and len(before) <= 18 else None,
        following=True,
        ahead=ahead,
    )
    if state is None:
        state = queue.queue_state(assignment=assignment, following=True, ahead=ahead)
    return _render_state(request, state)


JUDGED_PER_PAGE = 50


@login_required
@require_GET
def judged(request: HtmxHttpRequest, assignment_id: int) -> HttpResponse:
    """The assessor's own judgments, newest first, each a link to change it: this topic's, or all their topics'
    in the campaign, filtered by answer and flag, 50 a page. "Back to judging" returns to the card they left."""
    assignment = own_assignment(request, assignment_id)
    mine = [
        a
        for a in selectors.assessor_assignments(user=request.user)  # type: ignore[arg-type]
        if a.campaign_id == assignment.campaign_id
    ]
    form = JudgedFilterForm(
        request.GET or None, topics=[(str(a.pk), f"{a.topic.topic_id} ({a.get_condition_display()})") for a in mine]
    )
    filters = form.filters()
    chosen = [assignment]
    if filters["topic"] == "all":
        chosen = mine
    elif filters["topic"]:
        chosen = [a for a in mine if str(a.pk) == filters["topic"]] or [assignment]
    judgments = selectors.judged_pairs_query(assignments=chosen, label=filters["label"], flagged=filters["flagged"])
    page = Paginator(judgments, JUDGED_PER_PAGE).get_page(request.GET.get("page"))
    query = request.GET.copy()
    query.pop("page", None)
    context = {
        "assignment": assignment,
        "campaign": assignment.campaign,
        "form": form,
        "page": page,
        # Numbered as before pages: the oldest judgment of the list is 1.
        "pairs": [
            (page.paginator.count - page.start_index() + 1 - i, row)
            for i, row in enumerate(selectors.judged_pair_rows(page.object_list))
        ],
        "query": query.urlencode(),
        "several_topics": len(chosen) > 1,
        "filtered": bool(filters["label"] or filters["flagged"] or filters["topic"]),
        "back_url": _card_left(assignment, filters["from_pair"]),
    }
    return render(request, "judging/judged.html", context)


def _card_left(assignment: Assignment, pair_id: int | None) -> str:
    """Where "Back to judging" goes from My judgments: the pair being changed when the assessor left from it,
    else the queue's next card."""
    if pair_id is not None and selectors.judged_by(assignment=assignment, pair_id=pair_id):
        return reverse("judging:judged_pair", args=[assignment.pk, pair_id])
    return reverse("judging:judge", args=[assignment.pk])


@login_required
@require_GET
def judged_pair(request: HtmxHttpRequest, assignment_id: int, pair_id: int) -> HttpResponse:
    """One of the assessor's judged pairs, on the judging page, to change the answer (a new judgment)."""
    assignment = own_assignment(request, assignment_id)
    state = queue.judged_state(assignment=assignment, pair_id=pair_id, following=True, ahead=_ahead(request))
    if state is None:
        raise Http404("You have not judged this pair in this topic")
    return _render_state(request, state)


# --- organizer pages ------------------------------------------------------------------------------


@organizer_required
@require_http_methods(["GET", "POST"])
def campaigns(request: HttpRequest) -> HttpResponse:
    form = CampaignForm(request.POST or None)
    if request.method == "POST" and form.is_valid():
        data = form.cleaned_data
        try:
            campaign, summary = build.campaign_create_and_build(
                name=data["name"],
                runs=data["chosen_runs"],
                topics=data["topics"],
                depth=data["depth"],
                guidelines=data["guidelines"],
                post_edit_judge=data["post_edit_judge"],
                highlight_evidence=data["highlight_evidence"],
                allow_missing_text=data["allow_missing_text"],
                kind=data["kind"],
                build_options=data["build_options"],
            )
        except build.CampaignNotCreated as exc:
            form.add_error(None, f"{exc.message} (tick “{form.fields['allow_missing_text'].label}”)")
        else:
            _built_message(request, campaign, summary)
            return redirect("judging:campaign", campaign_id=campaign.pk)
    archived = request.GET.get("archived") == "1"
    campaigns = list(selectors.campaign_list(archived=archived))
    progress = selectors.campaigns_progress(campaign_ids=[c.pk for c in campaigns])
    return render(
        request,
        "judging/campaigns.html",
        {
            "campaigns": [(c, progress[c.pk]) for c in campaigns],
            "form": form,
            "archived": archived,
            "n_archived": Campaign.objects.filter(archived_at__isnull=False).count(),
        },
    )


def _build(request: HttpRequest, campaign: Campaign, *, allow_missing_text: bool, options: dict[str, Any]) -> None:
    try:
        summary = kind_of(campaign).build(campaign, allow_missing_text=allow_missing_text, **options)
    except build.CampaignBuildError as exc:
        messages.error(request, f"Pairs not built: {exc.message}")
        return
    _built_message(request, campaign, summary)


def _built_message(request: HttpRequest, campaign: Campaign, summary: dict[str, Any]) -> None:
    if campaign.kind != SUPPORT_KIND:
        messages.success(request, f"Built: {build_summary_text(summary)}.")
        return
    messages.success(
        request,
        f"Built {summary['pairs']} pairs from {summary['citations_kept']} citations "
        f"({summary['judgments_saved']} judgments saved by deduplication).",
    )


def campaign_or_404(campaign_id: int) -> Campaign:
    campaign = selectors.campaign_get(campaign_id=campaign_id)
    if campaign is None:
        raise Http404("No such campaign")
    return campaign


@organizer_required
@require_GET
def campaign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_or_404(campaign_id)
    kind = kind_of(campaign)
    is_support = kind.name == SUPPORT_KIND
    assignments: Any = selectors.campaign_assignments(campaign=campaign)
    if not is_support:  # another kind's progress is its own; support's per-condition figures are pairs
        assignments = list(assignments)
        assignments_kind_progress(assignments)
    return render(
        request,
        "judging/campaign.html",
        {
            "campaign": campaign,
            "kind": kind,
            "is_support": is_support,
            "build_summary": build_summary_text(campaign.build_summary or {}),
            "assignments": assignments,
            "progress": selectors.campaign_progress(campaign=campaign) if is_support else None,
            "violations": blindness_violations(campaign=campaign),
            "figures": selectors.campaign_figures(campaign=campaign) if is_support else None,
            "assign_form": AssignForm(
                campaign=campaign, initial={"assessor": User.objects.filter(is_staff=False).first()}
            ),
            "settings_form": CampaignSettingsForm(instance=campaign),
            "guidelines_html": guidelines_html(campaign.guidelines),
            "build_form": BuildForm(kind=kind.name, initial=campaign.build_summary or {}),
            "final_spec": LabelSetName.final(campaign.name).format(),
        },
    )


@organizer_required
@require_POST
def campaign_build(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_or_404(campaign_id)
    form = BuildForm(request.POST, kind=campaign.kind)
    if not form.is_valid():
        messages.error(request, f"Not built: {errors_text(form.errors)}")
        return redirect("judging:campaign", campaign_id=campaign.pk)
    allow_missing_text = bool(form.cleaned_data.get("allow_missing_text"))
    _build(request, campaign, allow_missing_text=allow_missing_text, options=form.cleaned_data["build_options"])
    return redirect("judging:campaign", campaign_id=campaign.pk)


@organizer_required
@require_POST
def campaign_settings(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_or_404(campaign_id)
    form = CampaignSettingsForm(request.POST, instance=campaign)
    if form.is_valid():
        services.campaign_update(
            campaign=campaign,
            guidelines=form.cleaned_data["guidelines"],
            post_edit_judge=form.cleaned_data["post_edit_judge"],
            highlight_evidence=form.cleaned_data["highlight_evidence"],
            queue_order=form.cleaned_data["queue_order"],
        )
        messages.success(request, "Settings saved.")
    else:
        messages.error(request, f"Settings not saved: {form.errors.as_text()}")
    return redirect("judging:campaign", campaign_id=campaign.pk)


@organizer_required
@require_POST
def campaign_assign(request: HttpRequest, campaign_id: int) -> HttpResponse:
    campaign = campaign_or_404(campaign_id)
    form = AssignForm(request.POST, campaign=campaign)
    if not form.is_valid():
        messages.error(request, f"Not assigned: {form.errors.as_text()}")
        return redirect("judging:campaign", campaign_id=campaign.pk)
    try:
        made = services.assignments_create(
            campaign=campaign,
            assessor=form.cleaned_data["assessor"],
            topics=form.cleaned_data["topics"],
            condition=form.cleaned_data["condition"],
        )
    except BlindnessViolation as violation:
        messages.error(request, f"Not assigned: {violation.message}")
    else:
        messages.success(request, f"{len(made)} assignment(s) for {form.cleaned_data['assessor'].username}.")
    return redirect("judging:campaign", campaign_id=campaign.pk)


@organizer_required
@require_POST
def assignment_remove(request: HttpRequest, campaign_id: int, assignment_id: int) -> HttpResponse:
    assignment = _campaign_assignment_or_404(campaign_id, assignment_id)
    try:
        services.assignment_remove(assignment=assignment)
    except services.AssignmentInUse as exc:
        messages.error(request, f"Not removed: {exc}")
    else:
        messages.success(
            request, f"Removed {assignment.assessor.username}'s assignment on {assignment.topic.topic_id}."
        )
    return redirect(f"{reverse('judging:campaign', args=[campaign_id])}#assignments")


@organizer_required
@require_POST
def assignment_move(request: HttpRequest, campaign_id: int, assignment_id: int) -> HttpResponse:
    assignment = _campaign_assignment_or_404(campaign_id, assignment_id)
    services.assignment_move(assignment=assignment, step=-1 if request.POST.get("direction") == "up" else 1)
    return redirect(f"{reverse('judging:campaign', args=[campaign_id])}#assignments")


def _campaign_assignment_or_404(campaign_id: int, assignment_id: int) -> Assignment:
    found = (
        Assignment.objects.select_related("assessor", "topic").filter(pk=assignment_id, campaign_id=campaign_id).first()
    )
    if found is None:
        raise Http404("No such assignment in this campaign")
    return found
