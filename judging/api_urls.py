from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import SimpleRouter

from judging import api

router = SimpleRouter()
router.register("campaigns", api.CampaignViewSet, basename="campaign")
router.register("assignments", api.AssignmentViewSet, basename="assignment")
router.register("judgments", api.JudgmentViewSet, basename="judgment")

urlpatterns: list[URLPattern | URLResolver] = [
    path("assignments/<int:assignment_id>/next/", api.NextPairView.as_view(), name="assignment-next"),
    path("assignments/<int:assignment_id>/submit/", api.SubmitView.as_view(), name="assignment-submit"),
    *router.urls,
    # LLM pre-labelling
    path("", include("judging.llm.api_urls")),
]
