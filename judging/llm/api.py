"""REST API for LLM judges and pre-label jobs (organizers only).

GET/POST  /api/llm-judges/                      list, create
POST      /api/campaigns/<id>/prelabel/         start a job {judge, mode}
GET       /api/prelabel-jobs/<id>/              a job with its live progress
POST      /api/prelabel-jobs/<id>/retry-errors/ a new job calling again the failed pairs
POST      /api/prelabel-jobs/<id>/cancel/       stop a job (409 when it has already ended)
POST      /api/prelabel-jobs/<id>/resume/       a new job calling the pairs a cancelled job left
"""

from __future__ import annotations

from collections.abc import Callable
from decimal import Decimal
from typing import Any

from django.contrib.auth.models import User
from django.shortcuts import get_object_or_404
from drf_spectacular.utils import extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.llm import jobs, services
from judging.llm.models import PrelabelJob, PrelabelMode, Provider
from judging.llm.prompt import CURRENT_VERSION, PROMPTS
from judging.llm.selectors import llm_judges, prelabel_progress
from judging.models import Campaign, Judge, JudgeKind


class LLMJudgeOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    configured = serializers.SerializerMethodField()
    provider = serializers.CharField(source="llm.provider", default="")
    base_url = serializers.CharField(source="llm.base_url", default="")
    model = serializers.CharField(source="llm.model", default="")
    prompt_version = serializers.CharField(source="llm.prompt_version", default="")
    temperature = serializers.FloatField(source="llm.temperature", default=None)
    max_concurrency = serializers.IntegerField(source="llm.max_concurrency", default=None)
    requests_per_minute = serializers.IntegerField(source="llm.requests_per_minute", default=None)
    tokens_per_minute = serializers.IntegerField(source="llm.tokens_per_minute", default=None)
    price_input_per_million = serializers.DecimalField(
        source="llm.price_input_per_million", max_digits=10, decimal_places=4, default=None
    )
    price_output_per_million = serializers.DecimalField(
        source="llm.price_output_per_million", max_digits=10, decimal_places=4, default=None
    )

    def get_configured(self, judge: Judge) -> bool:
        return hasattr(judge, "llm")


class LLMJudgeInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=128)
    provider = serializers.ChoiceField(choices=Provider.choices, default=Provider.OPENAI)
    base_url = serializers.URLField(required=False, allow_blank=True, default="")
    model = serializers.CharField(max_length=128)
    prompt_version = serializers.ChoiceField(choices=list(PROMPTS), default=CURRENT_VERSION)
    temperature = serializers.FloatField(default=0.0, min_value=0.0, max_value=2.0)
    max_concurrency = serializers.IntegerField(default=8, min_value=1, max_value=512)
    requests_per_minute = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    tokens_per_minute = serializers.IntegerField(required=False, allow_null=True, min_value=1)
    price_input_per_million = serializers.DecimalField(
        max_digits=10, decimal_places=4, default=Decimal(0), min_value=Decimal(0)
    )
    price_output_per_million = serializers.DecimalField(
        max_digits=10, decimal_places=4, default=Decimal(0), min_value=Decimal(0)
    )


class LLMJudgesView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(responses=LLMJudgeOutputSerializer(many=True))
    def get(self, request: Request) -> Response:
        return Response(LLMJudgeOutputSerializer(llm_judges(), many=True).data)

    @extend_schema(request=LLMJudgeInputSerializer, responses={201: LLMJudgeOutputSerializer})
    def post(self, request: Request) -> Response:
        data = LLMJudgeInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            llm = services.llm_judge_create(**data.validated_data)
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(LLMJudgeOutputSerializer(llm.judge).data, status=status.HTTP_201_CREATED)


class PrelabelJobOutputSerializer(serializers.ModelSerializer):
    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    judge: serializers.SlugRelatedField[Judge] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    progress = serializers.SerializerMethodField()

    class Meta:
        model = PrelabelJob
        fields = [
            "id", "campaign", "judge", "prompt_version", "mode", "status", "retry_errors", "total", "message",
            "batch_id", "batch_status", "created_at", "started_at", "finished_at", "progress",
        ]  # fmt: skip

    def get_progress(self, job: PrelabelJob) -> dict[str, Any]:
        p = prelabel_progress(job)
        return {
            "total": p.total,
            "done": p.done,
            "labelled": p.labelled,
            "parse_errors": p.parse_errors,
            "errors": p.errors,
            "in_flight": p.in_flight,
            "remaining": p.remaining,
            "percent": p.percent,
            "calls_per_minute": round(p.calls_per_minute, 1),
            "cost": str(p.cost),
            "eta_seconds": None if p.eta_seconds is None else round(p.eta_seconds),
        }


class PrelabelStartSerializer(serializers.Serializer):
    judge = serializers.CharField(help_text="LLM judge name")
    mode = serializers.ChoiceField(choices=PrelabelMode.choices, default=PrelabelMode.LIVE)


def _user(request: Request) -> User | None:
    return request.user if isinstance(request.user, User) else None


def _job(job_id: int) -> PrelabelJob:
    return get_object_or_404(PrelabelJob.objects.select_related("campaign", "judge"), pk=job_id)


class PrelabelStartView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=PrelabelStartSerializer, responses={202: PrelabelJobOutputSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        data = PrelabelStartSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        judge = get_object_or_404(Judge, name=data.validated_data["judge"], kind=JudgeKind.LLM)
        try:
            job = jobs.prelabel_job_create(
                campaign=campaign, judge=judge, mode=data.validated_data["mode"], created_by=_user(request)
            )
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(PrelabelJobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class PrelabelJobView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(responses=PrelabelJobOutputSerializer)
    def get(self, request: Request, job_id: int) -> Response:
        job = _job(job_id)
        return Response(PrelabelJobOutputSerializer(job).data)


class _FollowUpView(APIView):
    """POST starts the job that follows this one (`start`: a retry of its errors, a resume): 202 with it."""

    permission_classes = [IsAdminUser]
    start: Callable[..., PrelabelJob]

    @extend_schema(request=None, responses={202: PrelabelJobOutputSerializer})
    def post(self, request: Request, job_id: int) -> Response:
        try:
            started = type(self).start(job=_job(job_id), created_by=_user(request))
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(PrelabelJobOutputSerializer(started).data, status=status.HTTP_202_ACCEPTED)


class PrelabelRetryView(_FollowUpView):
    start = staticmethod(jobs.prelabel_retry_errors)


class PrelabelCancelView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=None, responses={200: PrelabelJobOutputSerializer})
    def post(self, request: Request, job_id: int) -> Response:
        job = _job(job_id)
        try:
            job = jobs.prelabel_job_cancel(job=job, by=_user(request))
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(PrelabelJobOutputSerializer(job).data)


class PrelabelResumeView(_FollowUpView):
    start = staticmethod(jobs.prelabel_job_resume)
