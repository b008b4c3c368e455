"""Writes of the events app: record events (in the caller's transaction), dispatch them to webhook
endpoints, deliver them, replay a delivery, and manage endpoints (owners and admins; audited).

The order of events (``events.selectors.SETTLED``): each event row carries the id of the transaction that
wrote it (``txid``); readers take only events of transactions older than every one still running, ordered
by (txid, id). A transaction that commits late therefore never slips in behind a cursor already past it.
"""

from __future__ import annotations

import ipaddress
import json
import logging
import socket
import time
import uuid
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from datetime import timedelta
from typing import Any
from urllib.parse import urlsplit

import httpx
from django.conf import settings
from django.core.mail import send_mail
from django.db import transaction
from django.db.models import Count, Min, Q
from django.utils import timezone

from accounts import access
from accounts.models import Member, OrgRole
from accounts.services.audit import audit_record
from accounts.services.jobs import job_record
from core.errors import Forbidden, InvalidInput, NotFound, Unprocessable
from core.metrics import WEBHOOK_DELIVERIES
from core.tenancy import TenantContextMissing, current_tenant
from events.models import (
    DeliveryState,
    DispatchCursor,
    Event,
    EventType,
    WebhookAttempt,
    WebhookDelivery,
    WebhookEndpoint,
)
from events.selectors import SETTLED, event_payload
from events.signing import secret_new, secret_open, secret_seal, signed_headers

logger = logging.getLogger(__name__)

DISPATCH_BATCH = 500
URL_MAX = 2000
WRONG_URL = "the webhook URL must be an http:// or https:// address of at most 2,000 characters"
WRONG_TYPES = "event_types must be a list of: " + ", ".join(EventType.values)


@dataclass(frozen=True)
class EventDraft:
    type: str
    subject: str
    project_id: Any = None
    data: dict[str, Any] | None = None


def event_record(
    *, type: str, subject: str, project_id: Any = None, data: dict[str, Any] | None = None
) -> None:
    """One event, in the caller's transaction (it is gone if that rolls back)."""
    events_record(drafts=[EventDraft(type, subject, project_id, data)])


def events_record(*, drafts: Sequence[EventDraft]) -> None:
    """Many events in one statement (a batch write's), and, when the enterprise has an active endpoint,
    one dispatch job in the same transaction."""
    if not drafts:
        return
    ctx = current_tenant()
    enterprise_id = ctx.enterprise_id
    if enterprise_id is None:
        raise TenantContextMissing("an event is recorded only in its enterprise's tenant context")
    Event.objects.bulk_create(
        [
            Event(
                enterprise_id=enterprise_id,
                type=d.type,
                subject=d.subject,
                project_id=d.project_id,
                data=d.data or {},
                request_id=ctx.request_id or "",
            )
            for d in drafts
        ]
    )
    if WebhookEndpoint.objects.filter(active=True).exists():
        job_record(task="events.dispatch", kwargs={})


def events_dispatch() -> int:
    """The dispatch job's body: the settled events after the enterprise's cursor become deliveries, one
    an active endpoint that wants the type and existed when the event happened; each is sent as a job.
    Idempotent: the cursor moves in the same transaction (a second run finds nothing new)."""
    enterprise_id = current_tenant().enterprise_id
    if enterprise_id is None:
        raise TenantContextMissing("events are dispatched only in their enterprise's tenant context")
    DispatchCursor.objects.bulk_create([DispatchCursor(enterprise_id=enterprise_id)], ignore_conflicts=True)
    cursor = DispatchCursor.objects.select_for_update().get()
    events = list(
        Event.objects.filter(
            SETTLED, Q(txid__gt=cursor.last_txid) | Q(txid=cursor.last_txid, id__gt=cursor.last_event_id)
        ).order_by("txid", "id")[:DISPATCH_BATCH]
    )
    if not events:
        return 0
    endpoints = list(WebhookEndpoint.objects.filter(active=True))
    now = timezone.now()
    deliveries = [
        WebhookDelivery(enterprise_id=enterprise_id, endpoint=e, event=ev, next_attempt_at=now)
        for ev in events
        for e in endpoints
        if e.wants(ev.type) and ev.created_at >= e.created_at
    ]
    WebhookDelivery.objects.bulk_create(deliveries, ignore_conflicts=True)
    for delivery in deliveries:
        job_record(task="events.deliver", kwargs={"delivery_id": str(delivery.pk)})
    cursor.last_txid, cursor.last_event_id = events[-1].txid, events[-1].pk
    cursor.save(update_fields=["last_txid", "last_event_id"])
    if len(events) == DISPATCH_BATCH:
        job_record(task="events.dispatch", kwargs={})
    return len(deliveries)


# ------------------------------------------------------------------------------------------- delivery


def retry_delay(attempts: int, retry_after: float | None = None) -> timedelta:
    """After the ``attempts``-th failed try: the base times 4^(attempts - 1) (5 s, 20 s, 80 s, ~5 min,
    ~21 min by default), or the receiver's Retry-After when it asks for longer, capped at a day."""
    wait = settings.WEBHOOK_RETRY_BASE_SECONDS * 4 ** max(attempts - 1, 0)
    if retry_after is not None:
        wait = max(wait, retry_after)
    return timedelta(seconds=min(wait, 86400))


def _private_address(url: str) -> str | None:
    """Why a URL may not be called (its host resolves to a loopback, private or link-local address), or None."""
    if settings.WEBHOOK_ALLOW_PRIVATE_NETWORKS:
        return None
    host = urlsplit(url).hostname or ""
    try:
        infos = socket.getaddrinfo(host, None)
    except OSError as exc:
        return f"cannot resolve {host}: {exc}"
    for info in infos:
        address = ipaddress.ip_address(info[4][0])
        if address.is_private or address.is_loopback or address.is_link_local or address.is_reserved:
            return f"{host} resolves to a non-public address ({address})"
    return None


def _retry_after(response: httpx.Response) -> float | None:
    value = response.headers.get("Retry-After", "")
    try:
        return max(0.0, float(value))
    except ValueError:
        return None


def webhook_deliver(*, delivery_id: str) -> str:
    """The delivery job's body: one signed POST, its outcome logged; the next try or the end decided."""
    delivery = (
        WebhookDelivery.objects.select_for_update(of=("self",))
        .select_related("endpoint", "event")
        .filter(pk=delivery_id)
        .first()
    )
    if delivery is None or delivery.state != DeliveryState.PENDING:
        return "nothing to do"
    endpoint, event = delivery.endpoint, delivery.event
    if not endpoint.active:
        delivery.state, delivery.last_error = DeliveryState.FAILED, "the endpoint is disabled"
        delivery.save(update_fields=["state", "last_error"])
        WEBHOOK_DELIVERIES.labels("endpoint_disabled").inc()
        return "endpoint disabled"
    earlier = WebhookDelivery.objects.filter(
        Q(event__txid__lt=event.txid) | Q(event__txid=event.txid, event_id__lt=event.pk),
        endpoint=endpoint,
        state=DeliveryState.PENDING,
        event__subject=event.subject,
    ).aggregate(count=Count("pk"), next_try=Min("next_attempt_at"))
    if earlier["count"]:  # this subject's earlier events reach the endpoint first
        # Looked at again a second after the earliest of them is tried (not every second while it backs off).
        wait = max(timedelta(), (earlier["next_try"] or timezone.now()) - timezone.now()) + timedelta(
            seconds=1
        )
        job_record(task="events.deliver", kwargs={"delivery_id": str(delivery.pk)}, delay=wait)
        return "waiting for an earlier event"
    # The first try after a person's replay is logged as one (a replay starts the count again).
    return _attempt(delivery, replay=delivery.replayed_at is not None and delivery.attempts == 0)


def _attempt(delivery: WebhookDelivery, *, replay: bool) -> str:
    endpoint, event = delivery.endpoint, delivery.event
    body = json.dumps(event_payload(event), separators=(",", ":"), sort_keys=True)
    now = timezone.now()
    status: int | None = None
    error = _private_address(endpoint.url) or ""
    retry_after = None
    started = time.monotonic()
    if not error:
        headers = {
            "content-type": "application/json",
            "user-agent": "Mnemos-Webhooks/1",
            **signed_headers(
                secret=secret_open(endpoint.secret_encrypted),
                message_id=delivery.message_id,
                timestamp=now,
                body=body,
            ),
        }
        try:
            response = httpx.post(
                endpoint.url,
                content=body.encode(),
                headers=headers,
                timeout=settings.WEBHOOK_TIMEOUT_SECONDS,
                follow_redirects=False,
            )
            status = response.status_code
            if not 200 <= status < 300:
                error = f"the receiver answered {status}"
                retry_after = _retry_after(response)
        except httpx.HTTPError as exc:
            error = f"{type(exc).__name__}: {exc}"[:500]
    WebhookAttempt.objects.create(
        enterprise_id=delivery.enterprise_id,
        delivery=delivery,
        status=status,
        error=error[:500],
        duration_ms=int((time.monotonic() - started) * 1000),
        replay=replay,
    )
    delivery.attempts += 1
    delivery.last_status, delivery.last_error = status, error[:500]
    if not error:
        delivery.state, delivery.delivered_at, delivery.next_attempt_at = DeliveryState.DELIVERED, now, None
        delivery.save()
        if endpoint.consecutive_failures:
            WebhookEndpoint.objects.filter(pk=endpoint.pk).update(consecutive_failures=0)
        WEBHOOK_DELIVERIES.labels("delivered").inc()
        return "delivered"
    if delivery.attempts < settings.WEBHOOK_MAX_ATTEMPTS:
        wait = retry_delay(delivery.attempts, retry_after)
        delivery.next_attempt_at = now + wait
        delivery.save()
        job_record(task="events.deliver", kwargs={"delivery_id": str(delivery.pk)}, delay=wait)
        WEBHOOK_DELIVERIES.labels("retrying").inc()
        return "retrying"
    delivery.state, delivery.next_attempt_at = DeliveryState.FAILED, None
    delivery.save()
    _failed_in_a_row(endpoint)
    WEBHOOK_DELIVERIES.labels("failed").inc()
    return "failed"


def _failed_in_a_row(endpoint: WebhookEndpoint) -> None:
    endpoint.consecutive_failures += 1
    fields = ["consecutive_failures"]
    if endpoint.consecutive_failures >= settings.WEBHOOK_DISABLE_AFTER and endpoint.active:
        endpoint.active = False
        endpoint.disabled_at = timezone.now()
        endpoint.disabled_reason = f"{endpoint.consecutive_failures} deliveries in a row failed"
        fields += ["active", "disabled_at", "disabled_reason"]
        # The admins are told: the audit trail, the console's Webhooks page, and a mail once this commits.
        audit_record(action="webhook.disabled", target=endpoint, details={"reason": endpoint.disabled_reason})
        _tell_admins(endpoint)
    endpoint.save(update_fields=fields)


def _tell_admins(endpoint: WebhookEndpoint) -> None:
    """A mail to the enterprise's active owners and admins with an address, sent once the transaction
    commits (none when it rolls back). A failing mail server is logged, never raised: the endpoint stays
    disabled either way, and the console shows it."""
    recipients = sorted(
        set(
            Member.objects.filter(
                enterprise_id=endpoint.enterprise_id,
                is_active=True,
                org_role__in=[OrgRole.OWNER, OrgRole.ADMIN],
            )
            .exclude(user__email="")
            .values_list("user__email", flat=True)
        )
    )
    if not recipients:
        return
    body = (
        f"Mnemos disabled the webhook to {endpoint.url}: {endpoint.disabled_reason}.\n\n"
        "Fix the receiver, then enable the webhook again in the console (Webhooks) or with "
        'PATCH /v1/webhooks/<id> {"active": true}. Deliveries that failed can be replayed from its page.\n'
    )
    endpoint_id = str(endpoint.pk)

    def send() -> None:
        try:
            send_mail("Mnemos: a webhook was disabled", body, None, recipients)
        except Exception:  # any mail server failure: logged, and the job that disabled the endpoint stands
            logger.warning("webhook.disabled_mail_failed", exc_info=True, extra={"endpoint_id": endpoint_id})

    transaction.on_commit(send)


def webhook_delivery_replay(*, member: Member, delivery_id: uuid.UUID | str) -> WebhookDelivery:
    """A person's replay: the same event, the same ``webhook-id``, sent again now and retried as new."""
    _may_manage(member)
    delivery = WebhookDelivery.objects.select_for_update().filter(pk=_uuid(delivery_id, "delivery")).first()
    if delivery is None:
        raise NotFound("delivery not found")
    now = timezone.now()
    delivery.state, delivery.attempts, delivery.next_attempt_at = DeliveryState.PENDING, 0, now
    delivery.replayed_at = now
    delivery.save(update_fields=["state", "attempts", "next_attempt_at", "replayed_at"])
    job_record(task="events.deliver", kwargs={"delivery_id": str(delivery.pk)})
    audit_record(action="webhook.replay", target=delivery, details={"endpoint": str(delivery.endpoint_id)})
    return delivery


# ------------------------------------------------------------------------------------------ endpoints


def _may_manage(member: Member) -> None:
    if not access.member_may_manage(member):
        raise Forbidden("only the enterprise's owners and admins manage webhooks", code="forbidden")


def _uuid(value: Any, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError:
        raise NotFound(f"{what} not found") from None


def _checked_url(url: str) -> str:
    try:
        parts = urlsplit(url.strip()) if isinstance(url, str) else None
    except ValueError:  # the published shape, but a [host] that is no IPv6 address: unprocessable (422)
        raise Unprocessable(WRONG_URL, code="invalid_input") from None
    if parts is None or parts.scheme not in ("http", "https") or not parts.hostname or len(url) > URL_MAX:
        raise InvalidInput(WRONG_URL, code="invalid_input")
    return url.strip()


def _checked_types(types: Iterable[str] | None) -> list[str]:
    chosen = sorted(set(types or []))
    if any(t not in EventType.values for t in chosen):
        raise InvalidInput(WRONG_TYPES, code="invalid_input")
    return chosen


def webhook_endpoint_create(
    *, member: Member, url: str, event_types: Iterable[str] | None = None, description: str = ""
) -> tuple[WebhookEndpoint, str]:
    """A new endpoint and its signing secret (returned this once; audited without it)."""
    _may_manage(member)
    secret = secret_new()
    endpoint = WebhookEndpoint.objects.create(
        url=_checked_url(url),
        event_types=_checked_types(event_types),
        description=(description or "")[:200],
        secret_encrypted=secret_seal(secret),
    )
    audit_record(
        action="webhook.create",
        target=endpoint,
        details={"url": endpoint.url, "event_types": endpoint.event_types},
    )
    return endpoint, secret


def webhook_endpoint_update(
    *,
    member: Member,
    endpoint_id: uuid.UUID | str,
    url: str | None = None,
    event_types: Iterable[str] | None = None,
    description: str | None = None,
    active: bool | None = None,
    rotate_secret: bool = False,
) -> tuple[WebhookEndpoint, str | None]:
    """Change an endpoint; enabling it again clears its failure count; a rotated secret is returned once."""
    _may_manage(member)
    endpoint = WebhookEndpoint.objects.select_for_update().filter(pk=_uuid(endpoint_id, "webhook")).first()
    if endpoint is None:
        raise NotFound("webhook not found")
    changes: dict[str, Any] = {}
    if url is not None:
        endpoint.url = changes["url"] = _checked_url(url)
    if event_types is not None:
        endpoint.event_types = changes["event_types"] = _checked_types(event_types)
    if description is not None:
        endpoint.description = changes["description"] = description[:200]
    if active is not None and active != endpoint.active:
        endpoint.active = changes["active"] = active
        endpoint.consecutive_failures, endpoint.disabled_at, endpoint.disabled_reason = (
            0,
            (None if active else timezone.now()),
            ("" if active else "disabled by a person"),
        )
    secret = None
    if rotate_secret:
        secret = secret_new()
        endpoint.secret_encrypted = secret_seal(secret)
        changes["secret"] = "rotated"
    endpoint.save()
    audit_record(action="webhook.update", target=endpoint, details=changes)
    return endpoint, secret


def webhook_endpoint_delete(*, member: Member, endpoint_id: uuid.UUID | str) -> None:
    _may_manage(member)
    endpoint = WebhookEndpoint.objects.filter(pk=_uuid(endpoint_id, "webhook")).first()
    if endpoint is None:
        raise NotFound("webhook not found")
    audit_record(action="webhook.delete", target=endpoint, details={"url": endpoint.url})
    endpoint.delete()
