"""A judgment kind for the mechanism's tests only (registered by `toy_kind`, never in settings): its unit is a
pair of the campaign's pool, its label 0-2, its card the shell (templates/kinds/_card_page.html), its build
option `size`, its store a dict. It shows what judging does with any kind without depending on a real one."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from django import forms
from django.http import HttpRequest, HttpResponse
from django.template import engines
from django.urls import path
from django.utils import timezone

from judging.kinds import Kind
from judging.models import Assignment, Campaign, CampaignPair, Judge, Pair
from judging.progress import Share
from judging.views import own_assignment
from judging.vocabulary import SUPPORT

GRADES = {"full support": 2, "partial support": 1, "no support": 0}


def _build(campaign: Campaign, *, allow_missing_text: bool = False, size: int = 1) -> dict[str, Any]:
    units = CampaignPair.objects.filter(campaign=campaign).count()
    summary = {"topics": campaign.topics.count(), "units": units, "size": size}
    campaign.build_summary = summary
    campaign.built_at = timezone.now()
    campaign.save(update_fields=["build_summary", "built_at"])
    return summary


DONE: dict[int, int] = {}  # assignment id -> units done


def _progress(assignments: Sequence[Assignment]) -> dict[int, Share]:
    return {a.pk: Share(done=DONE.get(a.pk, 0), total=2) for a in assignments}


@dataclass
class Prelabel:
    version: str = "toy-v1"
    stored: dict[tuple[int, int], Any] = field(default_factory=dict)  # (judge id, unit) -> label

    def units(self, campaign: Campaign) -> list[int]:
        return sorted(set(CampaignPair.objects.filter(campaign=campaign).values_list("pair_id", flat=True)))

    def messages(self, unit_ids: Sequence[int]) -> dict[int, list[dict[str, str]]]:
        pairs = Pair.objects.filter(pk__in=unit_ids)
        return {p.pk: [{"role": "user", "content": f"Grade the statement: {p.text}"}] for p in pairs}

    def parse(self, reply: str) -> int | None:
        return GRADES.get(reply.strip().lower())

    def store(self, judge: Judge, labels: Mapping[int, Any]) -> int:
        self.stored.update({(judge.pk, unit): label for unit, label in labels.items()})
        return len(labels)


PRELABEL = Prelabel()

KIND = Kind(
    name="toy",
    title="Toy grades (tests)",
    unit="pair",
    steps=(SUPPORT,),
    judge_url="kind_toy:judge",
    build=_build,
    progress=_progress,
    extras={
        "build_options": {"size": forms.IntegerField(min_value=1, initial=1, help_text="units per pair")},
        "prelabel": PRELABEL,
    },
)

CARD_PAGE = """{% extends "kinds/_card_page.html" %}{% block card %}
<form id="kind-card" hx-post="." hx-target="#kind-card" hx-swap="outerHTML" data-step="1">
  <fieldset data-step="1"><button type="button" data-key="y" data-field="grade" data-value="2" data-submit>Yes</button></fieldset>
</form>{% endblock %}"""


def judge(request: HttpRequest, assignment_id: int) -> HttpResponse:
    assignment = own_assignment(request, assignment_id, kind="toy")
    context = {
        "assignment": assignment,
        "campaign": assignment.campaign,
        "kind": KIND,
        "progress": _progress([assignment])[assignment.pk],
    }
    return HttpResponse(engines["django"].from_string(CARD_PAGE).render(context, request))


urlpatterns = [path("judge/<int:assignment_id>/", judge, name="judge")]
