"""Task runs over REST: start (consult memory) and finish (learn from the outcome)."""

from __future__ import annotations

import re
from typing import Any

from django.http import HttpRequest, JsonResponse
from drf_spectacular.utils import extend_schema
from rest_framework import serializers
from rest_framework.request import Request
from rest_framework.response import Response

from accounts import access
from accounts.api.v1.base import TenantAPIView
from accounts.models import AccessKey
from core.dispatch import tool_dispatch
from core.errors import InvalidInput, NotFound
from core.http import ToolCallView, bearer_secret, error_response, request_id_from
from core.schema import extra_error
from memory.models import Task, TaskRun
from memory.services.runs import task_run_finish, task_run_start

_INTEGER = re.compile(r"-?[0-9]{1,19}")


def _task(task_id: object, key: AccessKey) -> Task:
    """The task, when this key may read it (else the same not-found a missing task gets)."""
    task = Task.objects.select_related("project").filter(pk=task_id).first()
    if task is None or not access.task_may_read(member=key.member, key=key, task=task):
        raise NotFound("task not found", code="not_found")
    return task


class RunStartOut(serializers.Serializer[Any]):
    runId = serializers.CharField()
    taskId = serializers.CharField()
    runKey = serializers.CharField(
        help_text="An access key for this run only: memory.ask and memory.train, until finish."
    )
    consulted = serializers.JSONField(
        help_text="What memory said about the task's goal: {status, answer, evidence}."
    )


class RunStartView(TenantAPIView):
    required_scope = "tasks:write"

    @extend_schema(
        request=None,
        responses={201: RunStartOut},
        summary="Start a run: consult memory on the task's goal",
    )
    def post(self, request: Request, task_id: str) -> Response:
        task = _task(task_id, self.access_key)
        started = task_run_start(task=task, member=self.access_key.member, key=self.access_key)
        consulted = started.consulted
        return Response(
            {
                "runId": str(started.run.pk),
                "taskId": str(task.pk),
                "runKey": started.run_key,
                "consulted": {
                    "status": consulted.status,
                    "answer": consulted.answer,
                    "evidence": [
                        {
                            "id": str(e.memory.pk),
                            "layer": e.memory.layer,
                            "text": e.text,
                            "partial": e.partial,
                        }
                        for e in consulted.evidence
                    ],
                    "omitted": [
                        {"id": str(m.pk), "layer": m.layer, "chars": len(m.content)}
                        for m in consulted.omitted
                    ],
                },
            },
            status=201,
        )


class RunFinishIn(serializers.Serializer[Any]):
    outcome = serializers.CharField(
        allow_blank=True, max_length=100_000, help_text="What the run established."
    )


class RunFinishOut(serializers.Serializer[Any]):
    runId = serializers.CharField()
    state = serializers.CharField(help_text="The run's state after finishing (finished).")
    learned = serializers.JSONField(
        allow_null=True, help_text="{id} of the task-layer note learned from the outcome, or null."
    )


class RunFinishView(TenantAPIView):
    required_scope = "tasks:write"

    @extend_schema(
        request=RunFinishIn,
        responses={
            200: RunFinishOut,
            409: extra_error("A plan limit is reached: the outcome cannot be learned."),
        },
        summary="Finish a run: learn a task-layer note from its outcome (idempotent)",
    )
    def post(self, request: Request, task_id: str, run_id: str) -> Response:
        incoming = RunFinishIn(data=request.data)
        if not incoming.is_valid():
            raise InvalidInput('send {"outcome": "..."}', code="invalid_input")
        run = (
            TaskRun.objects.select_related("task__project", "run_key")
            .filter(pk=run_id, task_id=task_id)
            .first()
        )
        if run is None or not access.task_may_read(
            member=self.access_key.member, key=self.access_key, task=run.task
        ):
            raise NotFound("run not found", code="not_found")
        run = task_run_finish(
            run=run,
            outcome=incoming.validated_data["outcome"],
            member=self.access_key.member,
            key=self.access_key,
        )
        return Response(
            {
                "runId": str(run.pk),
                "state": run.state,
                "learned": {"id": str(run.learned_id)} if run.learned_id else None,
            }
        )


class TaskAskView(ToolCallView):
    """GET /v1/tasks/<taskId>/memory/ask?purpose=...&teamId=&projectId=&limit= (scope tasks:read)."""

    http_method_names = ["get"]

    def get(self, request: HttpRequest, task_id: object) -> JsonResponse:
        arguments: dict[str, Any] = {}
        for name in ("purpose", "projectId"):
            if name in request.GET:
                arguments[name] = request.GET[name]
        for name in ("teamId", "limit"):
            if name in request.GET:
                raw = request.GET[name]
                if not _INTEGER.fullmatch(raw):  # 19 digits at most: the model's range decides
                    return error_response(InvalidInput(f"{name} must be an integer", code="invalid_input"))
                arguments[name] = int(raw)
        outcome = tool_dispatch(
            secret=bearer_secret(request.headers.get("Authorization")),
            name="memory.ask",
            arguments=arguments,
            surface="rest",
            request_id=request_id_from(request.headers.get("X-Request-Id")),
            task_id=str(task_id),
        )
        if outcome.error is not None:
            return error_response(outcome.error)
        return JsonResponse(outcome.output or {}, json_dumps_params={"ensure_ascii": False})
