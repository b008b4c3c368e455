"""Workspaces: created on first use; a deleted one's name never comes back."""

from __future__ import annotations

from django.db import IntegrityError, transaction
from django.utils import timezone

from accounts.models import Project, Workspace
from accounts.services.audit import audit_record
from core.errors import Conflict, Forbidden, InvalidInput

DEFAULT_WORKSPACE = "default"


def workspace_get_or_create(*, project: Project, name: str) -> Workspace:
    name = name.strip()
    if not name:
        raise InvalidInput("workspace and scope must not be empty", code="empty_workspace")
    workspace = Workspace.objects.filter(project=project, name=name).first()
    if workspace is None:
        try:
            with transaction.atomic():
                workspace = Workspace.objects.create(
                    enterprise_id=project.enterprise_id, project=project, name=name
                )
                audit_record(action="workspace.create", target=workspace, details={"name": name})
        except IntegrityError:
            # Another writer created it first: use theirs.
            workspace = Workspace.objects.get(project=project, name=name)
    if workspace.is_deleted:
        raise Conflict(f"workspace '{name}' was deleted and cannot be reused", code="workspace_deleted")
    return workspace


def workspace_check_project(*, workspace: Workspace, project: Project) -> None:
    if workspace.project_id != project.pk:
        raise Forbidden("403 Forbidden: workspace access denied for project", code="workspace_forbidden")


@transaction.atomic
def workspace_delete(*, workspace: Workspace) -> Workspace:
    if workspace.deleted_at is None:
        workspace.deleted_at = timezone.now()
        workspace.save(update_fields=["deleted_at"])
        audit_record(action="workspace.delete", target=workspace, details={"name": workspace.name})
    return workspace
