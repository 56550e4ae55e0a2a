from __future__ import annotations

from django.urls import URLPattern, path

from judging.exchange import views

app_name = "exchange"
urlpatterns: list[URLPattern] = [
    path("judgments/import/", views.upload, name="upload"),
    # The address it had under /metrics/ until the exchange got its own: a bookmark or a script still arrives.
    path("metrics/import/", views.upload_moved, name="upload-moved"),
]
