"""Pages of LLM pre-labelling. Included by `judging.urls`, so their names are in the `judging` namespace."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, path

from judging.llm import views

urlpatterns: list[URLPattern | URLResolver] = [
    path("organize/llm-judges/", views.judges, name="llm_judges"),
    path("organize/llm-prompts/<str:version>/", views.prompt, name="llm_prompt"),
    path("organize/campaigns/<int:campaign_id>/prelabel/", views.prelabel, name="llm_prelabel"),
    path("organize/campaigns/<int:campaign_id>/prelabel/jobs/", views.prelabel_jobs, name="llm_prelabel_jobs"),
    path("organize/llm-judges/<int:judge_id>/check/", views.judge_connection_check, name="llm_judge_check"),
    path("organize/campaigns/<int:campaign_id>/prelabel/start/", views.prelabel_start, name="llm_prelabel_start"),
    path("organize/campaigns/<int:campaign_id>/post-edit-judge/", views.post_edit_judge, name="llm_post_edit_judge"),
    path("organize/prelabel-jobs/<int:job_id>/progress/", views.job_progress, name="llm_job_progress"),
    path("organize/prelabel-jobs/<int:job_id>/retry/", views.job_retry, name="llm_job_retry"),
    path("organize/prelabel-jobs/<int:job_id>/cancel/", views.job_cancel, name="llm_job_cancel"),
    path("organize/prelabel-jobs/<int:job_id>/resume/", views.job_resume, name="llm_job_resume"),
]
