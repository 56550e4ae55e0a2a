"""Forms of the budget pages: draw a sample, assign it."""

from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from judging.labels import label_set_choices, label_sets_available
from judging.models import Campaign, JudgeKind
from metrics.budget import Design
from metrics.humanbudget.models import SampleDesign


class DrawForm(forms.Form):
    campaign = forms.ModelChoiceField(queryset=Campaign.objects.order_by("name"), to_field_name="name")
    llm = forms.ChoiceField(label="LLM labels on every pair", choices=())
    design = forms.ChoiceField(choices=SampleDesign.choices, initial=Design.UNIFORM)
    second_llm = forms.ChoiceField(label="Second LLM labels (disagreement design)", choices=(), required=False)
    budget = forms.CharField(
        label="Budget", initial="10%", help_text="a number of pairs (e.g. 300) or a share (e.g. 10% or 0.1)"
    )
    seed = forms.IntegerField(initial=0)
    allow_unlabelled = forms.BooleanField(
        required=False,
        label="Draw even if some pairs have no LLM label (they count with the LLM's mean weight)",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        llms = label_set_choices([s for s in label_sets_available() if s.judge_kind == JudgeKind.LLM])
        self.fields["llm"].choices = llms  # type: ignore[attr-defined]
        self.fields["second_llm"].choices = [("", "none"), *llms]  # type: ignore[attr-defined]

    def clean_budget(self) -> tuple[int | None, float | None]:
        return parse_budget(self.cleaned_data["budget"])


def parse_budget(text: str) -> tuple[int | None, float | None]:
    """(pairs, share) from "300", "10%" or "0.1"; a ValidationError saying what to write otherwise."""
    text = (text or "").strip()
    try:
        if text.endswith("%"):
            return None, float(text[:-1]) / 100
        if "." in text:
            return None, float(text)
        return int(text), None
    except ValueError:
        raise forms.ValidationError(
            f"{text!r} is not a budget: write a number of pairs (300) or a share (10% or 0.1)"
        ) from None


class AssignForm(forms.Form):
    assessor = forms.ModelChoiceField(
        queryset=User.objects.filter(is_staff=False).order_by("username"), to_field_name="username"
    )
