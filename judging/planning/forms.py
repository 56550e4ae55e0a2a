from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth.models import User

from judging.models import Condition
from judging.planning.services import PLAN_CONDITIONS


class PlanForm(forms.Form):
    """The plan's request: the same options as `manage.py campaign_assign`."""

    assessors = forms.ModelMultipleChoiceField(
        queryset=User.objects.none(), widget=forms.CheckboxSelectMultiple, help_text="K distinct ones per topic"
    )
    condition = forms.ChoiceField(choices=[(c.value, Condition(c).label) for c in PLAN_CONDITIONS])
    overlap = forms.IntegerField(min_value=1, max_value=50, initial=2, label="Overlap K")
    overlap_share = forms.FloatField(
        min_value=0.01, max_value=1.0, initial=1.0, label="Overlap share F", help_text="topics with K; the rest get one"
    )
    seed = forms.IntegerField(min_value=0, max_value=2**31 - 1, initial=0)
    rebalance = forms.BooleanField(required=False, help_text="also move untouched topics (no judgment yet)")

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["assessors"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = User.objects.filter(is_active=True, is_staff=False).order_by("username")


class ConfirmForm(PlanForm):
    fingerprint = forms.CharField(max_length=16, min_length=16)
