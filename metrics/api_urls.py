from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from judging.exchange import api as exchange_api
from metrics import api

app_name = "metrics_api"
urlpatterns: list[URLPattern | URLResolver] = [
    path("metrics/scores/", api.ScoresApi.as_view(), name="scores"),
    path("metrics/stats/", api.StatsApi.as_view(), name="stats"),
    path("metrics/agreement/", api.AgreementApi.as_view(), name="agreement"),
    path("metrics/disagreements/", api.DisagreementsApi.as_view(), name="disagreements"),
    path("metrics/judgments/", api.JudgmentsExportApi.as_view(), name="judgments-export"),
    path("metrics/judgments/import/", exchange_api.JudgmentsImportApi.as_view(), name="judgments-import"),
    path("", include("metrics.study.api_urls")),
    path("", include("metrics.budget.api_urls")),
    path("", include("metrics.quality.api_urls")),
]
