from __future__ import annotations

from django.urls import URLPattern, path

from assess import views

app_name = "assess"
urlpatterns: list[URLPattern] = []
