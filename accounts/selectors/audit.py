"""Reading the audit trail."""

from __future__ import annotations

from django.db.models import QuerySet

from accounts.models import AuditEvent


def audit_events_list(*, action: str | None = None, limit: int = 100) -> QuerySet[AuditEvent]:
    events = AuditEvent.objects.order_by("-created_at", "-id")
    if action:
        events = events.filter(action=action)
    return events[:limit]
