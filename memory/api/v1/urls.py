from __future__ import annotations

from django.urls import path

from core import http
from memory.api.v1 import guard, runs, views

urlpatterns = [
    path("tools/<str:name>", http.ToolCallView.as_view(), name="tool-call"),
    path("guard/check", guard.GuardCheckView.as_view(), name="guard-check"),
    path("guard/settings", guard.GuardSettingsView.as_view(), name="guard-settings"),
    path("guard/reports", guard.GuardReportsView.as_view(), name="guard-reports"),
    path("tasks/<uuid:task_id>/memory/ask", runs.TaskAskView.as_view(), name="task-ask"),
    path("tasks/<uuid:task_id>/runs", runs.RunStartView.as_view(), name="task-run-start"),
    path(
        "tasks/<uuid:task_id>/runs/<uuid:run_id>/finish", runs.RunFinishView.as_view(), name="task-run-finish"
    ),
    path("tasks/<uuid:task_id>/memory/train", views.TaskTrainView.as_view(), name="task-train"),
]
