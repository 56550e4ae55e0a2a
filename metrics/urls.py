from __future__ import annotations

from django.urls import URLPattern, path

from metrics import views

app_name = "metrics"
urlpatterns: list[URLPattern] = [
    path("metrics/", views.dashboard, name="dashboard"),
    path("metrics/topics/<str:topic_id>/", views.topic, name="topic"),
    path("metrics/export/judgments/<str:fmt>/", views.export_judgments, name="export-judgments"),
    path("metrics/export/scores.csv", views.export_scores, name="export-scores"),
    path("metrics/export/agreement.json", views.export_agreement, name="export-agreement"),
    path("metrics/import/", views.upload, name="upload"),
]
