"""The budget pages, included in the `metrics` namespace (`metrics:budget-samples`, `metrics:budget-sample`)."""

from __future__ import annotations

from django.urls import URLPattern, path

from metrics.budget import views

urlpatterns: list[URLPattern] = [
    path("metrics/budget/", views.samples, name="budget-samples"),
    path("metrics/budget/<int:sample_id>/", views.sample, name="budget-sample"),
    path("metrics/budget/<int:sample_id>/assign/", views.sample_assign, name="budget-assign"),
]
