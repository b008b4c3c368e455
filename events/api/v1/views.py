"""Events over REST: ``GET /v1/events`` (the pull feed, scope memory:read, scoped by the key like every
read) and the webhook endpoints (scope admin; owners and admins): ``/v1/webhooks``, ``/v1/webhooks/<id>``,
``/v1/webhooks/<id>/deliveries``, ``POST /v1/webhooks/deliveries/<id>/replay`` (docs/events.md)."""

from __future__ import annotations

import re
from typing import Any

from django.core.validators import RegexValidator
from drf_spectacular.types import OpenApiTypes
from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.v1.base import TenantAPIView
from core.errors import InvalidInput, NotFound
from events.models import EventType, WebhookDelivery, WebhookEndpoint
from events.selectors import (
    FEED_MAX,
    event_payload,
    events_feed,
    webhook_attempts,
    webhook_deliveries,
    webhook_endpoints,
)
from events.services import (
    WRONG_URL,
    webhook_delivery_replay,
    webhook_endpoint_create,
    webhook_endpoint_delete,
    webhook_endpoint_update,
)

# What the feed's arguments accept, published so a client can check before it asks.
CURSOR_PATTERN = r"^\d{1,19}\.\d{1,19}$"
_TYPE = "(?:" + "|".join(re.escape(t) for t in EventType.values) + ")"
TYPES_PATTERN = rf"^\s*{_TYPE}\s*(?:,\s*{_TYPE}\s*)*$"
URL_PATTERN = (
    r"^\s*[hH][tT][tT][pP][sS]?://(?:[^/?#\s@\[\]]+@)?(?:[A-Za-z0-9.-]+|\[[0-9A-Fa-f:.]+\])"
    r"(?::[0-9]{1,5})?(?:[/?#]\S*)?\s*$"
)

WRONG_BODY = (
    'send {"url": "https://...", "event_types": [...] (optional; empty: every type), "description": "..."}'
)
WRONG_PATCH = 'send any of {"url", "event_types", "description", "active": true|false, "rotate_secret": true}'


class EventOut(serializers.Serializer[Any]):
    id = serializers.CharField()
    type = serializers.ChoiceField(choices=EventType.values)
    timestamp = serializers.DateTimeField()
    subject = serializers.CharField(help_text='What it is about: "memory:<id>", "partner_link:<id>", ...')
    project_id = serializers.UUIDField(allow_null=True)
    request_id = serializers.CharField(allow_null=True)
    data = serializers.DictField(help_text="Ids and metadata, never a memory's content.")  # type: ignore[assignment]


class FeedOut(serializers.Serializer[Any]):
    events = EventOut(many=True)
    next_cursor = serializers.CharField(
        allow_null=True, help_text="Give it as `after` for the next page (kept when nothing new came)."
    )


class EventsView(TenantAPIView):
    required_scope = "memory:read"

    @extend_schema(
        parameters=[
            OpenApiParameter(
                "after",
                OpenApiTypes.STR,
                pattern=CURSOR_PATTERN,
                description="A cursor this feed gave (next_cursor).",
            ),
            OpenApiParameter(
                "types",
                OpenApiTypes.STR,
                pattern=TYPES_PATTERN,
                description="Comma-separated event types: " + ", ".join(EventType.values),
            ),
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": FEED_MAX},
                description=f"1 to {FEED_MAX} (default 100).",
            ),
        ],
        responses=FeedOut,
        summary="The event feed: what happened, oldest first, resumable",
    )
    def get(self, request: Request) -> Response:
        key = self.access_key
        page = events_feed(
            member=key.member,
            key=key,
            after=request.query_params.get("after"),
            types=request.query_params.get("types"),
            limit=request.query_params.get("limit"),
        )
        return Response({"events": page.events, "next_cursor": page.next_cursor})


class WebhookIn(serializers.Serializer[Any]):
    url = serializers.CharField(max_length=2000, validators=[RegexValidator(URL_PATTERN, WRONG_URL)])
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=EventType.values), required=False, default=list, max_length=20
    )
    description = serializers.CharField(required=False, default="", allow_blank=True, max_length=200)


class WebhookPatch(serializers.Serializer[Any]):
    url = serializers.CharField(
        max_length=2000, required=False, validators=[RegexValidator(URL_PATTERN, WRONG_URL)]
    )
    event_types = serializers.ListField(
        child=serializers.ChoiceField(choices=EventType.values), required=False, max_length=20
    )
    description = serializers.CharField(required=False, allow_blank=True, max_length=200)
    active = serializers.BooleanField(required=False)
    rotate_secret = serializers.BooleanField(required=False, default=False)


class WebhookOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    url = serializers.CharField()
    description = serializers.CharField()
    event_types = serializers.ListField(child=serializers.CharField())
    active = serializers.BooleanField()
    disabled_reason = serializers.CharField()
    consecutive_failures = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    secret = serializers.CharField(
        required=False,
        help_text="The signing secret: in the answer that made or rotated it, and never again.",
    )


class AttemptOut(serializers.Serializer[Any]):
    at = serializers.DateTimeField()
    status = serializers.IntegerField(allow_null=True)
    error = serializers.CharField()
    duration_ms = serializers.IntegerField()
    replay = serializers.BooleanField()


class DeliveryOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    webhook_id = serializers.CharField(help_text="The `webhook-id` header every attempt carries.")
    endpoint_id = serializers.UUIDField()
    state = serializers.ChoiceField(choices=["pending", "delivered", "failed"])
    attempts = serializers.IntegerField()
    last_status = serializers.IntegerField(allow_null=True)
    last_error = serializers.CharField()
    next_attempt_at = serializers.DateTimeField(allow_null=True)
    delivered_at = serializers.DateTimeField(allow_null=True)
    event = EventOut()
    log = AttemptOut(many=True)


def webhook_out(endpoint: WebhookEndpoint, secret: str | None = None) -> dict[str, Any]:
    out = {
        "id": endpoint.pk,
        "url": endpoint.url,
        "description": endpoint.description,
        "event_types": endpoint.event_types,
        "active": endpoint.active,
        "disabled_reason": endpoint.disabled_reason,
        "consecutive_failures": endpoint.consecutive_failures,
        "created_at": endpoint.created_at,
    }
    if secret is not None:
        out["secret"] = secret
    return WebhookOut(out).data


def delivery_out(delivery: WebhookDelivery) -> dict[str, Any]:
    return {
        "id": delivery.pk,
        "webhook_id": delivery.message_id,
        "endpoint_id": delivery.endpoint_id,
        "state": delivery.state,
        "attempts": delivery.attempts,
        "last_status": delivery.last_status,
        "last_error": delivery.last_error,
        "next_attempt_at": delivery.next_attempt_at,
        "delivered_at": delivery.delivered_at,
        "event": event_payload(delivery.event),
        "log": [
            {
                "at": a.at,
                "status": a.status,
                "error": a.error,
                "duration_ms": a.duration_ms,
                "replay": a.replay,
            }
            for a in webhook_attempts(delivery=delivery)
        ],
    }


def _parsed(incoming: serializers.Serializer[Any], refusal: str) -> dict[str, Any]:
    if not incoming.is_valid():
        raise InvalidInput(WRONG_URL if "url" in incoming.errors else refusal, code="invalid_input")
    return dict(incoming.validated_data)


class WebhooksView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(responses=WebhookOut(many=True), summary="The enterprise's webhook endpoints")
    def get(self, request: Request) -> Response:
        return Response([webhook_out(e) for e in webhook_endpoints()])

    @extend_schema(
        request=WebhookIn,
        responses={201: WebhookOut},
        summary="Add a webhook endpoint (its secret, shown once)",
    )
    def post(self, request: Request) -> Response:
        body = _parsed(WebhookIn(data=request.data), WRONG_BODY)
        endpoint, secret = webhook_endpoint_create(member=self.access_key.member, **body)
        return Response(webhook_out(endpoint, secret), status=201)


class WebhookView(TenantAPIView):
    required_scope = "admin"

    def _endpoint(self, webhook_id: Any) -> WebhookEndpoint:
        endpoint = webhook_endpoints().filter(pk=webhook_id).first()
        if endpoint is None:
            raise NotFound("webhook not found")
        return endpoint

    @extend_schema(responses=WebhookOut, summary="One webhook endpoint")
    def get(self, request: Request, webhook_id: Any) -> Response:
        return Response(webhook_out(self._endpoint(webhook_id)))

    @extend_schema(
        request=WebhookPatch, responses=WebhookOut, summary="Change, enable, disable or re-key an endpoint"
    )
    def patch(self, request: Request, webhook_id: Any) -> Response:
        body = _parsed(WebhookPatch(data=request.data), WRONG_PATCH)
        endpoint, secret = webhook_endpoint_update(
            member=self.access_key.member, endpoint_id=webhook_id, **body
        )
        return Response(webhook_out(endpoint, secret))

    @extend_schema(responses={204: None}, summary="Remove an endpoint (its deliveries with it)")
    def delete(self, request: Request, webhook_id: Any) -> Response:
        webhook_endpoint_delete(member=self.access_key.member, endpoint_id=webhook_id)
        return Response(status=204)


class DeliveriesView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(
        responses=DeliveryOut(many=True), summary="An endpoint's latest 100 deliveries, with their log"
    )
    def get(self, request: Request, webhook_id: Any) -> Response:
        if not webhook_endpoints().filter(pk=webhook_id).exists():
            raise NotFound("webhook not found")
        return Response([delivery_out(d) for d in webhook_deliveries(endpoint_id=webhook_id)])


class ReplayView(TenantAPIView):
    required_scope = "admin"

    @extend_schema(
        request=None, responses={202: DeliveryOut}, summary="Send a delivery again (same webhook-id)"
    )
    def post(self, request: Request, delivery_id: Any) -> Response:
        delivery = webhook_delivery_replay(member=self.access_key.member, delivery_id=delivery_id)
        return Response(delivery_out(delivery), status=202)
