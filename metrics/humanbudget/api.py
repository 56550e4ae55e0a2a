"""REST API of the human-budget samples. Organizers only: a sample's items hold inclusion probabilities and the
estimates name the LLM's labels, none of which may reach an assessor (DESIGN §3); an assessor judging a sample
works through the assignment API alone, which shows a pair as it shows any other."""

from __future__ import annotations

from typing import Any

from django.contrib.auth.models import User
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from core.columns import column_bounds
from judging.labels import SPEC_HELP, LabelSetError
from judging.models import Campaign
from judging.scope import scope_for
from metrics.budget import Design
from metrics.humanbudget import report
from metrics.humanbudget import selectors as budget_selectors
from metrics.humanbudget import services as budget_services
from metrics.humanbudget.models import BudgetSample


class DrawInputSerializer(serializers.Serializer[dict[str, Any]]):
    campaign = serializers.SlugRelatedField(slug_field="name", queryset=Campaign.objects.all())
    llm = serializers.CharField(help_text=f"the LLM label set on every pair: {SPEC_HELP}")
    design = serializers.ChoiceField(choices=Design.ALL, default=Design.UNIFORM)
    second_llm = serializers.CharField(required=False, default="", allow_blank=True)
    pairs = serializers.IntegerField(
        required=False,
        help_text="the budget as a number of pairs",
        **column_bounds(BudgetSample, "budget_pairs", min_value=1),
    )
    share = serializers.FloatField(required=False, help_text="or as a share of the pairs (0 < share <= 1)")
    seed = serializers.IntegerField(default=0, **column_bounds(BudgetSample, "seed"))
    allow_unlabelled = serializers.BooleanField(default=False)


class SampleOutputSerializer(serializers.ModelSerializer[BudgetSample]):
    campaign: serializers.SlugRelatedField[Campaign] = serializers.SlugRelatedField(slug_field="name", read_only=True)
    drawn = serializers.SerializerMethodField()

    class Meta:
        model = BudgetSample
        fields = [
            "id",
            "campaign",
            "llm",
            "second_llm",
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

    def get_drawn(self, sample: BudgetSample) -> int:
        return sample.items.count()


class BudgetSamplesApi(APIView):
    """List the budget samples, or draw a new one."""

    permission_classes = [IsAdminUser]

    @extend_schema(responses={200: SampleOutputSerializer(many=True)})
    def get(self, request: Request) -> Response:
        return Response(SampleOutputSerializer(budget_selectors.budget_sample_list(), many=True).data)

    @extend_schema(request=DrawInputSerializer, responses={201: SampleOutputSerializer})
    def post(self, request: Request) -> Response:
        data = DrawInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        v = data.validated_data
        try:
            sample = budget_services.budget_sample_draw(
                campaign=v["campaign"],
                llm=v["llm"],
                design=v["design"],
                pairs=v.get("pairs"),
                share=v.get("share"),
                second_llm=v["second_llm"],
                seed=v["seed"],
                allow_unlabelled=v["allow_unlabelled"],
                created_by=request.user,  # type: ignore[arg-type]
            )
        except budget_services.BudgetError as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(SampleOutputSerializer(sample).data, status=status.HTTP_201_CREATED)


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


class BudgetAssignInputSerializer(serializers.Serializer[dict[str, Any]]):
    assessor = serializers.SlugRelatedField(slug_field="username", queryset=User.objects.filter(is_staff=False))


class BudgetAssignedSerializer(serializers.Serializer[dict[str, Any]]):
    id = serializers.IntegerField()
    topic_id = serializers.CharField()
    condition = serializers.CharField()


class BudgetAssignOutputSerializer(serializers.Serializer[dict[str, Any]]):
    assignments = BudgetAssignedSerializer(many=True)


class BudgetAssignApi(APIView):
    """Assign the sample's topics to an assessor, from scratch (the blindness guards apply)."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=BudgetAssignInputSerializer, responses={201: BudgetAssignOutputSerializer})
    def post(self, request: Request, sample_id: int) -> Response:
        sample = budget_selectors.budget_sample_get(sample_id=sample_id)
        if sample is None:
            return Response({"detail": "no such budget sample"}, status=status.HTTP_404_NOT_FOUND)
        data = BudgetAssignInputSerializer(data=request.data)
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
        parameters=[
            OpenApiParameter("campaign", str, required=False),
            OpenApiParameter("llm", str),
            OpenApiParameter("human", str),
            OpenApiParameter("design", str, required=False, enum=list(Design.CHOICES)),
        ],
        responses={
            200: OpenApiResponse(
                OpenApiTypes.OBJECT,
                description="the expected 95% interval width of each metric against budget, LLM + sample and "
                "human only, with the label sets and unit",
            )
        },
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        design = params.get("design", Design.UNIFORM)
        if design not in Design.CHOICES:
            return Response({"detail": f"design: one of {', '.join(Design.CHOICES)}"}, status=400)
        try:
            scope = scope_for(campaign=params.get("campaign") or None, depth=1)
            data = report.budget_plan(
                llm=params.get("llm", ""), human=params.get("human", ""), scope=scope, design=design
            )
        except (LabelSetError, ValueError) as error:
            return Response({"detail": str(error)}, status=status.HTTP_400_BAD_REQUEST)
        return Response(data)
