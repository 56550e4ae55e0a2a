"""The assessor quality report of a campaign over REST. Organizers only: it names every assessor's labels and
the LLM's, so it never reaches an assessor (DESIGN §3)."""

from __future__ import annotations

from typing import Any

from django.http import HttpResponse
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.selectors import campaign_get
from metrics.quality import export, selectors


class QualityInputSerializer(serializers.Serializer[dict[str, Any]]):
    fmt = serializers.ChoiceField(choices=["json", "csv"], default="json", required=False)


class QualityAgreementOutputSerializer(serializers.Serializer[dict[str, Any]]):
    label_set = serializers.CharField(help_text="the label set compared with")
    unit = serializers.ChoiceField(choices=["pair", "citation"])
    n = serializers.IntegerField(help_text="items both labelled, in the unit")
    exact = serializers.FloatField(allow_null=True)
    kappa = serializers.FloatField(allow_null=True, help_text="Cohen's κ, unweighted")
    kappa_low = serializers.FloatField(allow_null=True, help_text="95% interval, items resampled")
    kappa_high = serializers.FloatField(allow_null=True)


class QualityGoldOutputSerializer(serializers.Serializer[dict[str, Any]]):
    gold = serializers.IntegerField(help_text="gold pairs of the campaign")
    labelled = serializers.IntegerField(help_text="gold pairs the assessor labelled FS, PS or NS")
    correct = serializers.IntegerField()
    cannot_judge = serializers.IntegerField()
    accuracy = serializers.FloatField(allow_null=True)


class QualityDriftOutputSerializer(serializers.Serializer[dict[str, Any]]):
    first = serializers.IntegerField(help_text="1-based number of the block's first judgment")
    last = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    compared = serializers.IntegerField(help_text="judgments compared with the drift reference")
    agreement = serializers.FloatField(allow_null=True)


class AssessorQualityOutputSerializer(serializers.Serializer[dict[str, Any]]):
    assessor = serializers.CharField()
    condition = serializers.CharField()
    label_set = serializers.CharField(help_text="the assessor's labels in this condition, within the campaign")
    judgments = serializers.IntegerField()
    pairs = serializers.IntegerField()
    labelled = serializers.IntegerField()
    median_seconds = serializers.FloatField(allow_null=True)
    p90_seconds = serializers.FloatField(allow_null=True)
    active_hours = serializers.FloatField(allow_null=True)
    shares = serializers.DictField(child=serializers.FloatField(allow_null=True), help_text="FS, PS, NS")
    cannot_judge = serializers.IntegerField()
    cannot_judge_rate = serializers.FloatField(allow_null=True)
    flags = serializers.IntegerField()
    gold = QualityGoldOutputSerializer(allow_null=True)
    agreement_with_assessors = QualityAgreementOutputSerializer(many=True)
    agreement_with_references = QualityAgreementOutputSerializer(many=True)
    drift = QualityDriftOutputSerializer(many=True)


class QualityReferenceOutputSerializer(serializers.Serializer[dict[str, Any]]):
    label_set = serializers.CharField()
    title = serializers.CharField()
    source = serializers.ChoiceField(choices=["llm", "nist"], help_text="an LLM judge, or NIST")  # type: ignore[assignment]
    unit = serializers.CharField()


class QualityOutputSerializer(serializers.Serializer[dict[str, Any]]):
    campaign = serializers.CharField()
    depth = serializers.IntegerField(allow_null=True)
    gold_items = serializers.IntegerField()
    drift_block = serializers.IntegerField()
    drift_reference = serializers.CharField(allow_null=True)
    references = QualityReferenceOutputSerializer(many=True)
    assessors = AssessorQualityOutputSerializer(many=True)


class QualityApi(APIView):
    """One row per assessor and condition: judgments, speed, active hours, label shares, cannot-judge rate, flags,
    agreement with every other assessor (pairs), with each LLM label set and NIST's (citations), drift per 100
    judgments and gold accuracy (`fmt=csv`: the page's CSV)."""

    permission_classes = [IsAdminUser]

    @extend_schema(
        parameters=[OpenApiParameter("fmt", str, enum=["json", "csv"], required=False)],
        responses={200: QualityOutputSerializer, (200, "text/csv"): OpenApiTypes.STR},
    )
    def get(self, request: Request, campaign_id: int) -> Response | HttpResponse:
        query = QualityInputSerializer(data=request.query_params)
        query.is_valid(raise_exception=True)
        campaign = campaign_get(campaign_id=campaign_id)
        if campaign is None:
            return Response({"detail": f"no campaign with id {campaign_id}"}, status=status.HTTP_404_NOT_FOUND)
        report = selectors.quality_report(campaign=campaign)
        if query.validated_data.get("fmt") == "csv":
            response = HttpResponse(export.quality_csv(report), content_type="text/csv")
            response["Content-Disposition"] = f'attachment; filename="quality-campaign-{campaign.pk}.csv"'
            return response
        return Response(export.quality_as_dict(report))
