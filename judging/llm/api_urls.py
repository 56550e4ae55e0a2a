"""API of LLM pre-labelling, under /api/ beside the judging API (`judging.api_urls` includes it)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from judging.llm import api

urlpatterns: list[URLPattern | URLResolver] = [
    path("llm-judges/", api.LLMJudgesView.as_view(), name="llm-judges"),
    path("llm-judges/<str:name>/check/", api.LLMJudgeCheckView.as_view(), name="llm-judge-check"),
    path("campaigns/<int:campaign_id>/prelabel/", api.PrelabelStartView.as_view(), name="campaign-prelabel"),
    path(
        "campaigns/<int:campaign_id>/prelabel/estimate/",
        api.PrelabelEstimateView.as_view(),
        name="campaign-prelabel-estimate",
    ),
    path("prelabel-jobs/<int:job_id>/", api.PrelabelJobView.as_view(), name="prelabel-job"),
    path("prelabel-jobs/<int:job_id>/retry-errors/", api.PrelabelRetryView.as_view(), name="prelabel-job-retry"),
    path("prelabel-jobs/<int:job_id>/cancel/", api.PrelabelCancelView.as_view(), name="prelabel-job-cancel"),
    path("prelabel-jobs/<int:job_id>/resume/", api.PrelabelResumeView.as_view(), name="prelabel-job-resume"),
]
