"""REST API of the human-budget samples. Organizers only: a sample's items hold inclusion probabilities and the
estimates name the LLM's labels, none of which may reach an assessor (DESIGN §3); an assessor judging a sample
works through the assignment API alone, which shows a pair as it shows any other."""

from __future__ import annotations

from typing import Any

from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.label_set_names import LabelSetError
from judging.models import Campaign
from metrics.budget import report
from metrics.budget import selectors as budget_selectors
from metrics.budget import services as budget_services
from metrics.budget.inputs import BudgetAssignInput, BudgetDrawInput, BudgetPlanInput
from metrics.budget.models import BudgetSample


class SampleOutputSerializer(serializers.ModelSerializer[BudgetSample]):
    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    drawn = serializers.IntegerField(read_only=True, help_text="pairs drawn (the selectors count them)")

    class Meta:
        model = BudgetSample
        fields = [
            "id",
            "campaign",
            "llm",
            "second_llm",
            "reference",
            "design",
            "budget_pairs",
            "budget_share",
            "seed",
            "frame",
            "unlabelled",
            "expected",
            "drawn",
            "created_at",
        ]


class BudgetSamplesApi(APIView):
    """List the budget samples, or draw a new one."""

    permission_classes = [IsAdminUser]

    @extend_schema(responses={200: SampleOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(SampleOutputSerializer(budget_selectors.budget_sample_list(), many=True).data)

    @extend_schema(request=BudgetDrawInput, responses={201: SampleOutputSerializer})
    def post(self, request: Request) -> Response:
        data = BudgetDrawInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            sample = budget_services.budget_sample_draw(**data.validated_data, created_by=request.user)  # type: ignore[arg-type]
        except budget_services.BudgetError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        stored = budget_selectors.budget_sample_get(sample_id=sample.pk)  # with its count of drawn pairs
        return Response(SampleOutputSerializer(stored).data, status=status.HTTP_201_CREATED)


class BudgetEstimatesApi(APIView):
    """The sample's estimates per run: LLM-only, LLM + sample (95% interval), human-only; the ranking."""

    permission_classes = [IsAdminUser]

    @extend_schema(
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="label sets, unit, design and per run: LLM-only, LLM + sample with its 95% interval, "
                "human-only, and the ranking with the probability of each adjacent order (docs/budget.md)",
            )
        }
    )
    def get(self, request: Request, sample_id: int) -> Response:
        sample = budget_selectors.budget_sample_get(sample_id=sample_id)
        if sample is None:
            return Response({"detail": "no such budget sample"}, status=status.HTTP_404_NOT_FOUND)
        return Response(report.budget_estimates(sample=sample))


class BudgetAssignedSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    topic_id = serializers.CharField()
    condition = serializers.CharField()


class BudgetAssignOutputSerializer(serializers.Serializer[dict[str, Any]]):
    assignments = BudgetAssignedSerializer(many=True)


class BudgetAssignApi(APIView):
    """Assign the sample's topics to an assessor, from scratch (the blindness guards apply)."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=BudgetAssignInput, responses={201: BudgetAssignOutputSerializer})
    def post(self, request: Request, sample_id: int) -> Response:
        sample = budget_selectors.budget_sample_get(sample_id=sample_id)
        if sample is None:
            return Response({"detail": "no such budget sample"}, status=status.HTTP_404_NOT_FOUND)
        data = BudgetAssignInput(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            made = budget_services.budget_assign(sample=sample, assessor=data.validated_data["assessor"])
        except budget_services.BudgetError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(
            {"assignments": [{"id": a.pk, "topic_id": a.topic.topic_id, "condition": a.condition} for a in made]},
            status=status.HTTP_201_CREATED,
        )


class BudgetPlanApi(APIView):
    """Expected interval width against budget, before judging, from the human labels some pairs already have."""

    permission_classes = [IsAdminUser]

    @extend_schema(
        parameters=[BudgetPlanInput],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="the expected 95% interval width of each metric against budget, LLM + sample and "
                "human only, with the label sets and unit",
            )
        },
    )
    def get(self, request: Request) -> Response:
        data = BudgetPlanInput(data=request.query_params)
        data.is_valid(raise_exception=True)
        try:
            plan = report.budget_plan(**data.validated_data)
        except (LabelSetError, ValueError) as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(plan)
