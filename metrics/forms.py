from __future__ import annotations

from typing import Any

from django import forms

from assess.forms import MultipleFileField
from judging.imports import JudgmentFormat, JudgmentImportOptions
from judging.models import Campaign, Condition, JudgeKind
from metrics.selectors import HUMAN, judge_names

CONDITION_CHOICES = [("", "any condition"), *Condition.choices]


def _judge_choices() -> list[tuple[str, str]]:
    names = judge_names()
    choices = [(HUMAN, "human (every human judge)")] if any(k == JudgeKind.HUMAN for _, k in names) else []
    return choices + [(name, f"{name} ({kind})") for name, kind in names]


class MetricsFilterForm(forms.Form):
    """What the dashboard shows: a campaign (or everything loaded), two judges, their conditions, a depth."""

    campaign = forms.ChoiceField(required=False)
    a = forms.ChoiceField(required=False, label="Judge A")
    condition_a = forms.ChoiceField(choices=CONDITION_CHOICES, required=False, label="Condition A")
    b = forms.ChoiceField(required=False, label="Judge B")
    condition_b = forms.ChoiceField(choices=CONDITION_CHOICES, required=False, label="Condition B")
    depth = forms.IntegerField(
        min_value=0, required=False, help_text="Citations per sentence; 0 = all; empty = the campaign's (or 1)."
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        campaigns = list(Campaign.objects.order_by("name").values_list("name", flat=True))
        self.fields["campaign"].choices = [("", "all loaded"), *((c, c) for c in campaigns)]  # type: ignore[attr-defined]
        judges = _judge_choices()
        self.fields["a"].choices = judges  # type: ignore[attr-defined]
        self.fields["b"].choices = judges  # type: ignore[attr-defined]


class JudgmentUploadForm(forms.Form):
    uploads = MultipleFileField(label="Files", help_text="NIST JSONL, or exchange CSV / JSONL; all or nothing.")
    format = forms.ChoiceField(
        choices=[(JudgmentFormat.NIST, "NIST support judgments"), (JudgmentFormat.EXCHANGE, "Judgments exchange")]
    )
    judge = forms.CharField(
        max_length=128, required=False, help_text="Every label's judge (required for NIST; else the judge column)."
    )
    kind = forms.ChoiceField(choices=[("", "human (default)"), *JudgeKind.choices], required=False)
    condition = forms.ChoiceField(choices=[("", "from the file, or none"), *Condition.choices], required=False)
    label_field = forms.CharField(
        max_length=64, required=False, initial="label", help_text="Exchange: the label column."
    )

    def options(self) -> JudgmentImportOptions:
        data = self.cleaned_data
        return JudgmentImportOptions(
            judge=(data.get("judge") or "").strip() or None,
            kind=data.get("kind") or None,
            condition=data.get("condition") or None,
            label_field=(data.get("label_field") or "").strip() or "label",
        )
