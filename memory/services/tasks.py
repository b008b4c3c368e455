"""Tasks (enterprise seed): created with a first version; versions carry layer grants."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max

from accounts.models import Member, Project, Team
from accounts.services.audit import audit_record
from core.errors import InvalidInput
from memory.models import Task, TaskVersion

GRANTABLE = ("team", "enterprise")


def _clean_grants(grants: list[dict[str, Any]] | None) -> list[dict[str, str]]:
    cleaned = []
    for grant in grants or []:
        layer, prefix = grant.get("layer"), str(grant.get("prefix", "")).strip()
        if layer not in GRANTABLE or not prefix:
            raise InvalidInput(
                "a grant is {layer: team|enterprise, prefix: <event id prefix>}", code="invalid_grant"
            )
        if prefix.startswith(("team:", "gate:")):
            raise InvalidInput(
                "team: and gate: event ids are reserved and cannot be granted", code="invalid_grant"
            )
        cleaned.append({"layer": layer, "prefix": prefix})
    return cleaned


@transaction.atomic
def task_create(
    *,
    project: Project,
    name: str,
    goal: str = "",
    team: Team | None = None,
    grants: list[dict[str, Any]] | None = None,
    clone_of: Task | None = None,
    created_by: Member | None = None,
) -> Task:
    task = Task.objects.create(
        enterprise_id=project.enterprise_id,
        project=project,
        name=name,
        goal=goal,
        team=team or project.team,
        clone_of=clone_of,
        created_by=created_by,
    )
    TaskVersion.objects.create(
        enterprise_id=project.enterprise_id, task=task, number=1, grants=_clean_grants(grants)
    )
    audit_record(
        action="task.create",
        target=task,
        details={"name": name, "clone_of": str(clone_of.pk) if clone_of else None},
    )
    return task


@transaction.atomic
def task_version_create(*, task: Task, grants: list[dict[str, Any]] | None = None) -> TaskVersion:
    number = (TaskVersion.objects.filter(task=task).aggregate(n=Max("number"))["n"] or 0) + 1
    version = TaskVersion.objects.create(
        enterprise_id=task.enterprise_id, task=task, number=number, grants=_clean_grants(grants)
    )
    audit_record(action="task.version", target=task, details={"number": number, "grants": version.grants})
    return version


@transaction.atomic
def task_clone(*, task: Task, name: str | None = None, created_by: Member | None = None) -> Task:
    return task_create(
        project=task.project,
        name=name or f"{task.name} (clone)",
        goal=task.goal,
        team=task.team,
        clone_of=task,
        created_by=created_by,
    )
