from __future__ import annotations

from django.urls import URLPattern, path

from metrics import views

app_name = "metrics"
urlpatterns: list[URLPattern] = [
    path("metrics/", views.dashboard, name="dashboard"),
    path("metrics/topics/<str:topic_id>/", views.topic, name="topic"),
    path("metrics/export/judgments/<str:fmt>/", views.export_judgments, name="export-judgments"),
    path("metrics/export/scores.csv", views.export_scores, name="export-scores"),
    path("metrics/export/topic-scores.csv", views.export_topic_scores, name="export-topic-scores"),
    path("metrics/export/agreement.json", views.export_agreement, name="export-agreement"),
    path("metrics/import/", views.upload, name="upload"),
]

# The disagreement study (issue 6)
from metrics import views_study  # noqa: E402

urlpatterns += [
    path("metrics/studies/", views_study.studies, name="studies"),
    path("metrics/studies/<int:study_id>/", views_study.study, name="study"),
    path("metrics/studies/<int:study_id>/export.csv", views_study.study_csv, name="study-csv"),
    path("metrics/studies/<int:study_id>/assign/", views_study.study_assign, name="study-assign"),
    path("metrics/studies/<int:study_id>/second-judge/", views_study.study_second_judge, name="study-second-judge"),
]
