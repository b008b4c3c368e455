"""Webhooks: the enterprise's endpoints (owners and admins add, change, disable, delete; auditors read),
one endpoint's deliveries with their log, and a replay for each (docs/events.md)."""

from __future__ import annotations

from django.http import HttpResponse
from django.shortcuts import redirect, render
from django.views.decorators.http import require_GET, require_POST

from console.decorators import attempt, console_view, forbidden, may_manage, not_found, sees_everything
from console.types import ConsoleRequest
from events.models import EventType, WebhookEndpoint
from events.selectors import event_payload, webhook_attempts, webhook_deliveries, webhook_endpoints
from events.services import (
    webhook_delivery_replay,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_update,
)

OVERSIGHT_ONLY = "Only the enterprise's owners, admins and auditors see its webhooks."
MANAGERS_ONLY = "Only the enterprise's owners and admins change its webhooks."


def _list(
    request: ConsoleRequest,
    *,
    error: str = "",
    secret: str = "",
    made: WebhookEndpoint | None = None,
    status: int = 200,
) -> HttpResponse:
    endpoints = list(webhook_endpoints())
    context = {
        "endpoints": endpoints,
        "disabled": [e for e in endpoints if not e.active and e.disabled_reason],
        "types": EventType.choices,
        "may_manage": may_manage(request),
        "error": error,
        "secret": secret,
        "made": made,
    }
    return render(request, "console/webhooks.html", context, status=status)


@require_GET
@console_view
def webhooks(request: ConsoleRequest) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    return _list(request)


@require_POST
@console_view
def webhook_create(request: ConsoleRequest) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, MANAGERS_ONLY)
    made, error = attempt(
        lambda: webhook_endpoint_create(
            member=request.member,
            url=request.POST.get("url", ""),
            event_types=request.POST.getlist("event_types"),
            description=request.POST.get("description", ""),
        )
    )
    if error is not None or made is None:
        return _list(
            request, error=error.message if error else "", status=error.http_status if error else 400
        )
    endpoint, secret = made
    return _list(request, secret=secret, made=endpoint)  # the secret is shown this once


@require_POST
@console_view
def webhook_toggle(request: ConsoleRequest, webhook_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, MANAGERS_ONLY)
    active = request.POST.get("active") == "on"
    _, error = attempt(
        lambda: webhook_endpoint_update(member=request.member, endpoint_id=webhook_id, active=active)
    )
    if error is not None:
        return _list(request, error=error.message, status=error.http_status)
    return _list(request) if request.htmx else redirect("console:webhooks")


@require_POST
@console_view
def webhook_delete(request: ConsoleRequest, webhook_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, MANAGERS_ONLY)
    _, error = attempt(lambda: webhook_endpoint_delete(member=request.member, endpoint_id=webhook_id))
    if error is not None:
        return _list(request, error=error.message, status=error.http_status)
    return _list(request) if request.htmx else redirect("console:webhooks")


def _deliveries(
    request: ConsoleRequest, endpoint: WebhookEndpoint, *, error: str = "", status: int = 200
) -> HttpResponse:
    rows = [
        {"delivery": d, "event": event_payload(d.event), "log": webhook_attempts(delivery=d)}
        for d in webhook_deliveries(endpoint_id=endpoint.pk, limit=50)
    ]
    context = {"endpoint": endpoint, "rows": rows, "may_manage": may_manage(request), "error": error}
    return render(request, "console/webhook.html", context, status=status)


def _endpoint(webhook_id: str) -> WebhookEndpoint | None:
    try:
        return webhook_endpoints().filter(pk=webhook_id).first()
    except Exception:  # noqa: BLE001 - a malformed id is "not found", like a missing one
        return None


@require_GET
@console_view
def webhook(request: ConsoleRequest, webhook_id: str) -> HttpResponse:
    if not sees_everything(request):
        return forbidden(request, OVERSIGHT_ONLY)
    endpoint = _endpoint(webhook_id)
    if endpoint is None:
        return not_found(request, "There is no such webhook in this enterprise.")
    return _deliveries(request, endpoint)


@require_POST
@console_view
def webhook_replay(request: ConsoleRequest, webhook_id: str, delivery_id: str) -> HttpResponse:
    if not may_manage(request):
        return forbidden(request, MANAGERS_ONLY)
    endpoint = _endpoint(webhook_id)
    if endpoint is None:
        return not_found(request, "There is no such webhook in this enterprise.")
    _, error = attempt(lambda: webhook_delivery_replay(member=request.member, delivery_id=delivery_id))
    if error is not None:
        return _deliveries(request, endpoint, error=error.message, status=error.http_status)
    return _deliveries(request, endpoint) if request.htmx else redirect("console:webhook", webhook_id)
