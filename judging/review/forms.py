from __future__ import annotations

from django import forms

from judging.models import Label
from judging.review.services import MAX_REASON


class FinalLabelForm(forms.Form):
    label = forms.ChoiceField(choices=Label.choices, widget=forms.RadioSelect)
    reason = forms.CharField(max_length=MAX_REASON, strip=True)
