"""Switching where a connection saves: only ever from the user's click in the console."""

from __future__ import annotations

from django.db import transaction

from accounts.models import AccessKey, Member, Project, PublicTarget
from accounts.services.audit import audit_record
from accounts.services.workspaces import workspace_get_or_create
from core.errors import InvalidInput


@transaction.atomic
def connection_retarget(*, key: AccessKey, project: Project) -> AccessKey:
    """Re-target a folder-bound connection: same folder name, in the new project."""
    if key.workspace is None:
        raise InvalidInput(
            "this connection is not folder-bound; switch Main instead", code="not_folder_bound"
        )
    previous = key.project
    workspace = workspace_get_or_create(project=project, name=key.workspace.name)
    key.project, key.workspace = project, workspace
    key.save(update_fields=["project", "workspace"])
    audit_record(
        action="connection.switch",
        target=key,
        details={"from": str(previous.pk), "to": str(project.pk), "workspace": workspace.name},
    )
    return key


@transaction.atomic
def member_main_set(*, member: Member, project: Project, paused: bool = False) -> Member:
    previous = member.main_project_id
    member.main_project, member.main_paused = project, paused
    member.save(update_fields=["main_project", "main_paused"])
    audit_record(
        action="member.main_switch",
        target=member,
        details={"from": str(previous) if previous else None, "to": str(project.pk), "paused": paused},
    )
    return member


@transaction.atomic
def member_main_pause(*, member: Member, paused: bool) -> Member:
    if member.main_paused != paused:
        member.main_paused = paused
        member.save(update_fields=["main_paused"])
        audit_record(action="member.main_pause", target=member, details={"paused": paused})
    return member


@transaction.atomic
def project_publish(*, project: Project) -> PublicTarget:
    target, _ = PublicTarget.objects.update_or_create(
        project_id=project.pk,
        defaults={
            "enterprise_id": project.enterprise_id,
            "slug": project.slug,
            "name": project.name,
            "team": project.team.name if project.team else "",
            "save_domain": project.save_domain,
            "save_group": project.save_group,
        },
    )
    audit_record(action="project.publish", target=project)
    return target


@transaction.atomic
def project_unpublish(*, project: Project) -> None:
    deleted, _ = PublicTarget.objects.filter(project_id=project.pk).delete()
    if deleted:
        audit_record(action="project.unpublish", target=project)
