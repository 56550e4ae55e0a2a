"""The metrics pages' downloads: judgments (CSV, qrels, NIST JSONL), scores, per-topic scores, the agreement
report and the paper's figures, for the label sets and scope the dashboard shows (`metrics.views.choice_read`)."""

from __future__ import annotations

import io

from django.http import HttpRequest, HttpResponse
from django.views.decorators.http import require_GET

from core.auth import organizer_required
from core.downloads import attachment
from judging.exchange.export import ExportFormat, judgments_export
from judging.exchange.qrels import QrelsLevel
from judging.exchange.selectors import NistKeyChoice
from judging.labels import LabelSet, label_set_get
from judging.scope import EVERY_CITATION, scope_for
from metrics.exports import agreement_json, scores_csv, topic_scores_csv
from metrics.figure_data import FIGURES, figure_make, file_stem
from metrics.figures import FORMATS, figure_bytes
from metrics.reports import agreement_report, scores_report
from metrics.topic_scores import topic_scores_report
from metrics.views import Choice, choice_read, form_problem


def _refused(message: str) -> HttpResponse:
    """An export that cannot be made: 400 with what is wrong, in words."""
    return HttpResponse(message, status=400, content_type="text/plain")


def _download(
    buffer: io.StringIO, content_type: str, *, choice: Choice, sets: list[LabelSet], what: str, ext: str
) -> HttpResponse:
    """The export as a file named for its campaign, label sets, content and day (`core.downloads`)."""
    response = HttpResponse(buffer.getvalue(), content_type=f"{content_type}; charset=utf-8")
    return attachment(response, what=what, ext=ext, campaign=choice.campaign, label_sets=[s.spec for s in sets])


@require_GET
@organizer_required
def export_judgments(request: HttpRequest, fmt: str) -> HttpResponse:
    choice, form = choice_read(request)
    if fmt not in ExportFormat.CHOICES:
        return HttpResponse("unknown format", status=404, content_type="text/plain")
    if form_problem(form):
        return _refused(form_problem(form))
    level = request.GET.get("level") or QrelsLevel.SENTENCE
    buffer = io.StringIO()
    try:
        scope = scope_for(campaign=choice.campaign or None, depth=choice.depth or EVERY_CITATION)
        sets = [label_set_get(spec) for spec in request.GET.getlist("labels")] or list(choice.sets())
        judgments_export(
            buffer,
            fmt=fmt,
            scope=scope,
            label_sets=sets,
            qrels_level=level,
            nist_keys=request.GET.get("nist_keys") or NistKeyChoice.SOURCE,
        )
    except ValueError as exc:
        return _refused(str(exc))
    extension, content_type = {
        ExportFormat.CSV: ("csv", "text/csv"),
        ExportFormat.QRELS: ("txt", "text/plain"),
    }.get(fmt, ("jsonl", "application/x-ndjson"))
    name = f"qrels-{level}" if fmt == ExportFormat.QRELS else f"judgments-{fmt}"
    return _download(buffer, content_type, choice=choice, sets=sets, what=name, ext=extension)


@require_GET
@organizer_required
def export_scores(request: HttpRequest) -> HttpResponse:
    choice, form = choice_read(request)
    if form_problem(form):
        return _refused(form_problem(form))
    try:
        scope = choice.scope()
        set_a, set_b = choice.sets()
        reports = [scores_report(label_set=set_a, scope=scope), scores_report(label_set=set_b, scope=scope)]
    except ValueError as exc:
        return _refused(str(exc))
    buffer = io.StringIO()
    scores_csv(buffer, reports if choice.a != choice.b else reports[:1], intervals=True)
    return _download(buffer, "text/csv", choice=choice, sets=[set_a, set_b], what="scores", ext="csv")


@require_GET
@organizer_required
def export_topic_scores(request: HttpRequest) -> HttpResponse:
    """Per (run, topic) scores of the sets named by `labels`, else of A and B."""
    choice, form = choice_read(request)
    if form_problem(form):
        return _refused(form_problem(form))
    try:
        scope = choice.scope()
        sets = [label_set_get(spec) for spec in request.GET.getlist("labels")] or list(choice.sets())
        unique = list({s.spec: s for s in sets}.values())
        reports = [topic_scores_report(label_set=s, scope=scope) for s in unique]
    except ValueError as exc:
        return _refused(str(exc))
    buffer = io.StringIO()
    topic_scores_csv(buffer, reports)
    return _download(buffer, "text/csv", choice=choice, sets=unique, what="topic-scores", ext="csv")


@require_GET
@organizer_required
def export_agreement(request: HttpRequest) -> HttpResponse:
    choice, form = choice_read(request)
    if form_problem(form):
        return _refused(form_problem(form))
    try:
        set_a, set_b = choice.sets()
        report = agreement_report(a=set_a, b=set_b, scope=choice.scope())
    except ValueError as exc:
        return _refused(str(exc))
    buffer = io.StringIO()
    agreement_json(buffer, report)
    return _download(buffer, "application/json", choice=choice, sets=[set_a, set_b], what="agreement", ext="json")


@require_GET
@organizer_required
def paper_figure(request: HttpRequest, name: str, fmt: str) -> HttpResponse:
    """One of the paper's figures (metrics.figure_data.FIGURES) as a PNG or PDF file, drawn on request from the
    dashboard's own reports for the chosen label sets and scope (and `study` for Figure 4)."""
    if name not in FIGURES or fmt not in FORMATS:
        return HttpResponse(
            f"no such figure: one of {', '.join(FIGURES)}, as {' or '.join(FORMATS)}",
            status=404,
            content_type="text/plain",
        )
    choice, form = choice_read(request)
    if form_problem(form):
        return _refused(form_problem(form))
    study = request.GET.get("study") or None
    if study is not None and not study.isdigit():
        return _refused("study: a study's number")
    try:
        set_a, set_b = choice.sets()
        figure = figure_make(name, a=set_a, b=set_b, scope=choice.scope(), study_id=int(study) if study else None)
    except ValueError as exc:  # FigureUnavailable among them
        return _refused(str(exc))
    response = HttpResponse(figure_bytes(figure, fmt), content_type=FORMATS[fmt])
    return attachment(
        response, what=file_stem(name), ext=fmt, campaign=choice.campaign, label_sets=[set_a.spec, set_b.spec]
    )
