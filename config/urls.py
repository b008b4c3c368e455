from __future__ import annotations

from django.urls import include, path
from django.views.generic import RedirectView
from drf_spectacular.views import SpectacularAPIView, SpectacularSwaggerView

from accounts.admin import site as admin_site
from accounts.views import healthz
from core.metrics_http import metrics_view

# Under /v1/ a path no route matches (a malformed id included) is the API's JSON 404, and the
# last-resort 400 and 500 are JSON too; elsewhere Django's pages.
handler400 = "accounts.api.v1.base.bad_request"
handler404 = "accounts.api.v1.base.not_found"
handler500 = "accounts.api.v1.base.server_error"

urlpatterns = [
    # A person who opens the server's address lands in the console (its sign-in when signed out).
    path("", RedirectView.as_view(pattern_name="console:home"), name="root"),
    path("healthz", healthz, name="healthz"),
    path("metrics", metrics_view, name="metrics"),
    path("admin/", admin_site.urls),
    path("v1/", include(("accounts.api.v1.urls", "accounts"), namespace="v1-accounts")),
    path("v1/", include(("memory.api.v1.urls", "memory"), namespace="v1-memory")),
    path("v1/", include(("events.api.v1.urls", "events"), namespace="v1-events")),
    path("v1/", include(("partners.api.v1.urls", "partners"), namespace="v1-partners")),
    path("console/", include(("console.urls", "console"), namespace="console")),
    path("v1/schema/", SpectacularAPIView.as_view(), name="schema"),
    path("v1/docs/", SpectacularSwaggerView.as_view(url_name="schema"), name="api-docs"),
]
