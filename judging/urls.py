from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from judging import views, views_llm

app_name = "judging"

urlpatterns: list[URLPattern | URLResolver] = [
    # assessors
    path("judge/", views.queue, name="queue"),
    path("judge/<int:assignment_id>/", views.judge, name="judge"),
    path("judge/<int:assignment_id>/submit/", views.submit, name="submit"),
    path("judge/<int:assignment_id>/back/", views.back, name="back"),
    # organizers
    path("organize/campaigns/", views.campaigns, name="campaigns"),
    path("organize/campaigns/<int:campaign_id>/", views.campaign, name="campaign"),
    path("organize/campaigns/<int:campaign_id>/build/", views.campaign_build, name="campaign_build"),
    path("organize/campaigns/<int:campaign_id>/settings/", views.campaign_settings, name="campaign_settings"),
    path("organize/campaigns/<int:campaign_id>/assign/", views.campaign_assign, name="campaign_assign"),
    # Other engineers of this app (LLM pre-labelling, imports) append their page paths below this line.
    # LLM pre-labelling (issue 4)
    path("organize/llm-judges/", views_llm.judges, name="llm_judges"),
    path("organize/campaigns/<int:campaign_id>/prelabel/", views_llm.prelabel, name="llm_prelabel"),
    path("organize/campaigns/<int:campaign_id>/prelabel/start/", views_llm.prelabel_start, name="llm_prelabel_start"),
    path(
        "organize/campaigns/<int:campaign_id>/post-edit-judge/", views_llm.post_edit_judge, name="llm_post_edit_judge"
    ),
    path("organize/prelabel-jobs/<int:job_id>/progress/", views_llm.job_progress, name="llm_job_progress"),
    path("organize/prelabel-jobs/<int:job_id>/retry/", views_llm.job_retry, name="llm_job_retry"),
    path("organize/prelabel-jobs/<int:job_id>/cancel/", views_llm.job_cancel, name="llm_job_cancel"),
    path("organize/prelabel-jobs/<int:job_id>/resume/", views_llm.job_resume, name="llm_job_resume"),
]
