from __future__ import annotations

from typing import Any

from django import forms

from assess.models import Relevance
from judging.label_set_names import LabelSetError
from judging.label_set_pickers import label_set_choices, label_set_picker_name
from judging.labels import label_set_get
from judging.models import Campaign
from judging.scope import MAX_DEPTH


def _named(spec: str) -> tuple[str, str]:
    """A chosen set the picker does not list (a duplicate it lists once, or one without labels), by its name."""
    try:
        return spec, label_set_picker_name(label_set_get(spec))
    except LabelSetError:
        return spec, spec


class MetricsFilterForm(forms.Form):
    """What the dashboard shows: a campaign (or everything loaded), two label sets, a depth."""

    campaign = forms.ChoiceField(required=False)
    a = forms.CharField(required=False, label="Labels A", max_length=300)
    b = forms.CharField(required=False, label="Labels B", max_length=300)
    depth = forms.IntegerField(
        min_value=0,
        max_value=MAX_DEPTH,
        required=False,
        help_text="Citations per sentence; 0 = all; empty = the campaign's (or 1: first citations, the paper's unit).",
    )
    relevance = forms.ChoiceField(
        required=False,
        label="Passages",
        help_text="Only citations of passages a qrels source graded at least this relevant to the topic.",
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        campaigns = list(Campaign.objects.order_by("name").values_list("name", flat=True))
        self.fields["campaign"].choices = [("", "all loaded"), *((c, c) for c in campaigns)]  # type: ignore[attr-defined]
        sources = Relevance.objects.order_by("source").values_list("source", flat=True).distinct()
        self.fields["relevance"].choices = [  # type: ignore[attr-defined]
            ("", "every passage"),
            *((f"{source}:{grade}", f"{source} relevance ≥ {grade}") for source in sources for grade in (1, 2, 3)),
        ]
        sets = [("", "default"), *label_set_choices()]
        for name in ("a", "b"):
            chosen = self.data.get(name) if self.is_bound else None
            known = sets if not chosen or any(spec == chosen for spec, _ in sets) else [*sets, _named(chosen)]
            self.fields[name].widget = forms.Select(choices=known)

    def _label_set(self, name: str) -> str:
        spec = (self.cleaned_data.get(name) or "").strip()
        if not spec:
            return ""
        try:
            return label_set_get(spec).spec
        except LabelSetError as exc:
            raise forms.ValidationError(str(exc)) from exc

    def clean_a(self) -> str:
        return self._label_set("a")

    def clean_b(self) -> str:
        return self._label_set("b")
