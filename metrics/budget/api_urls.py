"""The budget API, included in the `metrics_api` namespace."""

from __future__ import annotations

from django.urls import URLPattern, path

from metrics.budget import api

urlpatterns: list[URLPattern] = [
    path("budget/samples/", api.BudgetSamplesApi.as_view(), name="budget-samples"),
    path("budget/samples/<int:sample_id>/", api.BudgetEstimatesApi.as_view(), name="budget-sample"),
    path("budget/samples/<int:sample_id>/assign/", api.BudgetAssignApi.as_view(), name="budget-assign"),
    path("budget/plan/", api.BudgetPlanApi.as_view(), name="budget-plan"),
]
