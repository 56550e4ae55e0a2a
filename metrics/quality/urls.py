"""The quality pages, included in the `metrics` namespace (`metrics:quality`, `metrics:quality-csv`, ...)."""

from __future__ import annotations

from django.urls import URLPattern, path

from metrics.quality import views

urlpatterns: list[URLPattern] = [
    path("metrics/campaigns/<int:campaign_id>/quality/", views.quality, name="quality"),
    path("metrics/campaigns/<int:campaign_id>/quality.csv", views.quality_csv, name="quality-csv"),
    path("metrics/campaigns/<int:campaign_id>/quality/gold/", views.gold_upload, name="quality-gold"),
]
