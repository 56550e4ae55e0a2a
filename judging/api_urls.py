from __future__ import annotations

from django.urls import URLPattern, URLResolver, path
from rest_framework.routers import SimpleRouter

from judging import api, api_llm

router = SimpleRouter()
router.register("campaigns", api.CampaignViewSet, basename="campaign")
router.register("assignments", api.AssignmentViewSet, basename="assignment")
router.register("judgments", api.JudgmentViewSet, basename="judgment")

urlpatterns: list[URLPattern | URLResolver] = [
    path("assignments/<int:assignment_id>/next/", api.NextPairView.as_view(), name="assignment-next"),
    path("assignments/<int:assignment_id>/submit/", api.SubmitView.as_view(), name="assignment-submit"),
    *router.urls,
    # Other engineers of this app (LLM pre-labelling, imports) append their API paths below this line.
    # LLM pre-labelling (issue 4)
    path("llm-judges/", api_llm.LLMJudgesView.as_view(), name="llm-judges"),
    path("campaigns/<int:campaign_id>/prelabel/", api_llm.PrelabelStartView.as_view(), name="campaign-prelabel"),
    path("prelabel-jobs/<int:job_id>/", api_llm.PrelabelJobView.as_view(), name="prelabel-job"),
    path("prelabel-jobs/<int:job_id>/retry-errors/", api_llm.PrelabelRetryView.as_view(), name="prelabel-job-retry"),
    path("prelabel-jobs/<int:job_id>/cancel/", api_llm.PrelabelCancelView.as_view(), name="prelabel-job-cancel"),
    path("prelabel-jobs/<int:job_id>/resume/", api_llm.PrelabelResumeView.as_view(), name="prelabel-job-resume"),
]
