"""Tasks over REST: list and read (``tasks:read``), create and edit (``tasks:write``; an edit is a new
version carrying the task's layer grants). Who may is ``accounts.access`` (manage on the task's project)."""

from __future__ import annotations

from typing import Any

from drf_spectacular.utils import OpenApiParameter, extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import access
from accounts.api.v1.base import TenantAPIView
from accounts.selectors.console import project_get
from accounts.selectors.people import team_get
from core.errors import InvalidInput, NotFound
from core.schema import extra_error
from memory.models import Task
from memory.selectors.tasks import task_readable_get, tasks_readable
from memory.services.tasks import GRANTABLE, task_open, task_update

GRANTS_HELP = (
    "The layers this version lets a run write beyond the task's own: team or enterprise, each for source "
    "event ids starting with its prefix (team: and gate: are reserved)."
)


class GrantSerializer(serializers.Serializer[Any]):
    layer = serializers.ChoiceField(choices=list(GRANTABLE))
    prefix = serializers.CharField(
        max_length=200, allow_blank=True, trim_whitespace=False, help_text="An event id prefix (not blank)."
    )


class VersionOut(serializers.Serializer[Any]):
    number = serializers.IntegerField()
    grants = GrantSerializer(many=True)
    created_at = serializers.DateTimeField()


class TaskOut(serializers.Serializer[Any]):
    id = serializers.CharField()
    project = serializers.CharField(help_text="The project's slug.")
    project_id = serializers.CharField()
    team = serializers.CharField(allow_null=True, help_text="The team's slug (its layer), or null.")
    name = serializers.CharField()
    goal = serializers.CharField(allow_blank=True)
    clone_of = serializers.CharField(allow_null=True)
    version = serializers.IntegerField(help_text="The latest version's number.")
    versions = VersionOut(many=True, help_text="Newest first.")
    created_at = serializers.DateTimeField()


def _task_out(task: Task) -> dict[str, Any]:
    versions = list(task.versions.all())
    return {
        "id": str(task.pk),
        "project": task.project.slug,
        "project_id": str(task.project_id),
        "team": task.team.slug if task.team else None,
        "name": task.name,
        "goal": task.goal,
        "clone_of": str(task.clone_of_id) if task.clone_of_id else None,
        "version": versions[0].number if versions else 0,
        "versions": [{"number": v.number, "grants": v.grants, "created_at": v.created_at} for v in versions],
        "created_at": task.created_at,
    }


class TaskIn(serializers.Serializer[Any]):
    project_id = serializers.UUIDField()
    name = serializers.CharField(max_length=200, trim_whitespace=False)
    goal = serializers.CharField(max_length=10_000, required=False, default="", allow_blank=True)
    team = serializers.IntegerField(
        min_value=1,
        max_value=2**63 - 1,
        required=False,
        allow_null=True,
        default=None,
        help_text="The team whose layer the task reads (default: the project's team).",
    )
    grants = serializers.ListField(
        child=GrantSerializer(), required=False, default=list, max_length=20, help_text=GRANTS_HELP
    )


class TaskEditIn(serializers.Serializer[Any]):
    name = serializers.CharField(max_length=200, trim_whitespace=False, required=False)
    goal = serializers.CharField(max_length=10_000, required=False, allow_blank=True)
    grants = serializers.ListField(
        child=GrantSerializer(),
        required=False,
        max_length=20,
        help_text=GRANTS_HELP + " Omitted: the latest version's.",
    )


def _parsed(incoming: serializers.Serializer[Any], refusal: str) -> dict[str, Any]:
    if not incoming.is_valid():
        raise InvalidInput(refusal, code="invalid_input")
    return dict(incoming.validated_data)


class _TaskScopes(TenantAPIView):
    required_scope = "tasks:read"

    def scope_for(self, request: Request) -> str | None:
        return "tasks:write" if request.method in ("POST", "PATCH") else "tasks:read"


class TasksView(_TaskScopes):
    @extend_schema(
        responses=TaskOut(many=True),
        parameters=[OpenApiParameter("project", str, description="Only this project's tasks (its slug).")],
        summary="Tasks this key may read, newest first, with their versions",
    )
    def get(self, request: Request) -> Response:
        tasks = tasks_readable(member=self.access_key.member, key=self.access_key)
        if request.query_params.get("project"):
            tasks = tasks.filter(project__slug=request.query_params["project"])
        return Response([_task_out(t) for t in tasks[:500]])

    @extend_schema(
        request=TaskIn,
        responses={201: TaskOut, 404: extra_error("The project or team named is not one this key may read.")},
        summary="Create a task with version 1 (manage on its project; audited)",
    )
    def post(self, request: Request) -> Response:
        data = _parsed(
            TaskIn(data=request.data),
            'send {"project_id": "...", "name": "...", "goal": "...", "grants": [{"layer", "prefix"}]}',
        )
        key = self.access_key
        project = project_get(
            projects=access.projects_readable(member=key.member), project_id=str(data["project_id"])
        )
        if project is None or not access.key_may_use_project(key=key, project_id=project.pk):
            raise NotFound("project not found", code="not_found")
        team = None
        if data["team"] is not None:
            team = team_get(team_id=data["team"])
            if team is None:
                raise NotFound("team not found", code="team_not_found")
        task = task_open(
            member=key.member,
            key=key,
            project=project,
            name=data["name"],
            goal=data["goal"],
            team=team,
            grants=[dict(g) for g in data["grants"]],
        )
        found = task_readable_get(member=key.member, key=key, task_id=task.pk)
        return Response(_task_out(found or task), status=201)


class TaskView(_TaskScopes):
    def _task(self, task_id: Any) -> Task:
        task = task_readable_get(member=self.access_key.member, key=self.access_key, task_id=task_id)
        if task is None:
            raise NotFound("task not found", code="not_found")
        return task

    @extend_schema(responses=TaskOut, summary="One task, with its versions")
    def get(self, request: Request, task_id: str) -> Response:
        return Response(_task_out(self._task(task_id)))

    @extend_schema(
        request=TaskEditIn,
        responses=TaskOut,
        summary="Edit a task: a new version (its grants, else the latest's), and its name or goal (audited)",
    )
    def patch(self, request: Request, task_id: str) -> Response:
        data = _parsed(
            TaskEditIn(data=request.data),
            'send any of {"name": "...", "goal": "...", "grants": [{"layer", "prefix"}]}',
        )
        key = self.access_key
        task = self._task(task_id)
        grants = data.get("grants")
        task_update(
            member=key.member,
            key=key,
            task=task,
            name=data.get("name"),
            goal=data.get("goal"),
            grants=[dict(g) for g in grants] if grants is not None else None,
        )
        return Response(_task_out(self._task(task_id)))
