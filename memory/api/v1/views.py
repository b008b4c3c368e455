"""REST routes of tools that are not the generic tool route (core.http.ToolCallView): the task-run
tools' and save_memories' batch route."""

from __future__ import annotations

from django.http import HttpRequest, JsonResponse
from django.utils.decorators import method_decorator
from django.views.decorators.csrf import csrf_exempt

from core.http import ToolCallView


@method_decorator(csrf_exempt, name="dispatch")
class TaskTrainView(ToolCallView):
    """POST /v1/tasks/<taskId>/memory/train: memory.train for that task (scope tasks:write)."""

    def post(self, request: HttpRequest, task_id: str, name: str = "memory.train") -> JsonResponse:  # type: ignore[override]
        return super().post(request, name="memory.train", task_id=str(task_id))


@method_decorator(csrf_exempt, name="dispatch")
class MemoriesBatchView(ToolCallView):
    """POST /v1/memories:batch: save_memories, up to 1,000 memories in one call (scope memory:write)."""

    def post(
        self, request: HttpRequest, name: str = "save_memories", task_id: str | None = None
    ) -> JsonResponse:
        return super().post(request, name="save_memories")
