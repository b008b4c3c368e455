"""Tasks (enterprise seed): created with a first version; versions carry layer grants."""

from __future__ import annotations

from typing import Any

from django.db import transaction
from django.db.models import Max

from accounts import access
from accounts.models import AccessKey, Member, Project, Team
from accounts.services.audit import audit_record
from core.errors import InvalidInput, Unprocessable
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


TASK_NAME_BOUNDS = "a task's name is 1 to 200 characters"


def _task_name(name: str) -> str:
    name = name.strip()
    if not name or len(name) > 200:
        raise Unprocessable(TASK_NAME_BOUNDS, code="invalid_name")
    return name


def _grants_checked(grants: list[dict[str, Any]] | None) -> list[dict[str, str]]:
    """The grants, or the refusal as 422 (a well-formed request the rules refuse: a reserved prefix)."""
    try:
        return _clean_grants(grants)
    except InvalidInput as exc:
        raise Unprocessable(exc.message, code=exc.code) from exc


@transaction.atomic
def task_open(
    *,
    member: Member,
    key: AccessKey | None,
    project: Project,
    name: str,
    goal: str = "",
    team: Team | None = None,
    grants: list[dict[str, Any]] | None = None,
) -> Task:
    """A new task in a project the member manages (the access policy), with version 1 and its layer grants."""
    access.task_change_check(member=member, key=key, project=project)
    return task_create(
        project=project,
        name=_task_name(name),
        goal=goal,
        team=team,
        grants=_grants_checked(grants),
        created_by=member,
    )


@transaction.atomic
def task_update(
    *,
    member: Member,
    key: AccessKey | None,
    task: Task,
    name: str | None = None,
    goal: str | None = None,
    grants: list[dict[str, Any]] | None = None,
) -> TaskVersion:
    """An edit is a new version: its layer grants (``grants``, else the latest version's), and the
    task's name and goal when given (audited with the version)."""
    access.task_change_check(member=member, key=key, project=task.project)
    changed: dict[str, Any] = {}
    if name is not None and _task_name(name) != task.name:
        changed["name"] = {"from": task.name, "to": _task_name(name)}
        task.name = _task_name(name)
    if goal is not None and goal != task.goal:
        changed["goal"] = {"from": task.goal, "to": goal}
        task.goal = goal
    if changed:
        task.save(update_fields=[field for field in ("name", "goal") if field in changed])
        audit_record(action="task.update", target=task, details=changed)
    if grants is None:
        latest = TaskVersion.objects.filter(task=task).order_by("-number").first()
        grants = list(latest.grants) if latest is not None else []
    return task_version_create(task=task, grants=_grants_checked(grants))
