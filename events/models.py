"""Events (the transactional outbox integrators read) and webhook endpoints with their deliveries."""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from core.tenancy import TenantModel


class CurrentTxid(models.Func):
    """The id of the transaction that writes the row (PostgreSQL's ``pg_current_xact_id()``)."""

    template = "(pg_current_xact_id()::text::bigint)"
    output_field = models.BigIntegerField()


class EventType(models.TextChoices):
    MEMORY_CREATED = "memory.created", "memory created"
    MEMORY_UPDATED = "memory.updated", "memory updated"
    MEMORY_FORGOTTEN = "memory.forgotten", "memory forgotten"
    MEMORY_ERASED = "memory.erased", "memory erased"
    MEMORY_CONFLICT = "memory.conflict", "conflict detected (fact_key)"
    GUARD_REJECTED = "guard.rejected", "guard rejection"
    PARTNER_LINK_CHANGED = "partner_link.changed", "partner link state changed"
    IMPORT_FINISHED = "import.finished", "import finished"
    EXPORT_FINISHED = "export.finished", "export finished"


class Event(TenantModel):
    """One thing that happened, written in the transaction of the change (never when it rolls back).

    Append-only for the application role (INSERT and SELECT). ``data`` holds ids and metadata, never a
    memory's content: integrators read content through the API with their own key."""

    id = models.BigAutoField(primary_key=True)
    # The writing transaction: readers order by (txid, id) and take only settled transactions' events
    # (events.selectors.SETTLED), so one that commits late never lands behind a cursor.
    txid = models.BigIntegerField(db_default=CurrentTxid(), editable=False)
    type = models.CharField(max_length=40, choices=EventType.choices)
    # What the event is about ("memory:<id>"): deliveries to one endpoint keep this subject's order.
    subject = models.CharField(max_length=120)
    project_id = models.UUIDField(null=True, blank=True)  # the feed shows it to keys that read the project
    data = models.JSONField(default=dict)
    request_id = models.CharField(max_length=64, blank=True, default="")
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        indexes = [models.Index(fields=["enterprise", "txid", "id"], name="event_enterprise_order")]

    def __str__(self) -> str:
        return f"{self.type} {self.subject}"


class WebhookEndpoint(TenantModel):
    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    url = models.URLField(max_length=2000)
    description = models.CharField(max_length=200, blank=True, default="")
    # The event types it receives; empty: every type.
    event_types = models.JSONField(default=list, blank=True)
    # The signing secret ("whsec_" + base64), encrypted with the server's key (events/signing.py).
    secret_encrypted = models.TextField()
    active = models.BooleanField(default=True)
    disabled_reason = models.CharField(max_length=200, blank=True, default="")
    disabled_at = models.DateTimeField(null=True, blank=True)
    consecutive_failures = models.PositiveIntegerField(default=0)  # deliveries given up on, in a row
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        indexes = [models.Index(fields=["enterprise", "active"], name="webhook_enterprise_active")]

    def __str__(self) -> str:
        return self.url

    def wants(self, event_type: str) -> bool:
        return not self.event_types or event_type in self.event_types


class DeliveryState(models.TextChoices):
    PENDING = "pending", "pending"
    DELIVERED = "delivered", "delivered"
    FAILED = "failed", "failed"


class WebhookDelivery(TenantModel):
    """One event sent to one endpoint; its id is the ``webhook-id`` every attempt (and replay) carries."""

    id = models.UUIDField(primary_key=True, default=uuid.uuid4, editable=False)
    endpoint = models.ForeignKey(WebhookEndpoint, on_delete=models.CASCADE, related_name="deliveries")
    event = models.ForeignKey(Event, on_delete=models.CASCADE, related_name="+")
    state = models.CharField(max_length=16, choices=DeliveryState.choices, default=DeliveryState.PENDING)
    attempts = models.PositiveIntegerField(default=0)
    last_status = models.PositiveIntegerField(null=True, blank=True)  # the receiver's HTTP status
    last_error = models.CharField(max_length=500, blank=True, default="")
    next_attempt_at = models.DateTimeField(null=True, blank=True)
    delivered_at = models.DateTimeField(null=True, blank=True)
    replayed_at = models.DateTimeField(null=True, blank=True)  # a person's last replay
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["endpoint", "event"], name="webhook_delivery_once"),
        ]
        indexes = [models.Index(fields=["endpoint", "state", "event"], name="webhook_delivery_queue")]

    @property
    def message_id(self) -> str:
        return f"msg_{self.pk.hex}"


class WebhookAttempt(TenantModel):
    """The delivery log: every POST tried, with what the receiver answered."""

    id = models.BigAutoField(primary_key=True)
    delivery = models.ForeignKey(WebhookDelivery, on_delete=models.CASCADE, related_name="log")
    at = models.DateTimeField(default=timezone.now, editable=False)
    status = models.PositiveIntegerField(null=True, blank=True)
    error = models.CharField(max_length=500, blank=True, default="")
    duration_ms = models.PositiveIntegerField(default=0)
    replay = models.BooleanField(default=False)


class DispatchCursor(TenantModel):
    """The last event an enterprise's dispatch turned into deliveries (one row an enterprise)."""

    id = models.BigAutoField(primary_key=True)
    last_txid = models.BigIntegerField(default=0)
    last_event_id = models.BigIntegerField(default=0)

    class Meta(TenantModel.Meta):
        constraints = [models.UniqueConstraint(fields=["enterprise"], name="dispatch_cursor_one")]
