"""forget: a soft delete. Gone from every read, kept for the audit trail; summaries flagged.

A memory under a legal hold (memory.services.holds) is not forgotten: the refusal names the hold.
"""

from __future__ import annotations

import uuid

from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, Member
from accounts.services.audit import audit_record
from memory.models import Memory, Status
from memory.services.archivist import archivist_reembed
from memory.services.events import EventType, memory_events_record
from memory.services.holds import hold_check


def memory_forget(
    *, memory: Memory, member: Member, key: AccessKey | None = None, reason: str = ""
) -> list[str]:
    """Forget one memory; returns the ids of memories derived from it, now flagged.

    The access policy decides (the member's write grant on the project now, a folder-bound key's folder).
    """
    access.place_write_check(member=member, key=key, project=memory.project, workspace_id=memory.workspace_id)
    if memory.forgotten_at is None:
        hold_check(memories=[memory.pk], action="forget")
    derived = list(
        Memory.objects.filter(derived_from__contains=[memory.pk], forgotten_at__isnull=True).values_list(
            "pk", flat=True
        )
    )
    if memory.forgotten_at is None:
        memory.forgotten_at = timezone.now()
        memory.status = Status.FORGOTTEN
        memory.save(update_fields=["forgotten_at", "status"])
        Memory.objects.filter(pk__in=derived).update(source_forgotten=True)
        audit_record(
            action="memory.forget",
            target=memory,
            details={"reason": reason[:500], "derived_flagged": [str(d) for d in derived]},
        )
        memory_events_record([memory], EventType.MEMORY_FORGOTTEN)
        archivist_reembed(memory_ids=[memory.pk])  # the memories whose context it was
    return sorted(str(d) for d in derived)


def memories_forget_many(*, memory_ids: list[uuid.UUID]) -> tuple[int, int]:
    """Forget many memories at once, as ``memory_forget`` forgets one (status, time, derived summaries
    flagged), for retention: the caller checked the holds and audits the batch. Returns (forgotten,
    flagged); memories forgotten already are left as they are."""
    now = timezone.now()
    going = list(Memory.objects.filter(pk__in=memory_ids, forgotten_at__isnull=True))
    forgotten = Memory.objects.filter(pk__in=[m.pk for m in going], forgotten_at__isnull=True).update(
        forgotten_at=now, status=Status.FORGOTTEN
    )
    for memory in going:
        memory.status = Status.FORGOTTEN
    memory_events_record(going, EventType.MEMORY_FORGOTTEN, by="retention")
    archivist_reembed(memory_ids=[m.pk for m in going])  # the memories whose context they were
    flagged = (
        Memory.objects.filter(derived_from__overlap=list(memory_ids), forgotten_at__isnull=True)
        .exclude(source_forgotten=True)
        .update(source_forgotten=True)
    )
    return forgotten, flagged
