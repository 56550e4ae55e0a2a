"""The review's REST API (reviewers and organizers; an assessor gets 403 and never an LLM reply or prompt):
a campaign's review queue, one pair's detail, and setting its final label."""

from __future__ import annotations

from dataclasses import asdict
from typing import Any

from django.http import Http404
from drf_spectacular.utils import OpenApiParameter, OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.exceptions import PermissionDenied
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from assess.api import ErrorDetailSerializer
from judging.label_set_names import LabelSetName
from judging.models import Campaign, CampaignPair, Label
from judging.review import selectors, services
from judging.review.access import IsReviewer, review_refusal


class ReviewItemSerializer(serializers.Serializer[Any]):
    pair_id = serializers.IntegerField()
    topic_id = serializers.CharField()
    position = serializers.IntegerField()
    reasons = serializers.ListField(child=serializers.ChoiceField(choices=list(selectors.REASONS)))
    human_labels = serializers.ListField(child=serializers.CharField(allow_blank=True))
    llm_labels = serializers.ListField(child=serializers.CharField())
    final_label = serializers.CharField(allow_blank=True)


class AssessorLabelSerializer(serializers.Serializer[Any]):
    assessor = serializers.CharField()
    condition = serializers.CharField(allow_blank=True)
    label = serializers.CharField(allow_blank=True, help_text="'' when the assessor could not judge it")  # type: ignore[assignment]
    seconds = serializers.FloatField(allow_null=True)
    comment = serializers.CharField(allow_blank=True)
    flagged = serializers.BooleanField()
    not_judged_reason = serializers.CharField(allow_blank=True)
    shown_label = serializers.CharField(allow_blank=True)
    created_at = serializers.DateTimeField()


class LLMLabelSerializer(serializers.Serializer[Any]):
    judge = serializers.CharField()
    label = serializers.CharField(allow_blank=True)  # type: ignore[assignment]
    raw_reply = serializers.CharField(allow_blank=True)
    prompt = serializers.CharField(allow_blank=True)
    prompt_version = serializers.CharField(allow_blank=True)


class HistorySerializer(serializers.Serializer[Any]):
    reviewer = serializers.CharField()
    created_at = serializers.DateTimeField()
    previous_label = serializers.CharField(allow_blank=True)
    label = serializers.CharField()  # type: ignore[assignment]
    reason = serializers.CharField()
    current = serializers.BooleanField()


class ReviewDetailSerializer(serializers.Serializer[Any]):
    item = ReviewItemSerializer()
    text = serializers.CharField(allow_blank=True)
    passage_id = serializers.CharField()
    assessors = AssessorLabelSerializer(many=True)
    llm = LLMLabelSerializer(many=True)
    history = HistorySerializer(many=True)
    final_set_label = serializers.CharField(allow_blank=True, help_text="the pair's label in final/CAMPAIGN now")


class FinalLabelInputSerializer(serializers.Serializer[Any]):
    label = serializers.ChoiceField(choices=Label.choices)  # type: ignore[assignment]
    reason = serializers.CharField(max_length=services.MAX_REASON, trim_whitespace=True)

    def validate_reason(self, value: str) -> str:
        if "\x00" in value:
            raise serializers.ValidationError("no NUL characters")
        return value


class FinalLabelOutputSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    pair_id = serializers.IntegerField()
    label = serializers.CharField()  # type: ignore[assignment]
    previous_label = serializers.CharField(allow_blank=True)
    reason = serializers.CharField()
    reviewer = serializers.CharField(source="reviewer.username")
    created_at = serializers.DateTimeField()
    label_set = serializers.CharField()


def _campaign(request: Request, campaign_id: int) -> Campaign:
    campaign = Campaign.objects.filter(pk=campaign_id).first()
    if campaign is None:
        raise Http404(f"no campaign with id {campaign_id}")
    refusal = review_refusal(request.user, campaign)
    if refusal is not None:
        raise PermissionDenied(refusal)
    return campaign


REASON_PARAMETER = OpenApiParameter(
    "reason", str, enum=list(selectors.REASONS), required=False, description="only the items with this reason"
)


class ReviewQueueView(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(parameters=[REASON_PARAMETER], responses={200: ReviewItemSerializer(many=True)})
    def get(self, request: Request, campaign_id: int) -> Response:
        """The campaign's review queue: open items first, then the reviewed ones."""
        campaign = _campaign(request, campaign_id)
        reason = request.query_params.get("reason", "")
        if reason and reason not in selectors.REASONS:
            return Response({"reason": [f"one of {', '.join(selectors.REASONS)}"]}, status=status.HTTP_400_BAD_REQUEST)
        items = selectors.review_queue(campaign=campaign)
        if reason:
            items = [i for i in items if reason in i.reasons]
        return Response(ReviewItemSerializer([asdict(i) for i in items], many=True).data)


class ReviewPairView(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(responses={200: ReviewDetailSerializer})
    def get(self, request: Request, campaign_id: int, pair_id: int) -> Response:
        """One pair as the reviewer sees it: every assessor's label, the LLM's labels with raw reply and prompt,
        and its final-label history."""
        campaign = _campaign(request, campaign_id)
        detail = selectors.review_detail(campaign=campaign, pair_id=pair_id)
        if detail is None:
            raise Http404(f"pair {pair_id} is not in campaign {campaign.name}")
        body = {
            "item": asdict(detail.item),
            "text": detail.pair.text,
            "passage_id": detail.pair.passage.passage_id,
            "assessors": [asdict(a) for a in detail.assessors],
            "llm": [asdict(x) for x in detail.llm],
            "history": [asdict(h) for h in detail.history],
            "final_set_label": detail.set_label,
        }
        return Response(ReviewDetailSerializer(body).data)


class FinalLabelView(APIView):
    permission_classes = [IsReviewer]

    @extend_schema(
        request=FinalLabelInputSerializer,
        responses={
            201: FinalLabelOutputSerializer,
            409: OpenApiResponse(ErrorDetailSerializer, description="another reviewer changed it at the same time"),
        },
    )
    def post(self, request: Request, campaign_id: int, pair_id: int) -> Response:
        """Set the pair's final label in final/CAMPAIGN, with a reason (a new history row)."""
        campaign = _campaign(request, campaign_id)
        data = FinalLabelInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        if not CampaignPair.objects.filter(campaign=campaign, pair_id=pair_id).exists():
            raise Http404(f"pair {pair_id} is not in campaign {campaign.name}")
        try:
            final = services.final_label_set(
                campaign=campaign,
                pair_id=pair_id,
                label=data.validated_data["label"],
                reason=data.validated_data["reason"],
                reviewer=request.user,  # type: ignore[arg-type]
            )
        except services.ReviewConflict as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_409_CONFLICT)
        except services.ReviewError as exc:
            return Response({"detail": str(exc)}, status=status.HTTP_400_BAD_REQUEST)
        out = FinalLabelOutputSerializer(
            {**final.__dict__, "reviewer": final.reviewer, "label_set": LabelSetName.final(campaign.name).format()}
        )
        return Response(out.data, status=status.HTTP_201_CREATED)
