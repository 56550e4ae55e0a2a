from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import SimpleRouter

from judging import api
from judging.review import api as review_api

router = SimpleRouter()
router.register("campaigns", api.CampaignViewSet, basename="campaign")
router.register("assignments", api.AssignmentViewSet, basename="assignment")
router.register("judgments", api.JudgmentViewSet, basename="judgment")

urlpatterns: list[URLPattern | URLResolver] = [
    path("assignments/<int:assignment_id>/next/", api.NextPairView.as_view(), name="assignment-next"),
    path("assignments/<int:assignment_id>/submit/", api.SubmitView.as_view(), name="assignment-submit"),
    path("campaigns/<int:campaign_id>/review/", review_api.ReviewQueueView.as_view(), name="review-queue"),
    path("campaigns/<int:campaign_id>/review/<int:pair_id>/", review_api.ReviewPairView.as_view(), name="review-pair"),
    path(
        "campaigns/<int:campaign_id>/review/<int:pair_id>/final/",
        review_api.FinalLabelView.as_view(),
        name="review-final",
    ),
    *router.urls,
    # LLM pre-labelling
    path("", include("judging.llm.api_urls")),
]
