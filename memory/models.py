"""Memory records arrive with the write path (issue 4). Here: the per-project call windows."""

from __future__ import annotations

from django.db import models

from accounts.tenancy import TenantModel


class ToolCallWindow(TenantModel):
    """Tool calls counted per project per minute, for the plan's rate limit."""

    id = models.BigAutoField(primary_key=True)
    project = models.ForeignKey("accounts.Project", on_delete=models.CASCADE, related_name="+")
    window_start = models.DateTimeField()
    calls = models.PositiveIntegerField(default=0)

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["project", "window_start"], name="toolcallwindow_unique_minute")
        ]
