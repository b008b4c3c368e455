"""Reads of the events app: the pull feed (scoped by the key like every read), an event's payload,
endpoints and their deliveries."""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Any

from django.db.models import Prefetch, Q, QuerySet
from django.db.models.expressions import RawSQL

from accounts import access
from accounts.models import AccessKey, Member, Scope
from core.errors import InvalidInput
from events.models import Event, EventType, WebhookAttempt, WebhookDelivery, WebhookEndpoint

# Events of transactions older than every transaction still running (none can appear behind them later),
# and the reading transaction's own.
SETTLED = Q(txid__lt=RawSQL("pg_snapshot_xmin(pg_current_snapshot())::text::bigint", [])) | Q(
    txid=RawSQL("pg_current_xact_id_if_assigned()::text::bigint", [])
)

FEED_LIMIT, FEED_MAX = 100, 500
BIGINT_MAX, XID8_MAX = 2**63 - 1, 2**64 - 1
_CURSOR = re.compile(r"(\d{1,19})\.(\d{1,19})")
WRONG_CURSOR = "after must be a cursor this feed gave (next_cursor), or left out to start from the beginning"
WRONG_TYPES = "types must be a comma-separated list of: " + ", ".join(EventType.values)
WRONG_LIMIT = f"limit must be a whole number from 1 to {FEED_MAX}"


def event_payload(event: Event) -> dict[str, Any]:
    """What a webhook's body and the feed carry for one event (ids and metadata, never content)."""
    return {
        "id": f"evt_{event.txid}.{event.pk}",
        "type": event.type,
        "timestamp": event.created_at.isoformat(),
        "subject": event.subject,
        "project_id": str(event.project_id) if event.project_id else None,
        "request_id": event.request_id or None,
        "data": event.data,
    }


def cursor_of(event: Event) -> str:
    return f"{event.txid}.{event.pk}"


@dataclass(frozen=True)
class FeedPage:
    events: list[dict[str, Any]]
    next_cursor: str | None  # give it as ``after`` for the next page; None: nothing settled yet


def feed_arguments(
    *, after: str | None, types: str | None, limit: str | None
) -> tuple[tuple[int, int], list[str], int]:
    position = (0, 0)
    if after:
        m = _CURSOR.fullmatch(after)
        if m is None:
            raise InvalidInput(WRONG_CURSOR, code="invalid_input")
        # A cursor beyond any row (ids are bigints) reads as "after everything", never a database error.
        position = (min(int(m.group(1)), XID8_MAX), min(int(m.group(2)), BIGINT_MAX))
    chosen = [t for t in (types or "").split(",") if t.strip()]
    if any(t.strip() not in EventType.values for t in chosen):
        raise InvalidInput(WRONG_TYPES, code="invalid_input")
    try:
        size = FEED_LIMIT if limit in (None, "") else int(str(limit))
    except ValueError:
        raise InvalidInput(WRONG_LIMIT, code="invalid_input") from None
    if not 1 <= size <= FEED_MAX:
        raise InvalidInput(WRONG_LIMIT, code="invalid_input")
    return position, [t.strip() for t in chosen], size


def events_feed(
    *, member: Member, key: AccessKey, after: str | None, types: str | None, limit: str | None
) -> FeedPage:
    """The settled events after the cursor, oldest first, that the key may see: a project's events when
    its member may read the project and the key may use it; the enterprise's own (no project: partner
    links, enterprise-wide exports) for an admin key of a member who manages the enterprise."""
    (txid, last_id), chosen, size = feed_arguments(after=after, types=types, limit=limit)
    readable = access.projects_readable(member=member)
    if key.workspace_id is not None:
        readable = readable.filter(pk=key.project_id)
    visible = Q(project_id__in=readable.values("pk"))
    if Scope.ADMIN in key.scopes and access.member_may_manage(member) and key.workspace_id is None:
        visible |= Q(project_id__isnull=True)
    rows: QuerySet[Event] = Event.objects.filter(SETTLED, visible).filter(
        Q(txid__gt=txid) | Q(txid=txid, id__gt=last_id)
    )
    if chosen:
        rows = rows.filter(type__in=chosen)
    page = list(rows.order_by("txid", "id")[:size])
    next_cursor = cursor_of(page[-1]) if page else (after or None)
    return FeedPage([event_payload(e) for e in page], next_cursor)


def webhook_endpoints() -> QuerySet[WebhookEndpoint]:
    return WebhookEndpoint.objects.order_by("created_at")


def webhook_deliveries(*, endpoint_id: Any = None, limit: int = 100) -> list[WebhookDelivery]:
    """The latest deliveries, newest first, with their events and their logs (three queries, however many)."""
    rows = (
        WebhookDelivery.objects.select_related("event", "endpoint")
        .prefetch_related(Prefetch("log", queryset=WebhookAttempt.objects.order_by("at")))
        .order_by("-created_at")
    )
    if endpoint_id is not None:
        rows = rows.filter(endpoint_id=endpoint_id)
    return list(rows[:limit])


def webhook_attempts(*, delivery: WebhookDelivery) -> list[WebhookAttempt]:
    """A delivery's log, oldest first (prefetched by ``webhook_deliveries``)."""
    return list(delivery.log.all())
