from __future__ import annotations

from django.urls import URLPattern, path

from metrics import api

app_name = "metrics_api"
urlpatterns: list[URLPattern] = [
    path("metrics/scores/", api.ScoresApi.as_view(), name="scores"),
    path("metrics/stats/", api.StatsApi.as_view(), name="stats"),
    path("metrics/agreement/", api.AgreementApi.as_view(), name="agreement"),
    path("metrics/judgments/", api.JudgmentsExportApi.as_view(), name="judgments-export"),
    path("metrics/judgments/import/", api.JudgmentsImportApi.as_view(), name="judgments-import"),
]

# The disagreement study (issue 6)
from metrics import api_study  # noqa: E402

urlpatterns += [
    path("studies/", api_study.StudiesApi.as_view(), name="studies"),
    path("studies/<int:study_id>/", api_study.StudyReportApi.as_view(), name="study"),
    path("studies/<int:study_id>/assign/", api_study.StudyAssignApi.as_view(), name="study-assign"),
    path("studies/<int:study_id>/second-judge/", api_study.StudySecondJudgeApi.as_view(), name="study-second-judge"),
]
