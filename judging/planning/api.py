"""The assignment plan in the API: POST /api/campaigns/{id}/assign-plan/, a preview unless `write` is true."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.contrib.auth.models import User
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess.api import ErrorDetailSerializer
from judging.models import Campaign
from judging.planning.services import PLAN_CONDITIONS, Plan, PlanError, assignment_plan, assignment_plan_carry_out


class PlanInputSerializer(serializers.Serializer):
    assessors = serializers.ListField(
        child=serializers.CharField(max_length=150), min_length=1, max_length=500, help_text="usernames"
    )
    condition = serializers.ChoiceField(choices=[str(c) for c in PLAN_CONDITIONS])
    overlap = serializers.IntegerField(min_value=1, max_value=500, help_text="K distinct assessors per topic")
    overlap_share = serializers.FloatField(min_value=0.001, max_value=1.0, default=1.0)
    seed = serializers.IntegerField(min_value=0, max_value=2**31 - 1, default=0)
    rebalance = serializers.BooleanField(default=False)
    write = serializers.BooleanField(default=False, help_text="false: the preview, nothing written")
    fingerprint = serializers.CharField(
        min_length=16, max_length=16, required=False, help_text="the preview's: refused (409) if the plan changed"
    )

    def validate_assessors(self, value: list[str]) -> list[User]:
        if any("\x00" in name for name in value):
            raise serializers.ValidationError("a username holds a NUL character")
        wanted = list(dict.fromkeys(value))
        found = {u.username: u for u in User.objects.filter(username__in=wanted)}
        unknown = [name for name in wanted if name not in found]
        if unknown:
            raise serializers.ValidationError(f"unknown assessors: {', '.join(unknown)}")
        return [found[name] for name in wanted]

    def validate(self, attrs: dict[str, Any]) -> dict[str, Any]:
        if attrs["overlap"] > len(attrs["assessors"]):
            raise serializers.ValidationError(
                {"overlap": f"{attrs['overlap']} is more than the {len(attrs['assessors'])} assessors given"}
            )
        return attrs


class AssessorLoadSerializer(serializers.Serializer):
    assessor = serializers.CharField()
    topics = serializers.IntegerField()
    pairs = serializers.IntegerField()
    new_topics = serializers.IntegerField()
    new_pairs = serializers.IntegerField()
    hours = serializers.FloatField()


class NewAssignmentSerializer(serializers.Serializer):
    assessor = serializers.CharField()
    topic_id = serializers.CharField()
    pairs = serializers.IntegerField()


class MoveSerializer(serializers.Serializer):
    assignment_id = serializers.IntegerField()
    topic_id = serializers.CharField()
    from_assessor = serializers.CharField()
    to_assessor = serializers.CharField()
    pairs = serializers.IntegerField()


class SkipSerializer(serializers.Serializer):
    assessor = serializers.CharField()
    topic_id = serializers.CharField()
    reason = serializers.CharField()


class ShortfallSerializer(serializers.Serializer):
    topic_id = serializers.CharField()
    wanted = serializers.IntegerField()
    held = serializers.IntegerField()


class PlanOutputSerializer(serializers.Serializer):
    written = serializers.BooleanField()
    condition = serializers.CharField()
    overlap = serializers.IntegerField()
    overlap_share = serializers.FloatField()
    seed = serializers.IntegerField()
    rebalance = serializers.BooleanField()
    topics = serializers.IntegerField()
    topics_overlapped = serializers.IntegerField()
    seconds_per_judgment = serializers.FloatField()
    seconds_measured = serializers.IntegerField(help_text="timed judgments the pace is the median of; 0: a default")
    ratio = serializers.FloatField(allow_null=True, help_text="max / min pairs per assessor; null: one has none")
    fingerprint = serializers.CharField()
    loads = AssessorLoadSerializer(many=True)
    new = NewAssignmentSerializer(many=True)
    moves = MoveSerializer(many=True)
    skipped = SkipSerializer(many=True)
    short = ShortfallSerializer(many=True)


def plan_payload(plan: Plan, *, written: bool) -> dict[str, Any]:
    fields = ["condition", "overlap", "overlap_share", "seed", "rebalance", "topics", "topics_overlapped"]
    body: dict[str, Any] = {f: getattr(plan, f) for f in fields}
    body.update(
        written=written,
        seconds_per_judgment=plan.seconds_per_judgment,
        seconds_measured=plan.seconds_measured,
        ratio=plan.ratio,
        fingerprint=plan.fingerprint,
        loads=[asdict(x) for x in plan.loads],
        new=[asdict(x) for x in plan.new],
        moves=[asdict(x) for x in plan.moves],
        skipped=[asdict(x) for x in plan.skipped],
        short=[asdict(x) for x in plan.short],
    )
    return body


class AssignPlanView(APIView):
    """Organizers only. The plan of `manage.py campaign_assign`: previewed (200, nothing written) or written
    (201, all or nothing); a plan that cannot be written (a topic short of eligible assessors, an archived
    campaign, a changed plan) is a 409 and writes nothing."""

    permission_classes = [IsAdminUser]

    @extend_schema(
        request=PlanInputSerializer,
        responses={
            200: PlanOutputSerializer,
            201: PlanOutputSerializer,
            409: OpenApiResponse(ErrorDetailSerializer, description="the plan cannot be made or written"),
        },
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        data = PlanInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        options = {
            "campaign": campaign,
            "assessors": v["assessors"],
            "condition": v["condition"],
            "overlap": v["overlap"],
            "overlap_share": v["overlap_share"],
            "seed": v["seed"],
            "rebalance": v["rebalance"],
        }
        try:
            if v["write"]:
                plan = assignment_plan_carry_out(**options, fingerprint=v.get("fingerprint"))
            else:
                plan = assignment_plan(**options)
        except PlanError as exc:
            return Response({"detail": exc.message}, status=status.HTTP_409_CONFLICT)
        code = status.HTTP_201_CREATED if v["write"] else status.HTTP_200_OK
        return Response(plan_payload(plan, written=bool(v["write"])), status=code)
