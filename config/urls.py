from __future__ import annotations

from typing import Any

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.http import HttpRequest
from django.http.response import HttpResponseBase
from django.urls import URLPattern, URLResolver, include, path
from django.views import View
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from assess import views as assess_views


class ApiDocsView(SpectacularSwaggerView):
    """The Swagger UI page. OPTIONS answers as any Django view does (200, the allowed methods): DRF's answer, API
    metadata, has no template on this HTML page and failed (a 500)."""

    def options(self, request: HttpRequest, *args: Any, **kwargs: Any) -> HttpResponseBase:  # type: ignore[override]
        return View.options(self, request, *args, **kwargs)


api_patterns: list[URLPattern | URLResolver] = [
    path("", include("assess.api_urls")),
    path("", include("judging.api_urls")),
    path("", include("metrics.api_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Behind login like the API (SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]); a browser is sent to the login page.
    path("docs/", login_required(ApiDocsView.as_view(url_name="api-schema")), name="api-docs"),
]

urlpatterns = [
    path("", assess_views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("organize/", include("assess.urls")),
    path("", include("judging.urls")),
    path("", include("judging.exchange.urls")),
    path("", include("metrics.urls")),
    path("kinds/sentence/", include("kinds.sentence.urls")),
    path("kinds/relevance/", include("kinds.relevance.urls")),
    path("api/", include(api_patterns)),
]

# Every failure of the request cycle: JSON under /api/, and an unreachable database or Redis is a 503 (errors.py).
handler400 = "config.errors.bad_request"
handler404 = "config.errors.page_not_found"
handler500 = "config.errors.server_error"
