from __future__ import annotations

from django.urls import path

from core import http
from memory.api.v1 import exports, guard, imports, runs, tasks, views

urlpatterns = [
    path("tools/<str:name>", http.ToolCallView.as_view(), name="tool-call"),
    path("exports", exports.ExportsView.as_view(), name="exports"),
    path("exports/<uuid:export_id>", exports.ExportView.as_view(), name="export"),
    path("exports/download/<str:token>", exports.export_download, name="export-download"),
    path("imports", imports.ImportsView.as_view(), name="imports"),
    path("imports/<uuid:import_id>", imports.ImportView.as_view(), name="import"),
    path("guard/check", guard.GuardCheckView.as_view(), name="guard-check"),
    path("guard/settings", guard.GuardSettingsView.as_view(), name="guard-settings"),
    path("guard/reports", guard.GuardReportsView.as_view(), name="guard-reports"),
    path("tasks", tasks.TasksView.as_view(), name="tasks"),
    path("tasks/<uuid:task_id>", tasks.TaskView.as_view(), name="task"),
    path("tasks/<uuid:task_id>/memory/ask", runs.TaskAskView.as_view(), name="task-ask"),
    path("tasks/<uuid:task_id>/runs", runs.RunStartView.as_view(), name="task-run-start"),
    path(
        "tasks/<uuid:task_id>/runs/<uuid:run_id>/finish", runs.RunFinishView.as_view(), name="task-run-finish"
    ),
    path("tasks/<uuid:task_id>/memory/train", views.TaskTrainView.as_view(), name="task-train"),
    path("memories:batch", views.MemoriesBatchView.as_view(), name="memories-batch"),
]
