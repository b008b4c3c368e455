"""The one way an audit event is written: inside the caller's transaction."""

from __future__ import annotations

from typing import Any

from django.db import models

from accounts.models import AuditEvent
from core.tenancy import current_tenant


def audit_record(
    *,
    action: str,
    target: models.Model | None = None,
    target_type: str = "",
    target_id: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    event = audit_event_build(
        action=action, target=target, target_type=target_type, target_id=target_id, details=details
    )
    event.save(force_insert=True)
    return event


def audit_event_build(
    *,
    action: str,
    target: models.Model | None = None,
    target_type: str = "",
    target_id: str = "",
    details: dict[str, Any] | None = None,
) -> AuditEvent:
    """The event ``audit_record`` writes, unsaved: a batch writes many with one ``bulk_create``
    (memory.services.batch), in the caller's transaction as ever."""
    ctx = current_tenant()
    if target is not None:
        target_type = target_type or target._meta.label_lower
        target_id = target_id or str(target.pk)
    enterprise_id = ctx.enterprise_id
    if enterprise_id is None and target is not None:
        enterprise_id = getattr(target, "enterprise_id", None)
    return AuditEvent(
        enterprise_id=enterprise_id,  # type: ignore[misc]  # None: the save takes the context's, RLS the rest
        actor_member=ctx.member,
        access_key=ctx.access_key,
        session_key=ctx.session_key[:64],
        door=ctx.door,
        action=action,
        target_type=target_type,
        target_id=target_id,
        request_id=ctx.request_id,
        details=details or {},
    )
