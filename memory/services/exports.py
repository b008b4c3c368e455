"""Exports (docs/lifecycle.md, "Export"): who may request one, the request (a ``DataExport`` and its first
``memory.export_step`` job), the signed download link. The job's steps are
``memory.services.export_writer.export_step``."""

from __future__ import annotations

import hashlib
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.core import signing
from django.db import transaction
from django.urls import reverse
from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, Member, Project
from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from core.errors import Forbidden, InvalidInput, MnemosError, NotFound, Unprocessable
from memory.models import DataExport, ExportScope, TransferState
from memory.services.export_writer import ExportSpec, export_file, memories_in_scope

LINK_SALT = "mnemos.export-download"
ENTERPRISE_DENIED = "only an owner or admin may export the whole enterprise"
PROJECT_DENIED = "this membership may not manage project '{project}', so it may not export it"
FOLDER_KEY_DENIED = "an access key bound to a folder may not export"
INACTIVE = "this membership is not active in this organization"
PROJECT_NEEDED = "a project export names its project (its slug)"
PROJECT_UNKNOWN = "no project '{project}' in this enterprise"
SCOPE_UNKNOWN = "scope must be one of: project, enterprise, member"
LINK_INVALID = "this download link is not valid"
LINK_EXPIRED = "this download link has expired: open the export again for a new link"
EXPORT_EXPIRED = "this export has expired: request a new export"
EXPORT_NOT_READY = "this export is not finished yet"


class ExportGone(MnemosError):
    """A download link or export past its time: 410, a new one is needed."""

    code = "expired"
    http_status = 410


# -- the request -------------------------------------------------------------------------------------


def export_may_request(*, member: Member, scope: str, project: Project | None) -> None:
    """Who may export what, as the access policy says: the enterprise its owners and admins, a project
    those who may manage it, one's own memories every active member."""
    if not member.is_active:
        raise Forbidden(INACTIVE, code="membership_inactive")
    if scope == ExportScope.ENTERPRISE and not access.member_may_manage(member):
        raise Forbidden(ENTERPRISE_DENIED, code="export_forbidden")
    if scope == ExportScope.PROJECT and not access.project_may_manage(member=member, project=project):
        raise Forbidden(
            PROJECT_DENIED.format(project=project.slug if project else ""), code="export_forbidden"
        )


def export_request(
    *,
    member: Member,
    scope: str,
    project_slug: str | None = None,
    include_vectors: bool = False,
    key: AccessKey | None = None,
) -> DataExport:
    """Record an export of ``scope`` and send its first step (after this transaction commits)."""
    if scope not in ExportScope.values:
        raise InvalidInput(SCOPE_UNKNOWN, code="invalid_scope")
    if access.key_is_folder_bound(key):
        raise Forbidden(FOLDER_KEY_DENIED, code="export_forbidden")
    project = None
    if scope == ExportScope.PROJECT:
        if not project_slug:
            raise Unprocessable(PROJECT_NEEDED, code="project_required")
        project = access.projects_readable(member=member).filter(slug=project_slug).first()
        if project is None:
            raise NotFound(PROJECT_UNKNOWN.format(project=project_slug), code="project_not_found")
    export_may_request(member=member, scope=scope, project=project)
    export = DataExport(
        enterprise_id=member.enterprise_id,
        scope=scope,
        project=project,
        member=member if scope == ExportScope.MEMBER else None,
        include_vectors=include_vectors,
        requested_by=member,
    )
    export.path = f"exports/{export.pk}.jsonl"
    export.total = memories_in_scope(ExportSpec.of(export)).count()
    export.save(force_insert=True)
    audit_record(
        action="export.request",
        target=export,
        details={
            "scope": scope,
            "project": project.slug if project else None,
            "member": str(member.pk) if scope == ExportScope.MEMBER else None,
            "include_vectors": include_vectors,
            "total": export.total,
        },
    )
    enqueue("memory.export_step", enterprise_id=str(export.enterprise_id), export_id=str(export.pk))
    return export


# -- the signed link ---------------------------------------------------------------------------------


def _signer() -> signing.TimestampSigner:
    return signing.TimestampSigner(salt=LINK_SALT)


def export_download_token(export: DataExport) -> str:
    return _signer().sign(f"{export.enterprise_id}.{export.pk}")


def export_download_url(export: DataExport) -> str | None:
    """The signed download path of a finished export still in its window (valid ``EXPORT_LINK_SECONDS``
    from now, and never past the export's own ``expires_at``); None otherwise."""
    if export.state != TransferState.DONE or export.expires_at is None or export.expires_at <= timezone.now():
        return None
    return reverse("v1-memory:export-download", kwargs={"token": export_download_token(export)})


def export_link_read(*, token: str) -> tuple[str, str]:
    """The (enterprise id, export id) a download token names; 403 when forged, 410 when expired."""
    try:
        value = _signer().unsign(token, max_age=settings.EXPORT_LINK_SECONDS)
    except signing.SignatureExpired as exc:
        raise ExportGone(LINK_EXPIRED, code="link_expired") from exc
    except signing.BadSignature as exc:
        raise Forbidden(LINK_INVALID, code="link_invalid") from exc
    enterprise_id, _, export_id = value.partition(".")
    return enterprise_id, export_id


def export_download_open(*, export_id: str) -> tuple[DataExport, IO[bytes]]:
    """Inside the link's tenant context: the finished export and its file, opened; audited."""
    export = DataExport.objects.filter(pk=export_id).first()
    if export is None:
        raise NotFound("no such export", code="not_found")
    if export.state != TransferState.DONE:
        raise Forbidden(EXPORT_NOT_READY, code="export_not_ready")
    if export.expires_at is None or export.expires_at <= timezone.now():
        raise ExportGone(EXPORT_EXPIRED, code="export_expired")
    try:
        f = open(export_file(export), "rb")  # noqa: SIM115 - the response streams and closes it
    except FileNotFoundError as exc:
        raise ExportGone(EXPORT_EXPIRED, code="export_expired") from exc
    audit_record(action="export.download", target=export, details={"size_bytes": export.size_bytes})
    return export, f


def export_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def export_describe(export: DataExport) -> dict[str, Any]:
    """What the API and the console show of an export."""
    return {
        "id": str(export.pk),
        "scope": export.scope,
        "project": export.project.slug if export.project_id and export.project else None,
        "include_vectors": export.include_vectors,
        "state": export.state,
        "done": export.done,
        "total": export.total,
        "size_bytes": export.size_bytes,
        "sha256": export.sha256 or None,
        "error": export.error or None,
        "created_at": export.created_at,
        "finished_at": export.finished_at,
        "expires_at": export.expires_at,
        "download_url": export_download_url(export),
    }


def exports_expired_remove(*, now: Any = None) -> int:
    """Delete the files of exports past their link's expiry (the retention sweep's step, in the
    all-tenants context); the row stays, its ``path`` cleared, for the audit trail. How many."""
    now = now or timezone.now()
    expired = list(DataExport.objects.filter(expires_at__lte=now).exclude(path="").values_list("pk", "path"))
    if not expired:
        return 0
    DataExport.objects.filter(pk__in=[pk for pk, _ in expired]).update(path="")
    root = Path(settings.LIFECYCLE_DIR).resolve()
    files = [(root / path).resolve() for _, path in expired]

    def remove() -> None:
        for file in files:
            if root in file.parents:
                file.unlink(missing_ok=True)

    transaction.on_commit(remove)
    return len(expired)
