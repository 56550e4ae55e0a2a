"""The study's pages, included in the `metrics` namespace (`metrics:studies`, `metrics:study`, ...)."""

from __future__ import annotations

from django.urls import URLPattern, path

from metrics.study import views

urlpatterns: list[URLPattern] = [
    path("metrics/studies/", views.studies, name="studies"),
    path("metrics/studies/<int:study_id>/", views.study, name="study"),
    path("metrics/studies/<int:study_id>/export.csv", views.study_csv, name="study-csv"),
    path("metrics/studies/<int:study_id>/assign/", views.study_assign, name="study-assign"),
    path("metrics/studies/<int:study_id>/second-judge/", views.study_second_judge, name="study-second-judge"),
]
