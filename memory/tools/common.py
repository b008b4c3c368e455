"""Pieces the memory tools share."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from accounts.errors import Forbidden
from accounts.models import Workspace
from accounts.services.workspaces import workspace_get_or_create
from memory.registry import ToolCall


class SearchedScope(BaseModel):
    model_config = ConfigDict(extra="forbid")

    enterprise: str = Field(description="The enterprise searched.")
    projects: list[str] | None = Field(
        description="Projects searched; null means every project the account may read."
    )
    workspace: str | None = Field(description="The folder searched when the connection is folder-bound.")
    enterprise_wide: bool = Field(description="Whether memories shared enterprise-wide were included.")
    team: int | None = Field(description="The team filter, when one was given.")
    layers: list[str] | None = Field(description="Layers read; null means every layer the account may read.")
    principal: list[int] | None = Field(description="Member ids the principal filter resolved to.")


WORKSPACE_DENIED = "403 Forbidden: workspace access denied for project"


class Closed(BaseModel):
    model_config = ConfigDict(extra="forbid")


def key_workspace(call: ToolCall, name: str | None) -> Workspace:
    """The workspace a write goes to: a folder-bound key's own, else the named one (created on first use)."""
    bound = call.access_key.workspace
    if bound is not None:
        if name is not None and name != bound.name:
            raise Forbidden(WORKSPACE_DENIED, code="workspace_forbidden")
        if bound.project_id != call.project.pk:
            raise Forbidden(WORKSPACE_DENIED, code="workspace_forbidden")
        return bound
    return workspace_get_or_create(project=call.project, name=name if name is not None else "default")
