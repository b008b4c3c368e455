"""Exports over REST: ``POST /v1/exports`` (request one: 202 and its state), ``GET /v1/exports`` (the
latest the key's member sees), ``GET /v1/exports/<id>`` (its progress, and the signed download link
once done), and ``GET /v1/exports/download/<token>``, the signed link itself (docs/lifecycle.md)."""

from __future__ import annotations

from typing import Any

from django.http import FileResponse, HttpRequest, HttpResponse
from django.http.response import HttpResponseBase
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts.api.v1.base import TenantAPIView
from core.errors import InvalidInput, MnemosError
from core.schema import extra_error
from core.tenancy import tenant_context
from memory.models import ExportScope
from memory.selectors.exports import export_get, exports_visible
from memory.services.exports import (
    export_describe,
    export_download_open,
    export_link_read,
    export_request,
)

REQUEST_REFUSAL = (
    'send {"scope": "project"|"enterprise"|"member", "project": "<slug, for scope project>", '
    '"include_vectors": false}'
)
LIST_LIMIT = 50


class ExportIn(serializers.Serializer[Any]):
    scope = serializers.ChoiceField(choices=ExportScope.values)
    project = serializers.CharField(
        required=False,
        allow_null=True,
        allow_blank=True,
        max_length=100,
        help_text="The project's slug (scope project).",
    )
    include_vectors = serializers.BooleanField(required=False, default=False)


class ExportOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    scope = serializers.ChoiceField(choices=ExportScope.values)
    project = serializers.CharField(allow_null=True)
    include_vectors = serializers.BooleanField()
    state = serializers.ChoiceField(choices=["pending", "running", "done", "failed"])
    done = serializers.IntegerField(help_text="Memories written so far.")
    total = serializers.IntegerField(help_text="Memories to write.")
    size_bytes = serializers.IntegerField()
    sha256 = serializers.CharField(allow_null=True, help_text="SHA-256 of the whole file, once done.")
    error = serializers.CharField(allow_null=True)
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)
    expires_at = serializers.DateTimeField(allow_null=True, help_text="The download window's end.")
    download_url = serializers.CharField(
        allow_null=True, help_text="The signed download link (no key needed), while the window is open."
    )


class ExportListOut(serializers.Serializer[Any]):
    exports = ExportOut(many=True)


def _described(request: Request, export: Any) -> dict[str, Any]:
    body = export_describe(export)
    if body["download_url"]:
        body["download_url"] = request.build_absolute_uri(body["download_url"])
    return body


class ExportsView(TenantAPIView):
    required_scope = "memory:read"

    @extend_schema(
        request=ExportIn,
        responses={
            202: ExportOut,
            404: extra_error("No such project in this enterprise."),
        },
        summary="Request an export (a JSONL file written by a job; docs/export-format.md)",
        operation_id="exports_request",
    )
    def post(self, request: Request) -> Response:
        incoming = ExportIn(data=request.data)
        if not incoming.is_valid():
            raise InvalidInput(REQUEST_REFUSAL, code="invalid_input")
        data = incoming.validated_data
        export = export_request(
            member=self.access_key.member,
            key=self.access_key,
            scope=data["scope"],
            project_slug=data.get("project") or None,
            include_vectors=data["include_vectors"],
        )
        return Response(_described(request, export), status=202)

    @extend_schema(
        responses=ExportListOut,
        summary="The latest exports the key's member sees",
        operation_id="exports_list",
    )
    def get(self, request: Request) -> Response:
        exports = exports_visible(member=self.access_key.member)[:LIST_LIMIT]
        return Response({"exports": [_described(request, e) for e in exports]})


class ExportView(TenantAPIView):
    required_scope = "memory:read"

    @extend_schema(
        responses=ExportOut,
        summary="An export's progress, and its download link once done",
        operation_id="exports_get",
    )
    def get(self, request: Request, export_id: str) -> Response:
        return Response(_described(request, export_get(member=self.access_key.member, export_id=export_id)))


def export_download(request: HttpRequest, token: str) -> HttpResponseBase:
    """The signed link's door: the signature names the enterprise, whose tenant context it enters;
    no key or session is needed (the link is the credential, for ``EXPORT_LINK_SECONDS``)."""
    try:
        enterprise_id, export_id = export_link_read(token=token)
        with tenant_context(enterprise_id=enterprise_id, door="export-link"):
            export, f = export_download_open(export_id=export_id)
    except MnemosError as exc:
        return HttpResponse(
            f"{exc.message}\n", status=exc.http_status, content_type="text/plain; charset=utf-8"
        )
    response = FileResponse(
        f,
        as_attachment=True,
        filename=f"mnemos-export-{export.pk}.jsonl",
        content_type="application/x-ndjson",
    )
    response["X-Content-SHA256"] = export.sha256
    return response


# tests/accounts/test_doors.py: this view enters the tenant context itself, from the signed token.
export_download.tenant_door = True  # type: ignore[attr-defined]
