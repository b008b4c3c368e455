"""Reading the audit trail."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.errors import NotFound
from accounts.models import AuditEvent


def audit_events_list(*, action: str | None = None, limit: int = 100) -> QuerySet[AuditEvent]:
    events = AuditEvent.objects.order_by("-created_at", "-id")
    if action:
        events = events.filter(action=action)
    return events[:limit]


def audit_event_get(*, event_id: int) -> AuditEvent:
    event = AuditEvent.objects.filter(pk=event_id).first()
    if event is None:
        raise NotFound(f"audit event {event_id} not found", code="not_found")
    return event
