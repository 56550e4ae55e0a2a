from __future__ import annotations

from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.models import User

from assess.models import Run, Topic
from judging.guidelines import DEFAULT_GUIDELINES
from judging.models import NOT_JUDGED, Campaign, Condition, Judge, JudgeKind, Label


class CampaignForm(forms.Form):
    name = forms.CharField(max_length=128)
    all_runs = forms.BooleanField(required=False, initial=True, label="All loaded runs")
    runs = forms.ModelMultipleChoiceField(
        queryset=Run.objects.order_by("run_id"), required=False, widget=forms.SelectMultiple(attrs={"size": 8})
    )
    top_per_group = forms.IntegerField(
        min_value=1, required=False, label="Only the top N runs by priority per group (empty: no limit)"
    )
    topics = forms.ModelMultipleChoiceField(
        queryset=Topic.objects.order_by("topic_id"), widget=forms.SelectMultiple(attrs={"size": 8})
    )
    depth = forms.IntegerField(min_value=1, initial=1, label="Depth (citations judged per sentence)")
    guidelines = forms.CharField(widget=forms.Textarea(attrs={"rows": 8}), initial=DEFAULT_GUIDELINES, required=False)
    post_edit_judge = forms.ModelChoiceField(
        queryset=Judge.objects.filter(kind=JudgeKind.LLM), required=False, label="LLM judge shown in post-editing"
    )
    highlight_evidence = forms.BooleanField(required=False, label="Highlight shared words in the passage")
    allow_missing_text = forms.BooleanField(
        required=False, label="Leave out pairs whose passage has no text (otherwise the build stops)"
    )

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if Campaign.objects.filter(name=name).exists():
            raise forms.ValidationError("A campaign with this name exists.")
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if not data.get("all_runs") and not data.get("runs"):
            self.add_error("runs", "Choose runs, or tick 'All loaded runs'.")
        return data


class CampaignSettingsForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["guidelines", "post_edit_judge", "highlight_evidence"]
        widgets = {"guidelines": forms.Textarea(attrs={"rows": 8})}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["post_edit_judge"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = Judge.objects.filter(kind=JudgeKind.LLM)


class BuildForm(forms.Form):
    allow_missing_text = forms.BooleanField(required=False)


class AssignForm(forms.Form):
    assessor = forms.ModelChoiceField(queryset=User.objects.filter(is_active=True).order_by("username"))
    topics = forms.ModelMultipleChoiceField(
        queryset=Topic.objects.none(), widget=forms.SelectMultiple(attrs={"size": 6})
    )
    condition = forms.ChoiceField(choices=Condition.choices)

    def __init__(self, *args: Any, campaign: Campaign, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["topics"]
        assert isinstance(field, forms.ModelMultipleChoiceField)
        field.queryset = campaign.topics.order_by("topic_id")


CANNOT_JUDGE_REASONS = [
    "I cannot judge this pair",
    "The passage is unreadable, empty or not in a language I read",
    "The sentence is not a claim that a passage could support",
    "I do not know enough about the topic",
]


class SubmitForm(forms.Form):
    pair_id = forms.IntegerField(min_value=1)
    token = forms.UUIDField()
    # Blank: the assessor cannot judge the pair (stored as not judged, with the reason).
    label = forms.ChoiceField(choices=[*Label.choices, (NOT_JUDGED, "Cannot judge")], required=False)
    not_judged_reason = forms.CharField(required=False, max_length=200)
    seconds = forms.FloatField(required=False, min_value=0)
    flagged = forms.BooleanField(required=False)
    comment = forms.CharField(required=False, max_length=2000)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("label") == NOT_JUDGED:
            data["not_judged_reason"] = (data.get("not_judged_reason") or "").strip() or CANNOT_JUDGE_REASONS[0]
        else:
            data["not_judged_reason"] = ""
        return data


class AssessorCreateForm(forms.Form):
    username = forms.CharField(max_length=150, help_text="Letters, digits and @ . + - _ only.")
    password = forms.CharField(widget=forms.PasswordInput(render_value=False), strip=False)

    def clean_username(self) -> str:
        username: str = self.cleaned_data["username"].strip()
        User.username_validator(username)
        if User.objects.filter(username__iexact=username).exists():
            raise forms.ValidationError(f"There is already a user called {username!r}.")
        return username

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        password_validation.validate_password(password)
        return password


class AssessorPasswordForm(forms.Form):
    password = forms.CharField(widget=forms.PasswordInput(render_value=False), strip=False, label="New password")

    def __init__(self, *args: Any, assessor: User, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.assessor = assessor

    def clean_password(self) -> str:
        password: str = self.cleaned_data["password"]
        password_validation.validate_password(password, self.assessor)
        return password
