"""The study's API, included in the `metrics_api` namespace (`metrics_api:studies`, `metrics_api:study`, ...)."""

from __future__ import annotations

from django.urls import URLPattern, path

from metrics.study import api

urlpatterns: list[URLPattern] = [
    path("studies/", api.StudiesApi.as_view(), name="studies"),
    path("studies/<int:study_id>/", api.StudyReportApi.as_view(), name="study"),
    path("studies/<int:study_id>/assign/", api.StudyAssignApi.as_view(), name="study-assign"),
    path("studies/<int:study_id>/second-judge/", api.StudySecondJudgeApi.as_view(), name="study-second-judge"),
]
