"""What each budget action accepts, written once: the page, the API and the commands validate their input with these
serializers, so a budget, a design, a seed or an assessor means the same on every path and bad input is the same
clear error. What the action then allows (a label set that exists and is an LLM's, a budget within the pool, the
blindness rules) is the service's (`services`), which every path calls with the validated data."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from rest_framework import serializers
from rest_framework.settings import api_settings

from core.columns import column_bounds
from judging.label_set_names import SPEC_HELP
from judging.models import Campaign
from judging.scope import scope_for
from metrics.budget.estimators import ONE_LLM_DESIGNS, Design
from metrics.budget.models import BudgetSample

BUDGET_HELP = "a number of pairs (e.g. 300) or a share (e.g. 10% or 0.1)"
# The campaigns a sample may be drawn from and who may be assigned one (not an organizer: they see the LLM's
# labels): the schemas' querysets and the page's choices.
CAMPAIGNS = Campaign.objects.order_by("name")
ASSESSORS = User.objects.filter(is_staff=False).order_by("username")


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
        raise serializers.ValidationError(
            f"{text!r} is not a budget: write a number of pairs (300) or a share (10% or 0.1)"
        ) from None


class BudgetDrawInput(serializers.Serializer[dict[str, Any]]):
    """Draw a sample: its validated data are `services.budget_sample_draw`'s arguments. The budget comes as the
    page writes it (`budget`: "300", "10%", "0.1") or as a number (`pairs` or `share`); whether it fits the pool is
    the service's to say."""

    campaign = serializers.SlugRelatedField(
        slug_field="name",
        queryset=CAMPAIGNS,
        error_messages={"does_not_exist": "no campaign named '{value}'", "null": "choose a campaign"},
    )
    llm = serializers.CharField(help_text=f"the LLM label set on every pair: {SPEC_HELP}")
    design = serializers.ChoiceField(choices=Design.choices, default=Design.UNIFORM)
    second_llm = serializers.CharField(
        required=False, default="", allow_blank=True, help_text="a second LLM label set (the disagreement design)"
    )
    reference = serializers.CharField(
        required=False,
        default="",
        allow_blank=True,
        help_text="the active design: a human label set to learn the LLM's expected error from (e.g. nist/from_scratch)",
    )
    budget = serializers.CharField(required=False, help_text=f"the budget as text: {BUDGET_HELP}")
    pairs = serializers.IntegerField(
        required=False,
        help_text="or the budget as a number of pairs",
        **column_bounds(BudgetSample, "budget_pairs", min_value=1),
    )
    share = serializers.FloatField(required=False, help_text="or as a share of the pairs (0 < share <= 1)")
    seed = serializers.IntegerField(default=0, **column_bounds(BudgetSample, "seed"))
    allow_unlabelled = serializers.BooleanField(
        default=False, help_text="draw even if some pairs have no LLM label (they count with the LLM's mean weight)"
    )

    def validate_budget(self, value: str) -> tuple[int | None, float | None]:
        return parse_budget(value)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if "budget" in attrs:
            if "pairs" in attrs or "share" in attrs:
                raise serializers.ValidationError({"budget": "give the budget as text, or as pairs or share, not both"})
            attrs["pairs"], attrs["share"] = attrs.pop("budget")
        attrs.setdefault("pairs", None)
        attrs.setdefault("share", None)
        return attrs


class BudgetAssignInput(serializers.Serializer[dict[str, Any]]):
    """Assign a sample to an assessor."""

    assessor = serializers.SlugRelatedField(
        slug_field="username",
        queryset=ASSESSORS,
        error_messages={"does_not_exist": "no assessor named '{value}'"},
    )


class BudgetPlanInput(serializers.Serializer[dict[str, Any]]):
    """Plan a budget: the LLM's labels beside the human labels already made, in a campaign's first citations (none:
    everything loaded). Its validated data are `report.budget_plan`'s arguments."""

    campaign = serializers.SlugRelatedField(
        slug_field="name",
        queryset=Campaign.objects.all(),
        required=False,
        allow_null=True,
        default=None,
        error_messages={"does_not_exist": "no campaign named '{value}'"},
    )
    llm = serializers.CharField(help_text=f"the LLM label set: {SPEC_HELP}")
    human = serializers.CharField(help_text="the human labels already made (an earlier campaign, NIST's files)")
    design = serializers.ChoiceField(choices=[(d.value, d.label) for d in ONE_LLM_DESIGNS], default=Design.UNIFORM)

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        attrs["scope"] = scope_for(campaign=attrs.pop("campaign"), depth=1)
        return attrs


def errors_text(errors: Any) -> str:
    """A serializer's errors as one line, each message after the field it names: for a page's message or a
    command's error."""
    if isinstance(errors, dict):
        return "; ".join(
            errors_text(value) if key == api_settings.NON_FIELD_ERRORS_KEY else f"{key}: {errors_text(value)}"
            for key, value in errors.items()
        )
    if isinstance(errors, list):
        return " ".join(errors_text(value) for value in errors)
    return str(errors)
