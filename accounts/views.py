"""Views outside the tenancy: the health check (no tenant data is read)."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET

from core.health import health_report


@never_cache
@require_GET
def healthz(request: HttpRequest) -> JsonResponse:
    healthy, report = health_report()
    return JsonResponse(report, status=200 if healthy else 503)
