"""Account endpoints: who this key is, and the enterprise's audit trail."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.v1.base import TenantAPIView
from accounts.selectors.audit import (
    AUDIT_PAGE_DEFAULT,
    AUDIT_PAGE_MAX,
    BAD_LIMIT,
    audit_event_get,
    audit_events_list,
)
from accounts.selectors.projects import save_target_explained
from core.errors import InvalidInput


class SaveTargetSerializer(serializers.Serializer[Any]):
    project = serializers.CharField(help_text="The project this key's saves go to (its slug).")
    project_id = serializers.CharField()
    folder = serializers.CharField(allow_null=True, help_text="The folder, for a folder-bound key.")
    rule = serializers.ChoiceField(choices=["folder", "main", "key_project"])
    reason = serializers.CharField(help_text="Why the saves go there, in words.")


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
    save_target = SaveTargetSerializer(help_text="Where this key's saves go, and why.")


class WhoAmIView(TenantAPIView):
    """The identity behind the bearer key."""

    @extend_schema(responses=WhoAmISerializer, summary="The identity behind this access key")
    def get(self, request: Request) -> Response:
        key = self.access_key
        enterprise = key.project.enterprise
        target = save_target_explained(key=key)
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
                "save_target": {
                    "project": target.project.slug,
                    "project_id": str(target.project.pk),
                    "folder": target.folder,
                    "rule": target.rule,
                    "reason": target.reason,
                },
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
    """The enterprise's audit trail, newest first (scope ``admin``), a page at a time: the body is the
    page's events, and a ``Link: <...>; rel="next"`` header (RFC 8288) leads to the next page."""

    required_scope = "admin"

    @extend_schema(
        summary="Audit events, newest first",
        parameters=[
            OpenApiParameter(
                "limit",
                {"type": "integer", "minimum": 1, "maximum": AUDIT_PAGE_MAX, "default": AUDIT_PAGE_DEFAULT},
                description=f"Events per page, 1 to {AUDIT_PAGE_MAX}.",
            ),
            OpenApiParameter(
                "cursor",
                str,
                description="Where the page starts: copied from the previous page's next link (any other "
                "value is refused with 422).",
            ),
            OpenApiParameter("action", str, description="Only events of this action."),
            OpenApiParameter(
                "Link",
                str,
                location=OpenApiParameter.HEADER,
                response=[200],
                description='`<url>; rel="next"` while more events follow; absent on the last page.',
            ),
        ],
        responses=AuditEventSerializer(many=True),
    )
    def get(self, request: Request) -> Response:
        params = request.query_params
        raw_limit = params.get("limit")
        try:
            limit = AUDIT_PAGE_DEFAULT if raw_limit is None else int(raw_limit)
        except ValueError:
            raise InvalidInput(BAD_LIMIT, code="invalid_input") from None
        page = audit_events_list(action=params.get("action"), limit=limit, cursor=params.get("cursor"))
        response = Response(AuditEventSerializer(page.events, many=True).data)
        if page.next_cursor is not None:
            query = params.copy()
            query["cursor"] = page.next_cursor
            next_url = request.build_absolute_uri(f"{request.path}?{query.urlencode()}")
            response["Link"] = f'<{next_url}>; rel="next"'
        return response


class AuditEventDetailView(TenantAPIView):
    """One audit event; another enterprise's event is simply not found."""

    required_scope = "admin"

    @extend_schema(
        responses=AuditEventSerializer,
        summary="One audit event",
        # The URL converter takes digits only (accounts/api/v1/urls.py).
        parameters=[OpenApiParameter("event_id", {"type": "integer", "minimum": 0}, OpenApiParameter.PATH)],
    )
    def get(self, request: Request, event_id: int) -> Response:
        return Response(AuditEventSerializer(audit_event_get(event_id=event_id)).data)
