from __future__ import annotations

from django.urls import path

from kinds.relevance import views

app_name = "kind_relevance"

urlpatterns = [
    path("judge/<int:assignment_id>/", views.judge_page, name="judge"),
    path("judge/<int:assignment_id>/submit/", views.submit, name="submit"),
    path("campaigns/<int:campaign_id>/qrels/", views.qrels_download, name="qrels"),
    path("campaigns/<int:campaign_id>/report/", views.report_panel, name="report"),
]
