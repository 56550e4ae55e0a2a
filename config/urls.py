from __future__ import annotations

from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.contrib.auth.decorators import login_required
from django.urls import URLPattern, URLResolver, include, path
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from assess import views as assess_views

api_patterns: list[URLPattern | URLResolver] = [
    path("", include("assess.api_urls")),
    path("", include("judging.api_urls")),
    path("", include("metrics.api_urls")),
    path("schema/", SpectacularAPIView.as_view(), name="api-schema"),
    # Behind login like the API (SPECTACULAR_SETTINGS["SERVE_PERMISSIONS"]); a browser is sent to the login page.
    path("docs/", login_required(SpectacularSwaggerView.as_view(url_name="api-schema")), name="api-docs"),
]

urlpatterns = [
    path("", assess_views.home, name="home"),
    path("accounts/login/", auth_views.LoginView.as_view(), name="login"),
    path("accounts/logout/", auth_views.LogoutView.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("organize/", include("assess.urls")),
    path("", include("judging.urls")),
    path("", include("metrics.urls")),
    path("api/", include(api_patterns)),
]
