"""The organizer's metrics pages: scores, Table 3, agreement and plots, and the per-topic drill-down, with the
choice of label sets and scope they share (`choice_read`). Reports come from `metrics.reports` (cached until the
next judgment); the downloads are `metrics.export_views`, the judgment upload on the dashboard
`judging.exchange.views`."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from django.core.paginator import Paginator
from django.http import HttpRequest, HttpResponse
from django.shortcuts import render
from django.urls import reverse
from django.utils.http import urlencode
from django.views.decorators.http import require_GET

from assess.selectors import topics_unknown
from core.auth import organizer_required
from judging.exchange.forms import JudgmentUploadForm
from judging.label_set_names import LabelSetName
from judging.label_set_pickers import label_set_describe
from judging.labels import LabelSet, LabelSetKind, label_set_get, label_sets_available, label_sets_pinned
from judging.models import Campaign, Condition, JudgeKind
from judging.scope import Scope, relevance_filter_parse, scope_for
from judging.vocabulary import SUPPORT
from metrics import plots
from metrics.campaign_choice import campaign_remember, query_with_last_campaign
from metrics.figure_data import FIGURES
from metrics.figures import FORMATS
from metrics.forms import MetricsFilterForm
from metrics.material import versions_pinned
from metrics.reports import ScoreRow, agreement_report, depth_unit, scores_report
from metrics.selectors import (
    DRILL_DOWN_PAGE,
    disagreement_groups,
    disagreements_load,
    scope_summary,
    support_stats,
    table_3_scope,
)
from metrics.study import selectors as study_selectors
from metrics.study.models import Study


def _score(key: str, field: str) -> Any:
    """A score column's sort value: None for a run that set did not judge (sorted last either way)."""

    def value(r: dict[str, Any]) -> float | None:
        row = r[key]
        return getattr(row, field) if row is not None and row.coverage.any else None

    return value


SORTABLE = {
    "run_id": lambda r: r["run_id"],
    "group": lambda r: r["group"],
    "precision_a": _score("a", "weighted_precision"),
    "recall_a": _score("a", "weighted_recall"),
    "precision_b": _score("b", "weighted_precision"),
    "recall_b": _score("b", "weighted_recall"),
    "sentences": lambda r: r["a"].mean_sentences if r["a"] else -1,
}


@dataclass(frozen=True)
class Choice:
    campaign: str
    a: str  # label set specs
    b: str
    depth: int | None
    default: str = ""  # why these sets, when the organizer did not choose them
    remembered: bool = False  # the campaign is the one the organizer chose last (the address named none)
    relevance: str = ""  # SOURCE:MIN, or "" for every passage

    def scope(self) -> Scope:
        relevance = relevance_filter_parse(self.relevance) if self.relevance else None
        return scope_for(campaign=self.campaign or None, depth=self.depth, relevance=relevance)

    def sets(self) -> tuple[LabelSet, LabelSet]:
        return label_set_get(self.a), label_set_get(self.b)

    @property
    def relevance_words(self) -> str:
        source, _, grade = self.relevance.rpartition(":")
        return f"only citations of passages that {source} graded at least {grade} of 3 for the topic" if source else ""

    def query(self, **extra: Any) -> str:
        values = {
            "campaign": self.campaign,
            "a": self.a,
            "b": self.b,
            "depth": "" if self.depth is None else self.depth,
            "relevance": self.relevance,
            **extra,
        }
        return urlencode({k: v for k, v in values.items() if v not in ("", None)})


def _default_sets(campaign_name: str, *, everything_chosen: bool = False) -> tuple[str, str, str, str]:
    """(campaign, a, b, why): a campaign's from-scratch assessors against its LLM judge, the newest campaign
    that has both when none is chosen (not when the organizer chose everything loaded); else the first human
    and the first LLM one-judge sets."""
    campaigns = Campaign.objects.select_related("post_edit_judge")
    if everything_chosen:
        campaigns = campaigns.none()
    chosen = [c for c in campaigns if c.name == campaign_name] if campaign_name else list(campaigns)
    sets = label_sets_available()
    llm = [s.spec for s in sets if s.kind == LabelSetKind.JUDGE and s.judge_kind == JudgeKind.LLM]
    for c in chosen:
        human = label_set_get(LabelSetName(LabelSetKind.CAMPAIGN, c.name, Condition.FROM_SCRATCH).format())
        judge = c.post_edit_judge
        own = [spec for spec in llm if judge is not None and LabelSetName.parse(spec).name == judge.name]
        if human.judge_ids and (own or llm):
            why = f"default: campaign {c.name}'s from-scratch assessors against its LLM judge"
            return c.name, human.spec, (own or llm)[0], why
    # Judged blind first: from scratch, then post-edit, adjudication last.
    order = {Condition.FROM_SCRATCH: 0, Condition.POST_EDIT: 1, "": 2, Condition.ADJUDICATION: 3}
    humans = sorted(
        (s for s in sets if s.kind == LabelSetKind.JUDGE and s.judge_kind == JudgeKind.HUMAN),
        key=lambda s: order.get(s.condition, 2),
    )
    a = humans[0].spec if humans else (sets[0].spec if sets else "")
    b = llm[0] if llm else (sets[1].spec if len(sets) > 1 else a)
    why = "default: a human label set judged from scratch where there is one, against the first LLM set"
    return campaign_name, a, b, why if a else ""


def form_problem(form: MetricsFilterForm) -> str:
    """What is wrong with the chosen scope or label sets, in words ('' when nothing)."""
    if not form.is_bound or form.is_valid():
        return ""
    return "; ".join(f"{name}: {' '.join(str(e) for e in errors)}" for name, errors in form.errors.items())


def choice_read(request: HttpRequest, *, remember: bool = False) -> tuple[Choice, MetricsFilterForm]:
    """What the page shows. With `remember` (the dashboard), an address without a campaign shows the one the
    organizer chose last, and the campaign shown is kept as their choice (`metrics.campaign_choice`)."""
    query, remembered = query_with_last_campaign(request) if remember else (request.GET, False)
    form = MetricsFilterForm(query or None)
    data = form.cleaned_data if form.is_valid() else {}

    campaign = data.get("campaign") or ""
    a, b, why = data.get("a") or "", data.get("b") or "", ""
    if not a or not b:
        everything_chosen = remember and not campaign and "campaign" in query
        campaign, default_a, default_b, why = _default_sets(campaign, everything_chosen=everything_chosen)
        a, b = a or default_a, b or default_b
    if remember and not form_problem(form):
        campaign_remember(request, campaign)
    return (
        Choice(
            campaign=campaign,
            a=a,
            b=b,
            depth=data.get("depth"),
            default=why,
            relevance=data.get("relevance") or "",
            remembered=remembered,
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
    key = SORTABLE.get(sort, SORTABLE["precision_a"])
    entries = list(by_run.values())
    # A run without a score under the sorted column's set is never placed above one with, whichever direction.
    scored = sorted((e for e in entries if key(e) is not None), key=key, reverse=descending)
    return scored + sorted((e for e in entries if key(e) is None), key=lambda e: e["run_id"])


def _cells(r: ScoreRow) -> dict[str, str]:
    """The row's figures as text (formatting here is much cheaper than template filters on big tables)."""

    def interval(low: float | None, high: float | None) -> str:
        return "" if low is None or high is None else f"[{low:.3f}, {high:.3f}]"

    coverage = r.coverage
    if not coverage.any:
        return {"judged": "", "coverage": coverage.words, "sentences": f"{r.mean_sentences:.2f}"}
    return {
        "judged": "yes",
        "coverage": coverage.words,
        "partial": "" if coverage.enough() else "partial",
        "precision": f"{r.weighted_precision:.3f}",
        "precision_ci": interval(r.precision_low, r.precision_high),
        "recall": f"{r.weighted_recall:.3f}",
        "recall_ci": interval(r.recall_low, r.recall_high),
        "sentences": f"{r.mean_sentences:.2f}",
    }


def _table_3(scope: Scope, set_a: LabelSet, set_b: LabelSet) -> dict[str, Any]:
    """Table 3 over the topics A or B labels (`table_3_scope`)."""
    table_scope = table_3_scope(scope, [set_a, set_b])
    whole = scope_summary(scope)
    return {
        "stats": support_stats(table_scope),
        "table_scope": scope_summary(table_scope) if table_scope is not scope else whole,
        "scope_summary": whole,
    }


@require_GET
@organizer_required
def dashboard(request: HttpRequest) -> HttpResponse:
    # Five reports and Table 3 over one state of the data: its versions are read once for all of them.
    with versions_pinned(), label_sets_pinned():
        return _dashboard(request)


def _dashboard(request: HttpRequest) -> HttpResponse:
    choice, form = choice_read(request, remember=True)
    context: dict[str, Any] = {"form": form, "choice": choice, "upload_form": JudgmentUploadForm()}
    if form_problem(form):
        return render(request, "metrics/dashboard.html", {**context, "problem": form_problem(form)}, status=400)
    if not choice.a:
        return render(request, "metrics/dashboard.html", {**context, "empty": True})
    try:
        scope = choice.scope()
        set_a, set_b = choice.sets()
        report_a = scores_report(label_set=set_a, scope=scope)
        report_b = scores_report(label_set=set_b, scope=scope)
        agreement = agreement_report(a=set_a, b=set_b, scope=scope)
    except ValueError as exc:
        return render(request, "metrics/dashboard.html", {**context, "problem": str(exc)}, status=400)
    studies = _studies(choice)
    context.update(
        {
            "report_a": report_a,
            "report_b": report_b,
            **_sorted_rows(request, choice, report_a.rows, report_b.rows),
            **_table_3(scope, set_a, set_b),
            "agreement": agreement,
            "labels": agreement["labels"],
            **_agreement_plots(choice, agreement),
            "topic_rows": [
                {"topic_id": t, **counts, "link": reverse("metrics:topic", args=[t]) + "?" + choice.query()}
                for t, counts in agreement["per_topic"].items()
            ],
            "query": choice.query(),
            "figure_studies": studies,
            "figure_links": _figure_links(choice, studies),
        }
    )
    template = "metrics/dashboard.html#report" if getattr(request, "htmx", False) else "metrics/dashboard.html"
    return render(request, template, context)


def _sorted_rows(
    request: HttpRequest, choice: Choice, rows_a: list[ScoreRow], rows_b: list[ScoreRow]
) -> dict[str, Any]:
    """The score table's rows in the order asked for (`sort`, `dir`), and each column's link to sort by it."""
    sort = request.GET.get("sort", "precision_a")
    descending = request.GET.get("dir", "desc") != "asc"
    return {
        "rows": _score_rows(rows_a, rows_b, sort, descending),
        "sort": sort,
        "descending": descending,
        "sort_links": {
            key: "?" + choice.query(sort=key, dir="asc" if sort == key and descending else "desc") for key in SORTABLE
        },
    }


def _agreement_plots(choice: Choice, agreement: dict[str, Any]) -> dict[str, Any]:
    """The confusion heatmap (each cell links to its disagreements) and the precision and recall scatters."""
    labels = agreement["labels"]
    runs, topics = agreement["runs"], agreement["topic_means"]
    name_a, name_b = agreement["a"], agreement["b"]
    return {
        "heatmap": plots.heatmap(
            labels["matrix"],
            labels["matrix_percent"],
            labels["labels"],
            a=name_a,
            b=name_b,
            unit=agreement["unit"],
            links=[
                [
                    reverse("metrics:disagreements") + "?" + choice.query(label_a=la, label_b=lb)
                    for lb in labels["labels"]
                ]
                for la in labels["labels"]
            ],
        ),
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
    }


@require_GET
@organizer_required
def topic(request: HttpRequest, topic_id: str) -> HttpResponse:
    if topics_unknown([topic_id]):
        choice, _ = choice_read(request)
        problem = f"No topic {topic_id!r} is loaded: the dashboard lists the topics judged."
        return render(
            request, "metrics/topic.html", {"topic_id": topic_id, "choice": choice, "problem": problem}, status=404
        )
    return _drill_down(request, topic_id=topic_id)


@require_GET
@organizer_required
def disagreements(request: HttpRequest) -> HttpResponse:
    """The drill-down over every topic in scope (a confusion cell of the dashboard links here)."""
    return _drill_down(request, topic_id=request.GET.get("topic") or None)


def _cell(request: HttpRequest) -> tuple[str, str]:
    """The confusion cell asked for (A's label, B's label), or ('', '') for every disagreement."""
    label_a, label_b = request.GET.get("label_a", ""), request.GET.get("label_b", "")
    if not label_a and not label_b:
        return "", ""
    if label_a not in SUPPORT.code_of or label_b not in SUPPORT.code_of:
        raise ValueError(f"label_a and label_b: both one of {', '.join(SUPPORT.names)}")
    return label_a, label_b


def _drill_down(request: HttpRequest, *, topic_id: str | None) -> HttpResponse:
    choice, form = choice_read(request)
    context: dict[str, Any] = {"topic_id": topic_id, "choice": choice}
    try:
        if form_problem(form):
            raise ValueError(form_problem(form))
        cell = _cell(request)
        set_a, set_b = choice.sets()
        scope = choice.scope()
        found = disagreement_groups(a=set_a, b=set_b, scope=scope, topic_id=topic_id, label_a=cell[0], label_b=cell[1])
    except ValueError as exc:
        return render(request, "metrics/topic.html", {**context, "problem": str(exc)}, status=400)
    page = Paginator(found.groups, DRILL_DOWN_PAGE).get_page(request.GET.get("page"))
    here = reverse("metrics:topic", args=[topic_id]) if topic_id else reverse("metrics:disagreements")

    def link(**extra: Any) -> str:
        return here + "?" + choice.query(label_a=cell[0], label_b=cell[1], **extra)

    context.update(
        {
            "set_a": label_set_describe(set_a),
            "set_b": label_set_describe(set_b),
            "unit": depth_unit(scope.depth),
            "cell": cell,
            "found": found,
            "page": page,
            "rows": disagreements_load(list(page.object_list)),
            "cells": [
                {
                    "label_a": label_a,
                    "cells": [
                        {
                            "label_b": label_b,
                            "count": found.matrix[i][j],
                            "link": here + "?" + choice.query(label_a=label_a, label_b=label_b),
                            "current": cell == (label_a, label_b),
                        }
                        for j, label_b in enumerate(SUPPORT.names)
                    ],
                }
                for i, label_a in enumerate(SUPPORT.names)
            ],
            "every_link": here + "?" + choice.query(),
            "previous_link": link(page=page.previous_page_number()) if page.has_previous() else "",
            "next_link": link(page=page.next_page_number()) if page.has_next() else "",
            "back": reverse("metrics:dashboard") + "?" + choice.query(),
        }
    )
    return render(request, "metrics/topic.html", context)


STUDIES_LINKED = 3  # the newest studies of the scope offered for Figure 4


def _studies(choice: Choice) -> list[Study]:
    studies = study_selectors.study_list()
    if choice.campaign:
        studies = studies.filter(campaign__name=choice.campaign)
    return list(studies[:STUDIES_LINKED])


def _figure_links(choice: Choice, studies: list[Study]) -> list[dict[str, Any]]:
    """The dashboard's downloads of the paper's figures: 2, 3 and 5 for A and B, 4 (and 5 with its third
    panel) for each disagreement study of the scope."""
    links = []
    for name, (number, what) in FIGURES.items():
        targets: list[tuple[int | None, str]] = [(None, "")] if name != "kappa" else []
        if name in ("kappa", "distribution"):
            targets += [(study.pk, f"study #{study.pk}") for study in studies]
        for study_id, note in targets:
            query = choice.query(**({"study": study_id} if study_id else {}))
            links.append(
                {
                    "number": number,
                    "what": what,
                    "note": note,
                    "formats": [
                        (fmt.upper(), reverse("metrics:figure", args=[name, fmt]) + "?" + query) for fmt in FORMATS
                    ],
                }
            )
    return links
