from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path
from rest_framework.routers import SimpleRouter

from judging import api
from judging.lifecycle import api as lifecycle_api
from judging.planning import api as planning_api
from judging.review import api as review_api

router = SimpleRouter()
router.register("campaigns", api.CampaignViewSet, basename="campaign")
router.register("assignments", api.AssignmentViewSet, basename="assignment")
router.register("judgments", api.JudgmentViewSet, basename="judgment")

urlpatterns: list[URLPattern | URLResolver] = [
    path("assignments/<int:assignment_id>/next/", api.NextPairView.as_view(), name="assignment-next"),
    path("assignments/<int:assignment_id>/submit/", api.SubmitView.as_view(), name="assignment-submit"),
    path(
        "campaigns/<int:campaign_id>/assign-plan/", planning_api.AssignPlanView.as_view(), name="campaign-assign-plan"
    ),
    path("campaigns/<int:campaign_id>/clone/", lifecycle_api.CloneView.as_view(), name="campaign-clone"),
    path("campaigns/<int:campaign_id>/archive/", lifecycle_api.ArchiveView.as_view(), name="campaign-archive"),
    path("campaigns/<int:campaign_id>/restore/", lifecycle_api.RestoreView.as_view(), name="campaign-restore"),
    path("campaigns/<int:campaign_id>/delete/", lifecycle_api.DeleteView.as_view(), name="campaign-delete"),
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
