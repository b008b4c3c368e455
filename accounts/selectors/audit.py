"""Reading the audit trail."""

from __future__ import annotations

import base64
import binascii
from dataclasses import dataclass
from datetime import datetime

from django.db.models import Q

from accounts.models import AuditEvent
from core.errors import InvalidInput, NotFound, Unprocessable

AUDIT_PAGE_DEFAULT = 50
AUDIT_PAGE_MAX = 500
BAD_LIMIT = f"limit must be an integer from 1 to {AUDIT_PAGE_MAX}"
BAD_CURSOR = "cursor is not one this list handed out: follow the next link as it is"
# AuditEvent.id is a bigint: a larger id names no event (and would not fit the query).
_BIGINT_MAX = 2**63 - 1


@dataclass(frozen=True)
class AuditPage:
    events: list[AuditEvent]
    # Where the next page starts; None on the last page.
    next_cursor: str | None


def audit_events_list(
    *, action: str | None = None, limit: int = AUDIT_PAGE_DEFAULT, cursor: str | None = None
) -> AuditPage:
    """One page of audit events, newest first, in one query (actor and key joined, since each row
    names them).

    Keyset pagination on (created_at, id): a page costs the same however deep it is, and events
    written while a reader pages through never shift or repeat the rows it has yet to see.
    """
    if not 1 <= limit <= AUDIT_PAGE_MAX:
        raise InvalidInput(BAD_LIMIT, code="invalid_input")
    events = AuditEvent.objects.select_related("actor_member__user", "access_key").order_by(
        "-created_at", "-id"
    )
    if action:
        events = events.filter(action=action)
    if cursor:
        created_at, event_id = _cursor_position(cursor)
        events = events.filter(Q(created_at__lt=created_at) | Q(created_at=created_at, id__lt=event_id))
    # One row past the page says whether another page follows, without a count.
    rows = list(events[: limit + 1])
    if len(rows) <= limit:
        return AuditPage(events=rows, next_cursor=None)
    last = rows[limit - 1]
    return AuditPage(events=rows[:limit], next_cursor=_cursor_for(last))


def audit_event_get(*, event_id: int) -> AuditEvent:
    event = AuditEvent.objects.filter(pk=event_id).first() if 0 < event_id <= _BIGINT_MAX else None
    if event is None:
        raise NotFound(f"audit event {event_id} not found", code="not_found")
    return event


def _cursor_for(event: AuditEvent) -> str:
    raw = f"{event.created_at.isoformat()}|{event.id}".encode()
    return base64.urlsafe_b64encode(raw).decode().rstrip("=")


def _cursor_position(cursor: str) -> tuple[datetime, int]:
    # A string (what the schema asks) that names no position: 422, as the API answers a well-formed
    # value its rules refuse (a limit out of range breaks the schema itself: 400).
    # Opaque to clients, but not a secret: a made-up position only moves where the page starts,
    # and rows stay those of the caller's enterprise (the tenant filter and RLS).
    try:
        raw = base64.urlsafe_b64decode(cursor + "=" * (-len(cursor) % 4)).decode()
        stamp, _, event_id = raw.partition("|")
        created_at, position = datetime.fromisoformat(stamp), int(event_id)
    except (binascii.Error, UnicodeDecodeError, ValueError) as exc:
        raise Unprocessable(BAD_CURSOR, code="invalid_cursor") from exc
    if created_at.tzinfo is None or not 0 < position <= _BIGINT_MAX:
        raise Unprocessable(BAD_CURSOR, code="invalid_cursor")
    return created_at, position
