"""What the memory services tell integrators (the events app's outbox, docs/events.md): one event a
change, written in the change's own transaction, carrying ids and metadata, never a memory's content."""

from __future__ import annotations

from typing import Any

from events.models import EventType
from events.services import EventDraft, events_record
from memory.models import Memory


def memory_event(memory: Memory, type: str, **extra: Any) -> EventDraft:
    return EventDraft(
        type=type,
        subject=f"memory:{memory.pk}",
        project_id=memory.project_id,
        data={
            "memory_id": str(memory.pk),
            "project_id": str(memory.project_id),
            "workspace_id": str(memory.workspace_id),
            "layer": memory.layer,
            "kind": memory.kind,
            "status": memory.status,
            "fact_key": memory.fact_key,
            "fact_version": memory.fact_version,
            "source_id": memory.source_id,
            **extra,
        },
    )


def memory_events_record(memories: list[Memory], type: str, **extra: Any) -> None:
    events_record(drafts=[memory_event(m, type, **extra) for m in memories])


def memory_erased_events_record(*, project_of: dict[str, Any], erasure_id: str) -> None:
    """One ``memory.erased`` a memory erased (the row is gone: its id and project only)."""
    events_record(
        drafts=[
            EventDraft(
                type=EventType.MEMORY_ERASED,
                subject=f"memory:{memory_id}",
                project_id=project_id,
                data={"memory_id": memory_id, "project_id": str(project_id), "erasure_id": erasure_id},
            )
            for memory_id, project_id in sorted(project_of.items())
        ]
    )


def guard_rejected_events_record(guard_events: list[Any]) -> None:
    """One ``guard.rejected`` a rejection (saved ``memory.GuardEvent`` rows): what refused it, not the text.
    No project: the feed shows them to the enterprise's admins."""
    events_record(
        drafts=[
            EventDraft(
                type=EventType.GUARD_REJECTED,
                subject=f"guard_event:{g.pk}",
                data={
                    "guard_event_id": g.pk,
                    "tool": g.tool,
                    "reason": g.reason,
                    "decided_by": g.decided_by,
                    "score": g.score,
                },
            )
            for g in guard_events
            if g.action == "reject"
        ]
    )


def transfer_finished_event_record(*, kind: str, transfer: Any) -> None:
    """``import.finished`` or ``export.finished`` (``kind``: "import" or "export"), done or failed."""
    project_id = getattr(transfer, "project_id", None)
    events_record(
        drafts=[
            EventDraft(
                type=EventType.IMPORT_FINISHED if kind == "import" else EventType.EXPORT_FINISHED,
                subject=f"{kind}:{transfer.pk}",
                project_id=project_id,
                data={
                    f"{kind}_id": str(transfer.pk),
                    "state": transfer.state,
                    "project_id": str(project_id) if project_id else None,
                    "error": transfer.error or None,
                },
            )
        ]
    )


__all__ = [
    "EventType",
    "guard_rejected_events_record",
    "memory_erased_events_record",
    "memory_event",
    "memory_events_record",
    "transfer_finished_event_record",
]
