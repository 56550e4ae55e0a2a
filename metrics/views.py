"""The organizer's metrics pages: scores, Table 3, agreement and plots, the per-topic drill-down, exports
and the judgment upload. Reports come from `metrics.reports` (cached until the next judgment)."""

from __future__ import annotations

import io
from dataclasses import dataclass
from typing import Any

from django.contrib import messages
from django.http import HttpRequest, HttpResponse
from django.shortcuts import redirect, render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET, require_POST

from assess.views import organizer_required
from judging.imports import judgments_import_uploads
from judging.models import JudgeKind
from metrics import plots
from metrics.exports import ExportFormat, agreement_json, judgments_export, scores_csv
from metrics.forms import JudgmentUploadForm, MetricsFilterForm
from metrics.reports import ScoreRow, agreement_report, scores_report
from metrics.selectors import (
    EVERY_CITATION,
    HUMAN,
    Scope,
    UnknownJudge,
    disagreements,
    judge_names,
    scope_for,
    support_stats,
)

SORTABLE = {
    "run_id": lambda r: r["run_id"],
    "group": lambda r: r["group"],
    "precision_a": lambda r: r["a"].weighted_precision if r["a"] else -1,
    "recall_a": lambda r: r["a"].weighted_recall if r["a"] else -1,
    "precision_b": lambda r: r["b"].weighted_precision if r["b"] else -1,
    "recall_b": lambda r: r["b"].weighted_recall if r["b"] else -1,
    "sentences": lambda r: r["a"].mean_sentences if r["a"] else -1,
}


@dataclass(frozen=True)
class Choice:
    campaign: str
    a: str
    b: str
    condition_a: str
    condition_b: str
    depth: int | None

    def scope(self) -> Scope:
        return scope_for(campaign=self.campaign or None, depth=self.depth)

    def query(self, **extra: Any) -> str:
        values = {
            "campaign": self.campaign,
            "a": self.a,
            "b": self.b,
            "condition_a": self.condition_a,
            "condition_b": self.condition_b,
            "depth": "" if self.depth is None else self.depth,
            **extra,
        }
        return urlencode({k: v for k, v in values.items() if v not in ("", None)})


def _default_judges() -> tuple[str, str]:
    names = judge_names()
    humans = [n for n, kind in names if kind == JudgeKind.HUMAN]
    llms = [n for n, kind in names if kind == JudgeKind.LLM]
    a = HUMAN if humans else (names[0][0] if names else "")
    b = llms[0] if llms else (names[1][0] if len(names) > 1 else a)
    return a, b


def _choice(request: HttpRequest) -> tuple[Choice, MetricsFilterForm]:
    default_a, default_b = _default_judges()
    form = MetricsFilterForm(request.GET or None)
    data = form.cleaned_data if form.is_valid() else {}
    return (
        Choice(
            campaign=data.get("campaign") or "",
            a=data.get("a") or default_a,
            b=data.get("b") or default_b,
            condition_a=data.get("condition_a") or "",
            condition_b=data.get("condition_b") or "",
            depth=data.get("depth"),
        ),
        form,
    )


def _score_rows(rows_a: list[ScoreRow], rows_b: list[ScoreRow], sort: str, descending: bool) -> list[dict[str, Any]]:
    by_run: dict[str, dict[str, Any]] = {}
    for key, rows in (("a", rows_a), ("b", rows_b)):
        for r in rows:
            entry = by_run.setdefault(
                r.run_id, {"run_id": r.run_id, "group": r.group, "task": r.task, "a": None, "b": None}
            )
            entry[key] = r
            entry[f"{key}_cells"] = _cells(r)
    return sorted(by_run.values(), key=SORTABLE.get(sort, SORTABLE["precision_a"]), reverse=descending)


def _cells(r: ScoreRow) -> dict[str, str]:
    """The row's figures as text (formatting here is much cheaper than template filters on big tables)."""

    def interval(low: float | None, high: float | None) -> str:
        return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"

    return {
        "precision": f"{r.weighted_precision:.3f}",
        "precision_ci": interval(r.precision_low, r.precision_high),
        "recall": f"{r.weighted_recall:.3f}",
        "recall_ci": interval(r.recall_low, r.recall_high),
        "sentences": f"{r.mean_sentences:.2f}",
    }


@require_GET
@organizer_required
def dashboard(request: HttpRequest) -> HttpResponse:
    choice, form = _choice(request)
    context: dict[str, Any] = {"form": form, "choice": choice, "upload_form": JudgmentUploadForm()}
    if not choice.a:
        return render(request, "metrics/dashboard.html", {**context, "empty": True})
    try:
        scope = choice.scope()
        report_a = scores_report(judge=choice.a, scope=scope, condition=choice.condition_a or None)
        report_b = scores_report(judge=choice.b, scope=scope, condition=choice.condition_b or None)
        agreement = agreement_report(
            a=choice.a,
            b=choice.b,
            scope=scope,
            condition_a=choice.condition_a or None,
            condition_b=choice.condition_b or None,
        )
    except (UnknownJudge, ValueError) as exc:
        return render(request, "metrics/dashboard.html", {**context, "problem": str(exc)}, status=400)
    sort = request.GET.get("sort", "precision_a")
    descending = request.GET.get("dir", "desc") != "asc"
    labels = agreement["labels"]
    runs, topics = agreement["runs"], agreement["topic_means"]
    name_a, name_b = agreement["a"], agreement["b"]
    context.update(
        {
            "report_a": report_a,
            "report_b": report_b,
            "rows": _score_rows(report_a.rows, report_b.rows, sort, descending),
            "sort": sort,
            "descending": descending,
            "sort_links": {
                key: "?" + choice.query(sort=key, dir="asc" if sort == key and descending else "desc")
                for key in SORTABLE
            },
            "stats": support_stats(scope),
            "agreement": agreement,
            "labels": labels,
            "heatmap": plots.heatmap(labels["matrix"], labels["matrix_percent"], labels["labels"], a=name_a, b=name_b),
            **{
                f"scatter_{measure}": plots.scatter(
                    title=f"Weighted {measure}",
                    tau=agreement["tau"][measure],
                    run_ids=runs["run_id"],
                    run_x=runs[f"{measure}_a"],
                    run_y=runs[f"{measure}_b"],
                    topic_ids=topics["topic_id"],
                    topic_x=topics[f"{measure}_a"],
                    topic_y=topics[f"{measure}_b"],
                    x_label=name_a,
                    y_label=name_b,
                )
                for measure in ("precision", "recall")
            },
            "topic_rows": [
                {"topic_id": t, **counts, "link": reverse("metrics:topic", args=[t]) + "?" + choice.query()}
                for t, counts in agreement["per_topic"].items()
            ],
            "query": choice.query(),
        }
    )
    template = "metrics/dashboard.html#report" if getattr(request, "htmx", False) else "metrics/dashboard.html"
    return render(request, template, context)


@require_GET
@organizer_required
def topic(request: HttpRequest, topic_id: str) -> HttpResponse:
    choice, _ = _choice(request)
    try:
        rows = disagreements(a=choice.a, b=choice.b, scope=choice.scope(), topic_id=topic_id)
    except (UnknownJudge, ValueError) as exc:
        return render(request, "metrics/topic.html", {"problem": str(exc), "topic_id": topic_id}, status=400)
    return render(
        request,
        "metrics/topic.html",
        {
            "topic_id": topic_id,
            "rows": rows,
            "choice": choice,
            "back": reverse("metrics:dashboard") + "?" + choice.query(),
        },
    )


@require_GET
@organizer_required
def export_judgments(request: HttpRequest, fmt: str) -> HttpResponse:
    choice, _ = _choice(request)
    judges = request.GET.getlist("judge")
    if fmt not in ExportFormat.CHOICES:
        return HttpResponse("unknown format", status=404, content_type="text/plain")
    scope = scope_for(campaign=choice.campaign or None, depth=choice.depth or EVERY_CITATION)
    buffer = io.StringIO()
    try:
        judgments_export(buffer, fmt=fmt, scope=scope, judges=judges or None)
    except (UnknownJudge, ValueError) as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain")
    extension = "csv" if fmt == ExportFormat.CSV else "jsonl"
    content_type = "text/csv" if fmt == ExportFormat.CSV else "application/x-ndjson"
    response = HttpResponse(buffer.getvalue(), content_type=f"{content_type}; charset=utf-8")
    response["Content-Disposition"] = f'attachment; filename="judgments-{fmt}.{extension}"'
    return response


@require_GET
@organizer_required
def export_scores(request: HttpRequest) -> HttpResponse:
    choice, _ = _choice(request)
    scope = choice.scope()
    try:
        reports = [
            scores_report(judge=choice.a, scope=scope, condition=choice.condition_a or None),
            scores_report(judge=choice.b, scope=scope, condition=choice.condition_b or None),
        ]
    except (UnknownJudge, ValueError) as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain")
    buffer = io.StringIO()
    scores_csv(buffer, reports if choice.a != choice.b else reports[:1], intervals=True)
    response = HttpResponse(buffer.getvalue(), content_type="text/csv; charset=utf-8")
    response["Content-Disposition"] = 'attachment; filename="scores.csv"'
    return response


@require_GET
@organizer_required
def export_agreement(request: HttpRequest) -> HttpResponse:
    choice, _ = _choice(request)
    try:
        report = agreement_report(
            a=choice.a,
            b=choice.b,
            scope=choice.scope(),
            condition_a=choice.condition_a or None,
            condition_b=choice.condition_b or None,
        )
    except (UnknownJudge, ValueError) as exc:
        return HttpResponse(str(exc), status=400, content_type="text/plain")
    buffer = io.StringIO()
    agreement_json(buffer, report)
    response = HttpResponse(buffer.getvalue(), content_type="application/json")
    response["Content-Disposition"] = 'attachment; filename="agreement.json"'
    return response


@require_POST
@organizer_required
def upload(request: HttpRequest) -> HttpResponse:
    form = JudgmentUploadForm(request.POST, request.FILES)
    if not form.is_valid():
        return render(request, "metrics/upload_result.html", {"form": form, "report": None}, status=400)
    report = judgments_import_uploads(
        uploads=form.cleaned_data["uploads"], fmt=form.cleaned_data["format"], options=form.options()
    )
    if report.ok:
        summary = ", ".join(f"{k} {v}" for k, v in report.counts.items())
        messages.success(request, f"imported: {summary}")
        return redirect("metrics:dashboard")
    return render(request, "metrics/upload_result.html", {"form": form, "report": report}, status=400)
