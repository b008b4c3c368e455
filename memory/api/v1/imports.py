"""Imports over REST: ``POST /v1/imports`` (a multipart upload: 202 and the import's state),
``GET /v1/imports`` (the latest the key's member sees) and ``GET /v1/imports/<id>`` (progress and the
bad lines). The import runs as a job (docs/lifecycle.md, "Import")."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.parsers import MultiPartParser
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import access
from accounts.api.v1.base import TenantAPIView
from accounts.models import Project
from core.errors import NotFound, PayloadTooLarge, Unprocessable
from core.schema import extra_error
from memory.models import ImportFormat
from memory.selectors.imports import import_describe, import_get, imports_visible
from memory.services.imports import import_request

MAX_UPLOAD_BYTES = 1024**3
REQUEST_REFUSAL = (
    "send multipart/form-data with file (the export, or a .zip of Markdown/text files), "
    "format (mnemos, mem0 or markdown), and optionally project (slug), workspace and split_headings"
)
UPLOAD_TOO_LARGE = f"the upload exceeds {MAX_UPLOAD_BYTES // 1024**2} MB"
LIST_LIMIT = 50


class ImportIn(serializers.Serializer[Any]):
    file = serializers.FileField(
        help_text="The source: a Mnemos export (.jsonl), a Mem0 export (.json), a .zip."
    )
    format = serializers.ChoiceField(choices=ImportFormat.values)
    project = serializers.CharField(
        required=False, max_length=100, help_text="The project's slug (default: the key's project)."
    )
    workspace = serializers.CharField(required=False, max_length=200, default="default")
    split_headings = serializers.BooleanField(
        required=False, default=False, help_text="Markdown: one memory per heading, not per file."
    )


class ProblemOut(serializers.Serializer[Any]):
    line = serializers.IntegerField()
    reason = serializers.CharField()
    # DRF's metaclass takes declared fields off the class: these names do not shadow Field.source /
    # Serializer.errors at run time, only in the stubs.
    source = serializers.CharField(required=False, help_text="The file, for a Markdown import.")  # type: ignore[assignment]


class ImportOut(serializers.Serializer[Any]):
    id = serializers.UUIDField()
    format = serializers.ChoiceField(choices=ImportFormat.values)
    project = serializers.CharField()
    workspace = serializers.CharField()
    original_name = serializers.CharField()
    state = serializers.ChoiceField(choices=["pending", "running", "done", "failed"])
    total = serializers.IntegerField(help_text="Items in the source.")
    position = serializers.IntegerField(help_text="Items handled so far (the resume point).")
    percent = serializers.IntegerField()
    created = serializers.IntegerField()
    duplicates = serializers.IntegerField()
    rejected = serializers.IntegerField(help_text="Refused by Memory Guard.")
    errors = serializers.IntegerField(help_text="Bad lines and refused items.")  # type: ignore[assignment]
    problems = ProblemOut(many=True, help_text="The first 1,000 bad lines, with their reasons.")
    error = serializers.CharField(allow_null=True, help_text="Why the whole import failed, when it did.")
    created_at = serializers.DateTimeField()
    finished_at = serializers.DateTimeField(allow_null=True)


class ImportListOut(serializers.Serializer[Any]):
    imports = ImportOut(many=True)


class ImportsView(TenantAPIView):
    required_scope = "memory:write"
    parser_classes = [MultiPartParser]

    def scope_for(self, request: Request) -> str | None:
        return "memory:read" if request.method == "GET" else self.required_scope

    @extend_schema(
        request={"multipart/form-data": ImportIn},
        responses={
            202: ImportOut,
            404: extra_error("No such project in this enterprise."),
            409: extra_error("The folder named was deleted and cannot be reused."),
            413: extra_error(UPLOAD_TOO_LARGE),
        },
        summary="Import a Mnemos export, a Mem0 export or a .zip of Markdown/text files (a job)",
    )
    def post(self, request: Request) -> Response:
        incoming = ImportIn(data=request.data)
        if not incoming.is_valid():
            # 422, not 400: a form the schema allows can still lack a file part (a plain field named file).
            raise Unprocessable(REQUEST_REFUSAL, code="invalid_input")
        data = incoming.validated_data
        upload = data["file"]
        if upload.size > MAX_UPLOAD_BYTES:
            raise PayloadTooLarge(UPLOAD_TOO_LARGE, code="payload_too_large")
        key = self.access_key
        project = Project.objects.filter(slug=data["project"]).first() if data.get("project") else key.project
        if (
            project is None
            or not access.project_may_read(member=key.member, project=project)
            or not access.key_may_use_project(key=key, project_id=project.pk)
        ):
            raise NotFound("project not found", code="project_not_found")
        data_import = import_request(
            member=key.member,
            project=project,
            format=data["format"],
            source=upload,
            original_name=upload.name or "",
            workspace=data["workspace"],
            split_headings=data["split_headings"],
            key=key,
        )
        return Response(import_describe(data_import), status=202)

    @extend_schema(responses=ImportListOut, summary="The latest imports the key's member sees")
    def get(self, request: Request) -> Response:
        found = imports_visible(member=self.access_key.member)[:LIST_LIMIT]
        return Response({"imports": [import_describe(i) for i in found]})


class ImportView(TenantAPIView):
    required_scope = "memory:read"

    @extend_schema(responses=ImportOut, summary="An import's progress and its bad lines")
    def get(self, request: Request, import_id: str) -> Response:
        return Response(import_describe(import_get(member=self.access_key.member, import_id=import_id)))
