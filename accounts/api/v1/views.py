"""Account endpoints: who this key is, and the enterprise's audit trail."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.v1.base import TenantAPIView
from accounts.selectors.audit import audit_event_get, audit_events_list


class WhoAmISerializer(serializers.Serializer[Any]):
    enterprise = serializers.CharField()
    tenant_id = serializers.CharField()
    project = serializers.CharField()
    project_id = serializers.CharField()
    workspace = serializers.CharField(allow_null=True)
    member = serializers.CharField()
    org_role = serializers.CharField()
    scopes = serializers.ListField(child=serializers.CharField())
    subscription_state = serializers.CharField()


class WhoAmIView(TenantAPIView):
    """The identity behind the bearer key."""

    @extend_schema(responses=WhoAmISerializer, summary="The identity behind this access key")
    def get(self, request: Request) -> Response:
        key = self.access_key
        enterprise = key.project.enterprise
        return Response(
            {
                "enterprise": enterprise.slug,
                "tenant_id": str(enterprise.pk),
                "project": key.project.slug,
                "project_id": str(key.project_id),
                "workspace": key.workspace.name if key.workspace else None,
                "member": key.member.user.username,
                "org_role": key.member.org_role,
                "scopes": key.scopes,
                "subscription_state": enterprise.subscription_state,
            }
        )


class AuditEventSerializer(serializers.Serializer[Any]):
    id = serializers.IntegerField()
    created_at = serializers.DateTimeField()
    action = serializers.CharField()
    door = serializers.CharField()
    actor_member = serializers.CharField(allow_null=True)
    access_key = serializers.CharField(allow_null=True)
    target_type = serializers.CharField()
    target_id = serializers.CharField()
    request_id = serializers.CharField()
    details = serializers.JSONField()


class AuditEventListView(TenantAPIView):
    """The enterprise's audit trail, newest first (scope ``admin``)."""

    required_scope = "admin"

    @extend_schema(responses=AuditEventSerializer(many=True), summary="Audit events, newest first")
    def get(self, request: Request) -> Response:
        try:
            limit = min(max(int(request.query_params.get("limit", 100)), 1), 1000)
        except ValueError:
            limit = 100
        events = audit_events_list(action=request.query_params.get("action"), limit=limit)
        return Response(AuditEventSerializer(events, many=True).data)


class AuditEventDetailView(TenantAPIView):
    """One audit event; another enterprise's event is simply not found."""

    required_scope = "admin"

    @extend_schema(responses=AuditEventSerializer, summary="One audit event")
    def get(self, request: Request, event_id: int) -> Response:
        return Response(AuditEventSerializer(audit_event_get(event_id=event_id)).data)
