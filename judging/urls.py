from __future__ import annotations

from django.urls import URLPattern, URLResolver, include, path

from judging import assessor_views, flag_views, views
from judging.lifecycle import views as lifecycle_views
from judging.planning import views as planning_views
from judging.review import views as review_views

app_name = "judging"

urlpatterns: list[URLPattern | URLResolver] = [
    # assessors
    path("judge/", views.queue_page, name="queue"),
    path("judge/<int:assignment_id>/", views.judge, name="judge"),
    path("judge/<int:assignment_id>/submit/", views.submit, name="submit"),
    path("judge/<int:assignment_id>/back/", views.back, name="back"),
    path("judge/<int:assignment_id>/judged/", views.judged, name="judged"),
    path("judge/<int:assignment_id>/judged/<int:pair_id>/", views.judged_pair, name="judged_pair"),
    path("judge/<int:assignment_id>/guidelines-read/", views.guidelines_read, name="guidelines_read"),
    # organizers
    path("organize/campaigns/", views.campaigns, name="campaigns"),
    path("organize/campaigns/<int:campaign_id>/", views.campaign, name="campaign"),
    path("organize/campaigns/<int:campaign_id>/build/", views.campaign_build, name="campaign_build"),
    path("organize/campaigns/<int:campaign_id>/settings/", views.campaign_settings, name="campaign_settings"),
    path("organize/campaigns/<int:campaign_id>/assign/", views.campaign_assign, name="campaign_assign"),
    path("organize/campaigns/<int:campaign_id>/flags/", flag_views.campaign_flags, name="campaign_flags"),
    path("organize/campaigns/<int:campaign_id>/flags.csv", flag_views.campaign_flags_csv, name="campaign_flags_csv"),
    path(
        "organize/campaigns/<int:campaign_id>/cannot-judge/",
        flag_views.campaign_cannot_judge,
        name="campaign_cannot_judge",
    ),
    path(
        "organize/campaigns/<int:campaign_id>/flags/<int:judgment_id>/resolve/",
        flag_views.flag_resolve,
        name="flag_resolve",
    ),
    path(
        "organize/campaigns/<int:campaign_id>/assignments/<int:assignment_id>/remove/",
        views.assignment_remove,
        name="assignment_remove",
    ),
    path(
        "organize/campaigns/<int:campaign_id>/assignments/<int:assignment_id>/move/",
        views.assignment_move,
        name="assignment_move",
    ),
    # assignment by plan; the campaign's lifecycle
    path("organize/campaigns/<int:campaign_id>/plan/", planning_views.plan_preview, name="plan_preview"),
    path("organize/campaigns/<int:campaign_id>/plan/confirm/", planning_views.plan_confirm, name="plan_confirm"),
    path("organize/campaigns/<int:campaign_id>/clone/", lifecycle_views.clone, name="campaign_clone"),
    path("organize/campaigns/<int:campaign_id>/archive/", lifecycle_views.archive, name="campaign_archive"),
    path("organize/campaigns/<int:campaign_id>/restore/", lifecycle_views.restore, name="campaign_restore"),
    path("organize/campaigns/<int:campaign_id>/delete/", lifecycle_views.delete, name="campaign_delete"),
    path("organize/assessors/", assessor_views.assessors, name="assessors"),
    path("organize/assessors/<int:user_id>/active/", assessor_views.assessor_active, name="assessor_active"),
    path("organize/assessors/<int:user_id>/password/", assessor_views.assessor_password, name="assessor_password"),
    # review into final labels (reviewers and organizers)
    path("review/", review_views.review_campaigns, name="review_campaigns"),
    path("review/<int:campaign_id>/", review_views.review_queue_page, name="review"),
    path("review/<int:campaign_id>/<int:pair_id>/final/", review_views.review_final, name="review_final"),
    # LLM pre-labelling (its names stay in this namespace: judging:llm_prelabel, ...)
    path("", include("judging.llm.urls")),
]
