"""The quality API, included in the `metrics_api` namespace (`metrics_api:quality`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from metrics.quality import api

urlpatterns: list[URLPattern] = [
    path("metrics/campaigns/<int:campaign_id>/quality/", api.QualityApi.as_view(), name="quality"),
]
