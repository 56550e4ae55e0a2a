from __future__ import annotations

from django.urls import URLPattern, path

from assess import api

app_name = "assess_api"
urlpatterns: list[URLPattern] = [
    path("topics/", api.TopicListApi.as_view(), name="topic-list"),
    path("topics/<str:topic_id>/", api.TopicDetailApi.as_view(), name="topic-detail"),
    path("runs/", api.RunListApi.as_view(), name="run-list"),
    path("runs/<str:run_id>/", api.RunDetailApi.as_view(), name="run-detail"),
    path("passages/missing/", api.MissingPassageListApi.as_view(), name="passages-missing"),
    path("imports/", api.ImportJobListApi.as_view(), name="import-job-list"),
    path("imports/topics/", api.TopicsUploadApi.as_view(), name="upload-topics"),
    path("imports/passages/", api.PassagesUploadApi.as_view(), name="upload-passages"),
    path("imports/runs/", api.RunsUploadApi.as_view(), name="upload-runs"),
    path("imports/<int:job_id>/", api.ImportJobDetailApi.as_view(), name="import-job"),
    path("imports/<int:job_id>/resume/", api.ImportJobResumeApi.as_view(), name="import-job-resume"),
]
