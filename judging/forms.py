from __future__ import annotations

from copy import deepcopy
from typing import Any

from django import forms
from django.contrib.auth import password_validation
from django.contrib.auth.models import User
from django.http import QueryDict
from rest_framework import serializers

from assess.models import Run, Topic
from core.columns import column_bounds
from judging import queue, selectors
from judging.exchange.schema import SECONDS_LIMIT
from judging.guidelines import DEFAULT_GUIDELINES
from judging.kinds import (
    SUPPORT_KIND,
    BuildOptionsInvalid,
    build_options,
    build_options_clean,
    build_options_help,
    kind_get,
    kinds_registered,
)
from judging.models import NOT_JUDGED, Campaign, Condition, Judge, JudgeKind, Label, Pair, QueueOrder, kind_choices

JUDGED_LABEL_NAMES = {
    selectors.JudgedLabel.FULL: Label.FULL.label,
    selectors.JudgedLabel.PARTIAL: Label.PARTIAL.label,
    selectors.JudgedLabel.NONE: Label.NONE.label,
    selectors.JudgedLabel.CANNOT_JUDGE: "Cannot judge",
}


class RunPickerSelect(forms.SelectMultiple):
    """The run multi-select; each option carries its group and rank in the group (`run_ranks_in_group`), so the
    picker's "top N per group" (static/js/picker.js) selects by the server's rule instead of a copy of it."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.ranks: dict[int, tuple[str, int]] = {}

    def create_option(self, name: str, value: Any, *args: Any, **kwargs: Any) -> dict[str, Any]:
        option: dict[str, Any] = super().create_option(name, value, *args, **kwargs)
        pk = getattr(value, "value", value)
        if pk in self.ranks:
            group, rank = self.ranks[pk]
            option["attrs"].update({"data-group": group, "data-rank": rank})
        return option


class TopicChoiceField(forms.ModelMultipleChoiceField):
    def label_from_instance(self, obj: Any) -> str:
        text = obj.text if len(obj.text) <= 90 else obj.text[:89] + "…"
        return f"{obj.topic_id} · {text}" if text else str(obj.topic_id)


GUIDELINES_HELP = (
    "Markdown: ## headings, **bold**, *italics*, - lists, | tables |, [links](https://…). HTML is shown as text. "
    "Empty: no guidelines. Assessors see them before their first pair, and on the g key."
)


class CampaignForm(forms.Form):
    """A new campaign. Its runs are the chosen ones (or all), cut to the top N per group if asked: the one place
    a campaign's run list is decided for the page (`cleaned_data["chosen_runs"]`)."""

    name = forms.CharField(max_length=128)
    kind = forms.ChoiceField(choices=kind_choices, initial=SUPPORT_KIND, required=False, label="Judges")
    all_runs = forms.BooleanField(required=False, initial=False, label="All loaded runs (ignores the list)")
    runs = forms.ModelMultipleChoiceField(
        queryset=Run.objects.order_by("run_id"),
        required=False,
        widget=RunPickerSelect(attrs={"size": 10, "data-picker": "runs"}),
    )
    top_per_group = forms.IntegerField(
        min_value=1, required=False, label="Only the top N runs by priority per group (empty: no limit)"
    )
    topics = TopicChoiceField(
        queryset=Topic.objects.order_by("topic_id"),
        widget=forms.SelectMultiple(attrs={"size": 10, "data-picker": "topics"}),
    )
    depth = forms.IntegerField(min_value=1, initial=1, label="Depth (support: citations judged per sentence)")
    guidelines = forms.CharField(
        widget=forms.Textarea(attrs={"rows": 8}),
        initial=DEFAULT_GUIDELINES,
        required=False,
        help_text=GUIDELINES_HELP + " Left as shown, a campaign of another kind starts with its kind's own.",
    )
    post_edit_judge = forms.ModelChoiceField(
        queryset=Judge.objects.filter(kind=JudgeKind.LLM), required=False, label="LLM judge shown in post-editing"
    )
    highlight_evidence = forms.BooleanField(required=False, label="Highlight shared words in the passage")
    allow_missing_text = forms.BooleanField(
        required=False, label="Leave out pairs whose passage has no text (otherwise the build stops)"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        runs = self.fields["runs"]
        assert isinstance(runs, forms.ModelMultipleChoiceField)
        assert isinstance(runs.widget, RunPickerSelect)
        runs.widget.ranks = selectors.run_ranks_in_group(runs=Run.objects.only("pk", "run_id", "group", "priority"))
        # Each kind's own build options (judging.kinds.build_options), named "KIND-OPTION"; only the chosen
        # kind's are read (`clean`), so none is required here.
        for kind in kinds_registered():
            for option, field in build_options(kind).items():
                copy = deepcopy(field)
                copy.required = False
                copy.label = copy.label or option.replace("_", " ").capitalize()
                copy.widget.attrs["data-kind"] = kind.name
                self.fields[f"{kind.name}-{option}"] = copy

    def kind_option_groups(self) -> list[tuple[Any, list[Any]]]:
        """(kind, its bound option fields) of each kind that has build options, for the template."""
        groups = [(k, [self[f"{k.name}-{o}"] for o in build_options(k)]) for k in kinds_registered()]
        return [(k, fields) for k, fields in groups if fields]

    def clean_name(self) -> str:
        name: str = self.cleaned_data["name"].strip()
        if Campaign.objects.filter(name=name).exists():
            raise forms.ValidationError("A campaign with this name exists.")
        return name

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        if data.get("all_runs"):
            runs = list(Run.objects.all())
        elif data.get("runs"):
            runs = list(data["runs"])
        else:
            self.add_error("runs", "Choose runs, or tick 'All loaded runs'.")
            return data
        if data.get("top_per_group"):
            runs = selectors.runs_top_per_group(runs=runs, n=data["top_per_group"])
        data["chosen_runs"] = runs
        if "kind" in data:  # a valid kind, or none sent: support
            data["kind"] = data["kind"] or SUPPORT_KIND
            kind = kind_get(data["kind"])
            raw = {o: self.data.get(f"{kind.name}-{o}") for o in build_options(kind)}
            try:
                data["build_options"] = build_options_clean(kind, raw)
            except BuildOptionsInvalid as exc:
                self.add_error(None, str(exc))
            # The text area starts with support's guidelines: left as it was, the chosen kind's own apply.
            if _same_text(data.get("guidelines", ""), DEFAULT_GUIDELINES):
                data["guidelines"] = kind.default_guidelines
        return data


class CampaignSettingsForm(forms.ModelForm):
    class Meta:
        model = Campaign
        fields = ["guidelines", "post_edit_judge", "highlight_evidence", "queue_order"]
        widgets = {"guidelines": forms.Textarea(attrs={"rows": 8})}
        help_texts = {"guidelines": GUIDELINES_HELP}

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        field = self.fields["post_edit_judge"]
        assert isinstance(field, forms.ModelChoiceField)
        field.queryset = Judge.objects.filter(kind=JudgeKind.LLM)


class BuildForm(forms.Form):
    """A campaign's rebuild: judging's own option, and the options of the campaign's kind (under their own names;
    an option left empty keeps what the kind has; the page fills in those its last build summary names)."""

    allow_missing_text = forms.BooleanField(required=False)

    def __init__(self, *args: Any, kind: str = SUPPORT_KIND, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.kind = kind_get(kind)
        for option, field in build_options(self.kind).items():
            self.fields[option] = deepcopy(field)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        raw = {o: self.data.get(o) for o in build_options(self.kind)}
        try:
            data["build_options"] = build_options_clean(self.kind, raw, rebuild=True)
        except BuildOptionsInvalid as exc:
            self.add_error(None, str(exc))
        return data


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


def _pair_ids(text: str, name: str, most: int) -> list[int]:
    parts = [p.strip() for p in text.split(",") if p.strip()]
    if len(parts) > most or not all(p.isdigit() and len(p) <= 12 for p in parts):
        raise forms.ValidationError(f"{name}: at most {most} pair ids, separated by commas")
    return [int(p) for p in parts]


class CheckboxField(serializers.BooleanField):
    """A checkbox: blank (an unticked box sent as a field, as the page's outbox does) is false, as absent is."""

    FALSE_VALUES = {*serializers.BooleanField.FALSE_VALUES, ""}


class SubmitInputSerializer(serializers.Serializer):
    """One answer of a submit: the pair, its card's submission token, the label (or cannot judge, with why). The one
    schema of an answer: the API's submit reads its body with it, the judging page each answer of its POST."""

    pair_id = serializers.IntegerField(**column_bounds(Pair, "id", min_value=1))
    token = serializers.UUIDField()
    label = serializers.ChoiceField(  # type: ignore[assignment]
        choices=[*Label.choices, (NOT_JUDGED, "Cannot judge")],
        help_text="Blank: the assessor cannot judge the pair (stored as not judged, with the reason).",
        error_messages={"invalid_choice": "Select a valid choice: {input} is not a label."},
    )
    not_judged_reason = serializers.CharField(
        required=False,
        allow_blank=True,
        default="",
        max_length=200,
        help_text=f"Why a blank label (cannot judge); none given: {CANNOT_JUDGE_REASONS[0]!r}.",
    )
    # Refused out of range rather than clamped: a value past it is a client's error, not a time (docs/judging.md).
    seconds = serializers.FloatField(
        required=False, allow_null=True, default=None, min_value=0, max_value=SECONDS_LIMIT
    )
    flagged = CheckboxField(default=False)
    comment = serializers.CharField(required=False, allow_blank=True, default="", max_length=2000)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["label"] == NOT_JUDGED:
            attrs["not_judged_reason"] = attrs["not_judged_reason"].strip() or CANNOT_JUDGE_REASONS[0]
        else:
            attrs["not_judged_reason"] = ""
        return attrs


def errors_text(errors: Any) -> str:
    """A serializer's errors on one line: `field: message; ...`."""
    if isinstance(errors, dict):
        return "; ".join(f"{name}: {errors_text(value)}" for name, value in errors.items())
    if isinstance(errors, list):
        return " ".join(errors_text(value) for value in errors)
    return str(errors)


# The most answers one submit carries (the judging page's outbox sends at most this many at once).
SUBMIT_ANSWERS_MAX = 50


def _answer(given: dict[str, list[str]], k: int) -> QueryDict:
    """The kth answer's fields, as a form's body (DRF reads a blank field of a form as null, an absent box false)."""
    answer = QueryDict(mutable=True)
    for name, values in given.items():
        if values:
            answer[name] = values[k]
    return answer


class SubmitForm(forms.Form):
    """A submit of the judging page: one answer (the form without JavaScript), or several in the order answered
    (the page's outbox): each answer's fields repeated, the nth value of each field being the nth answer's, and
    a field either given for every answer or for none. `answers` holds one `SubmitInputSerializer` per answer, each
    validated on its own, so that one bad answer is refused without the others."""

    # The judging page's cards held ahead: how many it asks for (it measures its round trip), and the pairs it
    # has answered and not sent yet (comma-separated ids), which the cards it gets back skip.
    ahead = forms.IntegerField(required=False, min_value=1, max_value=queue.HELD_AHEAD_MAX)
    skip = forms.CharField(required=False, max_length=13 * queue.SKIP_MAX)
    # The pairs whose cards it holds already: those come back as their tokens only.
    known = forms.CharField(required=False, max_length=13 * queue.HELD_AHEAD_MAX)

    def __init__(self, data: QueryDict) -> None:
        super().__init__(data)
        self.posted = data
        self.answers: list[SubmitInputSerializer] = []

    def clean_skip(self) -> list[int]:
        return _pair_ids(self.cleaned_data.get("skip") or "", "skip", queue.SKIP_MAX)

    def clean_known(self) -> list[int]:
        return _pair_ids(self.cleaned_data.get("known") or "", "known", queue.HELD_AHEAD_MAX)

    def clean(self) -> dict[str, Any]:
        data = super().clean() or {}
        names: list[str] = list(SubmitInputSerializer().fields)  # type: ignore[arg-type]
        given = {name: self.posted.getlist(name) for name in names}
        n = max(len(given["pair_id"]), 1)  # none: one answer, whose pair_id is missing
        if n > SUBMIT_ANSWERS_MAX:
            raise forms.ValidationError(f"at most {SUBMIT_ANSWERS_MAX} answers in one submit, not {n}")
        uneven = [name for name, values in given.items() if len(values) not in (0, n)]
        if uneven:
            raise forms.ValidationError(f"{', '.join(uneven)}: one value per answer ({n} answers, by pair_id)")
        self.answers = [SubmitInputSerializer(data=_answer(given, k)) for k in range(n)]
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


class JudgedFilterForm(forms.Form):
    """The filter of an assessor's "My judgments": a label (or cannot judge), a topic of theirs in the campaign
    (this one, or all), flagged only. Anything else reads as no filter."""

    label = forms.ChoiceField(
        required=False,
        choices=[("", "any answer"), *((v.value, n) for v, n in JUDGED_LABEL_NAMES.items())],
    )
    topic = forms.ChoiceField(required=False, choices=[])
    flagged = forms.BooleanField(required=False, label="flagged only")
    from_pair = forms.IntegerField(required=False, min_value=1, max_value=2**62, widget=forms.HiddenInput)

    def __init__(self, *args: Any, topics: list[tuple[str, str]], **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        topic = self.fields["topic"]
        assert isinstance(topic, forms.ChoiceField)
        topic.choices = [("", "this topic"), ("all", "all my topics"), *topics]

    def filters(self) -> dict[str, Any]:
        data = self.cleaned_data if self.is_valid() else {}
        return {
            "label": selectors.JudgedLabel(data["label"]) if data.get("label") else None,
            "topic": data.get("topic") or "",
            "flagged": bool(data.get("flagged")),
            "from_pair": data.get("from_pair"),
        }


# --- the API's campaign inputs (judging/api.py) ----------------------------------------------------


class CampaignInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=128)
    runs = serializers.ListField(child=serializers.CharField(), required=False, help_text="run ids; omit for all")
    top_per_group = serializers.IntegerField(required=False, **column_bounds(Run, "priority", min_value=1))
    topics = serializers.ListField(child=serializers.CharField(), min_length=1)
    depth = serializers.IntegerField(default=1, **column_bounds(Campaign, "depth", min_value=1))
    guidelines = serializers.CharField(required=False, allow_blank=True)
    post_edit_judge = serializers.CharField(required=False, help_text="name of an LLM judge")
    highlight_evidence = serializers.BooleanField(default=False)
    queue_order = serializers.ChoiceField(choices=QueueOrder.choices, default=QueueOrder.BY_TOPIC)
    allow_missing_text = serializers.BooleanField(default=False)
    kind = serializers.ChoiceField(
        choices=[], default=SUPPORT_KIND, help_text="what the campaign judges (docs/kinds.md)"
    )
    build_options = serializers.DictField(
        required=False, default=dict, help_text="the kind's own build options by name (docs/kinds.md)"
    )

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        # The registry's kinds, read when the serializer is made (a kind's module may import judging's).
        self.fields["kind"].choices = kind_choices()  # type: ignore[attr-defined]
        self.fields["build_options"].help_text = build_options_help()

    def validate_name(self, value: str) -> str:
        if Campaign.objects.filter(name=value).exists():
            raise serializers.ValidationError("a campaign with this name exists")
        return value

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "runs" in attrs:
            found = {r.run_id: r for r in Run.objects.filter(run_id__in=attrs["runs"])}
            missing = [r for r in attrs["runs"] if r not in found]
            if missing:
                raise serializers.ValidationError({"runs": f"unknown runs: {', '.join(missing)}"})
            attrs["runs"] = [found[r] for r in attrs["runs"]]
        else:
            attrs["runs"] = list(Run.objects.all())
        if attrs.get("top_per_group"):
            attrs["runs"] = selectors.runs_top_per_group(runs=attrs["runs"], n=attrs["top_per_group"])
        topics = {t.topic_id: t for t in Topic.objects.filter(topic_id__in=attrs["topics"])}
        missing = [t for t in attrs["topics"] if t not in topics]
        if missing:
            raise serializers.ValidationError({"topics": f"unknown topics: {', '.join(missing)}"})
        attrs["topics"] = [topics[t] for t in attrs["topics"]]
        if attrs.get("post_edit_judge"):
            judge = Judge.objects.filter(name=attrs["post_edit_judge"], kind=JudgeKind.LLM).first()
            if judge is None:
                raise serializers.ValidationError({"post_edit_judge": "no LLM judge with this name"})
            attrs["post_edit_judge"] = judge
        try:
            attrs["build_options"] = build_options_clean(kind_get(attrs["kind"]), attrs.get("build_options") or {})
        except BuildOptionsInvalid as exc:
            raise serializers.ValidationError({"build_options": str(exc)}) from exc
        return attrs


class BuildInputSerializer(serializers.Serializer):
    allow_missing_text = serializers.BooleanField(default=False)
    build_options = serializers.DictField(
        required=False,
        default=dict,
        help_text="the campaign's kind's build options to change (docs/kinds.md); those left out keep their value",
    )


def _same_text(a: str, b: str) -> bool:
    """Equal but for line endings and the space around them (a browser sends a text area's lines as CRLF)."""
    return [line.rstrip() for line in a.strip().splitlines()] == [line.rstrip() for line in b.strip().splitlines()]
