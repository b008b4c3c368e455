"""Every API and console URL goes through a tenant door (or is a named exception)."""

from __future__ import annotations

from django.urls import URLPattern, URLResolver, get_resolver

from accounts.admin import AuditorAdminSite
from accounts.api.v1.base import TenantAPIView

# URL names outside the tenancy, each with the reason.
OUTSIDE_THE_DOORS = {
    "healthz",  # reads no tenant data: SELECT on pg_extension, broker and worker pings
    "metrics",  # counters, and two totals from a function that returns numbers only (core/metrics_http.py)
    "schema",  # the OpenAPI document, the same for everyone
    "api-docs",  # the page that renders it
    "login",  # the admin and console sign-in forms: check a (global) user, show no tenant data
    "logout",  # ends a session
    "root",  # / redirects to the console, whose own door then applies
}


def _walk(patterns, prefix=""):
    for p in patterns:
        if isinstance(p, URLResolver):
            yield from _walk(p.url_patterns, prefix + str(p.pattern))
        elif isinstance(p, URLPattern):
            yield prefix + str(p.pattern), p


def _goes_through_a_door(callback) -> bool:
    # Admin views call site.admin_view() at request time; the auditor site's enters the door.
    site = getattr(callback, "admin_site", None) or getattr(
        getattr(callback, "model_admin", None), "admin_site", None
    )
    if isinstance(site, AuditorAdminSite):
        return True
    view_class = getattr(callback, "view_class", None) or getattr(callback, "cls", None)
    if view_class is not None and (
        issubclass(view_class, TenantAPIView) or getattr(view_class, "tenant_door", False)
    ):
        # TenantAPIView is the REST door; tenant_door views hand every call to the tool door.
        return True
    return bool(getattr(callback, "tenant_door", False))


def test_every_url_goes_through_a_tenant_door():
    unguarded = []
    for route, pattern in _walk(get_resolver().url_patterns):
        if pattern.name in OUTSIDE_THE_DOORS:
            continue
        if not _goes_through_a_door(pattern.callback):
            unguarded.append(route)
    assert unguarded == []
