"""Forms of the study's organizer pages: sample a study, assign its re-judging, pick a second LLM judge."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from judging.label_set_pickers import label_set_choices
from judging.labels import label_sets_available
from judging.models import Campaign, Condition, Judge, JudgeKind
from metrics.study.services import DEFAULT_PER_TOPIC


class StudyForm(forms.Form):
    campaign = forms.ModelChoiceField(queryset=Campaign.objects.order_by("name"), to_field_name="name")
    a = forms.ChoiceField(label="Labels A (human)", choices=())
    b = forms.ChoiceField(label="Labels B (LLM)", choices=())
    per_topic = forms.IntegerField(label="Pairs per topic", min_value=1, max_value=1000, initial=DEFAULT_PER_TOPIC)
    seed = forms.IntegerField(initial=0)

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        sets = label_sets_available()
        choices = label_set_choices(sets)
        self.fields["a"].choices = choices  # type: ignore[attr-defined]
        self.fields["b"].choices = choices  # type: ignore[attr-defined]
        humans = [s.spec for s in sets if s.judge_kind == JudgeKind.HUMAN and s.condition == Condition.FROM_SCRATCH]
        llms = [s.spec for s in sets if s.judge_kind == JudgeKind.LLM]
        self.fields["a"].initial = humans[0] if humans else None
        self.fields["b"].initial = llms[0] if llms else None


class AssignForm(forms.Form):
    assessor = forms.ModelChoiceField(
        queryset=User.objects.filter(is_staff=False).order_by("username"), to_field_name="username"
    )


class SecondJudgeForm(forms.Form):
    judge = forms.ModelChoiceField(
        queryset=Judge.objects.filter(kind=JudgeKind.LLM, llm__isnull=False).order_by("name"),
        to_field_name="name",
        label="Second LLM judge",
    )
