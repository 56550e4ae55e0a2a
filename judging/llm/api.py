"""REST API for LLM judges and pre-label jobs (organizers only).

GET/POST  /api/llm-judges/                      list, create
POST      /api/campaigns/<id>/prelabel/         start a job {judge, mode, retry_errors}
GET       /api/campaigns/<id>/prelabel/estimate/?judge=  pairs to call, estimated tokens and cost
POST      /api/llm-judges/<name>/check/         one real call: the answer or the error
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
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess.api import ErrorDetailSerializer
from core.columns import column_bounds
from judging.llm import jobs, services
from judging.llm.connection import connection_check
from judging.llm.models import LLMJudge, PrelabelJob, PrelabelMode, Provider
from judging.llm.prompt import CURRENT_VERSION, PROMPTS
from judging.llm.selectors import llm_judges, prelabel_estimate, prelabel_progress
from judging.models import Campaign, Judge, JudgeKind


class LLMJudgeOutputSerializer(serializers.Serializer):
    name = serializers.CharField()
    configured = serializers.SerializerMethodField()
    provider = serializers.CharField(source="llm.provider", default=None, allow_null=True)
    base_url = serializers.CharField(source="llm.base_url", default=None, allow_null=True)
    model = serializers.CharField(source="llm.model", default=None, allow_null=True)
    prompt_version = serializers.CharField(source="llm.prompt_version", default=None, allow_null=True)
    temperature = serializers.FloatField(source="llm.temperature", default=None, allow_null=True)
    max_concurrency = serializers.IntegerField(source="llm.max_concurrency", default=None, allow_null=True)
    requests_per_minute = serializers.IntegerField(source="llm.requests_per_minute", default=None, allow_null=True)
    tokens_per_minute = serializers.IntegerField(source="llm.tokens_per_minute", default=None, allow_null=True)
    price_input_per_million = serializers.DecimalField(
        source="llm.price_input_per_million", max_digits=10, decimal_places=4, default=None, allow_null=True
    )
    price_output_per_million = serializers.DecimalField(
        source="llm.price_output_per_million", max_digits=10, decimal_places=4, default=None, allow_null=True
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
    max_concurrency = serializers.IntegerField(
        default=8, **column_bounds(LLMJudge, "max_concurrency", min_value=1, max_value=512)
    )
    requests_per_minute = serializers.IntegerField(
        required=False, allow_null=True, **column_bounds(LLMJudge, "requests_per_minute", min_value=1)
    )
    tokens_per_minute = serializers.IntegerField(
        required=False, allow_null=True, **column_bounds(LLMJudge, "tokens_per_minute", min_value=1)
    )
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
            "call_errors": p.call_errors,
            "errors": p.errors,
            "in_flight": p.in_flight,
            "remaining": p.remaining,
            "percent": p.percent,
            "calls_per_minute": p.calls_per_minute,
            "cost": str(p.cost),
            "eta_seconds": None if p.eta_seconds is None else round(p.eta_seconds),
        }


class PrelabelStartSerializer(serializers.Serializer):
    judge = serializers.CharField(help_text="LLM judge name")
    mode = serializers.ChoiceField(choices=PrelabelMode.choices, default=PrelabelMode.LIVE)
    retry_errors = serializers.BooleanField(default=False, help_text="also call again the pairs that ended in an error")


class EstimateQuerySerializer(serializers.Serializer):
    judge = serializers.CharField(help_text="LLM judge name")
    retry_errors = serializers.BooleanField(default=False)


class EstimateOutputSerializer(serializers.Serializer):
    pairs = serializers.IntegerField(help_text="pairs a job would call now")
    retryable_errors = serializers.IntegerField(help_text="pairs that ended in an error (call or parse)")
    input_tokens = serializers.IntegerField(help_text="estimated: each prompt's characters / chars_per_token")
    output_tokens = serializers.IntegerField(help_text="estimated: reply_tokens per pair")
    cost = serializers.DecimalField(max_digits=14, decimal_places=6, help_text="live, from the judge's prices")
    batch_cost = serializers.DecimalField(max_digits=14, decimal_places=6)
    priced = serializers.BooleanField(help_text="whether the judge has prices; else the costs are 0")
    chars_per_token = serializers.IntegerField()
    reply_tokens = serializers.IntegerField()


class ConnectionCheckOutputSerializer(serializers.Serializer):
    ok = serializers.BooleanField()
    answer = serializers.CharField()
    parsed_label = serializers.CharField(source="label", help_text="the label read from the answer; empty if none")
    error = serializers.CharField()
    latency_ms = serializers.IntegerField(allow_null=True)
    input_tokens = serializers.IntegerField()
    output_tokens = serializers.IntegerField()


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
                campaign=campaign,
                judge=judge,
                mode=data.validated_data["mode"],
                retry_errors=data.validated_data["retry_errors"],
                created_by=_user(request),
            )
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(PrelabelJobOutputSerializer(job).data, status=status.HTTP_202_ACCEPTED)


class PrelabelEstimateView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(parameters=[EstimateQuerySerializer], responses=EstimateOutputSerializer)
    def get(self, request: Request, campaign_id: int) -> Response:
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        query = EstimateQuerySerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        judge = get_object_or_404(Judge, name=query.validated_data["judge"], kind=JudgeKind.LLM)
        try:
            services.llm_config(judge)
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        estimate = prelabel_estimate(campaign=campaign, judge=judge, retry_errors=query.validated_data["retry_errors"])
        return Response(EstimateOutputSerializer(estimate).data)


class LLMJudgeCheckView(APIView):
    """POST makes one real call to the judge: 200 with its answer, or with `ok` false and the error."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=None, responses=ConnectionCheckOutputSerializer)
    def post(self, request: Request, name: str) -> Response:
        judge = get_object_or_404(Judge, name=name, kind=JudgeKind.LLM)
        try:
            llm = services.llm_config(judge)
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(ConnectionCheckOutputSerializer(connection_check(llm)).data)


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

    @extend_schema(
        request=None,
        responses={
            200: PrelabelJobOutputSerializer,
            409: OpenApiResponse(ErrorDetailSerializer, description="the job has already ended"),
        },
    )
    def post(self, request: Request, job_id: int) -> Response:
        job = _job(job_id)
        try:
            job = jobs.prelabel_job_cancel(job=job, by=_user(request))
        except services.PrelabelError as error:
            return Response({"detail": str(error)}, status=status.HTTP_409_CONFLICT)
        return Response(PrelabelJobOutputSerializer(job).data)


class PrelabelResumeView(_FollowUpView):
    start = staticmethod(jobs.prelabel_job_resume)
