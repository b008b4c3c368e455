"""Events and webhooks in the auditors' admin: read-only, each enterprise sees its own rows (the signing
secrets, encrypted, are never shown)."""

from __future__ import annotations

from accounts.admin import ReadOnlyAdmin, site
from events.models import Event, WebhookAttempt, WebhookDelivery, WebhookEndpoint


class EventAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "type", "subject", "project_id", "request_id"]
    list_filter = ["type"]
    search_fields = ["subject", "request_id"]


class WebhookEndpointAdmin(ReadOnlyAdmin):
    list_display = ["url", "description", "active", "consecutive_failures", "disabled_reason", "created_at"]
    list_filter = ["active"]
    exclude = ["secret_encrypted"]


class WebhookDeliveryAdmin(ReadOnlyAdmin):
    list_display = ["created_at", "endpoint", "event", "state", "attempts", "last_status", "delivered_at"]
    list_filter = ["state"]


class WebhookAttemptAdmin(ReadOnlyAdmin):
    list_display = ["at", "delivery", "status", "error", "duration_ms", "replay"]


site.register(Event, EventAdmin)
site.register(WebhookEndpoint, WebhookEndpointAdmin)
site.register(WebhookDelivery, WebhookDeliveryAdmin)
site.register(WebhookAttempt, WebhookAttemptAdmin)
