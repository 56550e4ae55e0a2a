from django.urls import path

from . import views

app_name = "kind_sentence"

urlpatterns = [
    path("judge/<int:assignment_id>/", views.judge, name="judge"),
    path("judge/<int:assignment_id>/submit/", views.submit, name="submit"),
]
