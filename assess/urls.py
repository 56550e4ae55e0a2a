from __future__ import annotations

from django.urls import URLPattern, path

from assess import views

app_name = "assess"
urlpatterns: list[URLPattern] = [
    path("", views.dashboard, name="dashboard"),
    path("upload/", views.upload, name="upload"),
    path("imports/<int:job_id>/", views.job, name="job"),
    path("imports/<int:job_id>/resume/", views.job_resume, name="job-resume"),
    path("runs/", views.runs, name="runs"),
    path("topics/", views.topics, name="topics"),
    path("passages/missing/", views.missing, name="missing"),
    path("passages/missing/ids.txt", views.missing_ids, name="missing_ids"),
]
