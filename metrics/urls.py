from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from metrics import views
from metrics.deliverables import views as deliverables_views

app_name = "metrics"
urlpatterns: list[URLPattern | URLResolver] = [
    path("metrics/", views.dashboard, name="dashboard"),
    path("metrics/topics/<str:topic_id>/", views.topic, name="topic"),
    path("metrics/disagreements/", views.disagreements, name="disagreements"),
    path("metrics/export/judgments/<str:fmt>/", views.export_judgments, name="export-judgments"),
    path("metrics/export/scores.csv", views.export_scores, name="export-scores"),
    path("metrics/export/topic-scores.csv", views.export_topic_scores, name="export-topic-scores"),
    path("metrics/export/agreement.json", views.export_agreement, name="export-agreement"),
    path("metrics/figures/<str:name>.<str:fmt>", views.paper_figure, name="figure"),
    path(
        "metrics/campaigns/<int:campaign_id>/deliverables.zip",
        deliverables_views.campaign_deliverables,
        name="campaign-deliverables",
    ),
    path("", include("metrics.study.urls")),
    path("", include("metrics.budget.urls")),
    path("", include("metrics.quality.urls")),
]
