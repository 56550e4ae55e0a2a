"""The campaign lifecycle in the API: clone, archive, restore, delete (organizers only)."""

from __future__ import annotations

from typing import Any

from django.shortcuts import get_object_or_404
from drf_spectacular.utils import OpenApiResponse, extend_schema
from rest_framework import serializers, status
from rest_framework.permissions import IsAdminUser
from rest_framework.request import Request
from rest_framework.response import Response
from rest_framework.views import APIView

from judging.lifecycle.selectors import campaign_losses
from judging.lifecycle.services import (
    LifecycleError,
    campaign_archive,
    campaign_clone,
    campaign_delete,
    campaign_restore,
)
from judging.models import Campaign


def _no_nul(value: str) -> None:
    if "\x00" in value:
        raise serializers.ValidationError("NUL characters are not allowed")


class CloneInputSerializer(serializers.Serializer):
    name = serializers.CharField(max_length=128, validators=[_no_nul])


class LifecycleCampaignSerializer(serializers.Serializer):
    id = serializers.IntegerField()
    name = serializers.CharField()
    archived_at = serializers.DateTimeField(allow_null=True)
    queue_order = serializers.CharField()
    pairs = serializers.IntegerField()


class DeleteInputSerializer(serializers.Serializer):
    confirm = serializers.CharField(max_length=128, validators=[_no_nul], help_text="the campaign's name")
    force = serializers.BooleanField(default=False, help_text="also delete its human judgments (export them first)")


class DeleteOutputSerializer(serializers.Serializer):
    detail = serializers.CharField()
    lost = serializers.ListField(child=serializers.CharField())


def _campaign_payload(campaign: Campaign) -> dict[str, Any]:
    return {
        "id": campaign.pk,
        "name": campaign.name,
        "archived_at": campaign.archived_at,
        "queue_order": campaign.queue_order,
        "pairs": campaign.campaign_pairs.count(),
    }


_REFUSED = OpenApiResponse(DeleteOutputSerializer, description="refused: what would be lost, and why")


class CloneView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(
        request=CloneInputSerializer,
        responses={201: LifecycleCampaignSerializer, 409: OpenApiResponse(DeleteOutputSerializer)},
    )
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        data = CloneInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            clone = campaign_clone(campaign=campaign, name=data.validated_data["name"])
        except LifecycleError as exc:
            return Response({"detail": exc.message, "lost": []}, status=status.HTTP_409_CONFLICT)
        return Response(_campaign_payload(clone), status=status.HTTP_201_CREATED)


class ArchiveView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=None, responses={200: LifecycleCampaignSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_archive(campaign=get_object_or_404(Campaign, pk=campaign_id))
        return Response(_campaign_payload(campaign))


class RestoreView(APIView):
    permission_classes = [IsAdminUser]

    @extend_schema(request=None, responses={200: LifecycleCampaignSerializer})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = campaign_restore(campaign=get_object_or_404(Campaign, pk=campaign_id))
        return Response(_campaign_payload(campaign))


class DeleteView(APIView):
    """Delete with the campaign's name typed again; refused (409, nothing deleted) while it holds human
    judgments unless `force`, and the answer lists what would be lost."""

    permission_classes = [IsAdminUser]

    @extend_schema(request=DeleteInputSerializer, responses={200: DeleteOutputSerializer, 409: _REFUSED})
    def post(self, request: Request, campaign_id: int) -> Response:
        campaign = get_object_or_404(Campaign, pk=campaign_id)
        data = DeleteInputSerializer(data=request.data)
        data.is_valid(raise_exception=True)
        try:
            deleted = campaign_delete(
                campaign=campaign, confirm=data.validated_data["confirm"], force=data.validated_data["force"]
            )
        except LifecycleError as exc:
            lost = campaign_losses(campaign=campaign).lines()
            return Response({"detail": exc.message, "lost": lost}, status=status.HTTP_409_CONFLICT)
        return Response({"detail": f"campaign {deleted.name} deleted", "lost": deleted.losses.lines()})
