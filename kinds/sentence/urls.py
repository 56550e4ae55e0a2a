from django.urls import path

from . import views

app_name = "kind_sentence"

urlpatterns = [
    path("judge/<int:assignment_id>/", views.judge, name="judge"),
    path("judge/<int:assignment_id>/submit/", views.submit, name="submit"),
    path("campaign/<int:campaign_id>/", views.campaign_page, name="campaign"),
    path("campaign/<int:campaign_id>/panel/", views.panel, name="panel"),
    path("campaign/<int:campaign_id>/export/", views.export, name="export"),
]
