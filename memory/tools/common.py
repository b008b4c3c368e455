"""Pieces the memory tools share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Annotated, Any

from pydantic import BaseModel, ConfigDict, Field, GetCoreSchemaHandler
from pydantic_core import CoreSchema, core_schema

from accounts.models import Workspace
from accounts.services.workspaces import workspace_get_or_create
from core.errors import Forbidden
from core.registry import ToolCall

# --- bounds every tool argument shares -----------------------------------------------------------
# Every argument is bounded in its input model, so the published schema (MCP tools/list, OpenAPI,
# docs/tools) states each bound and the door refuses an absurd value before any work is done.

# A search sentence (search_memory's query, memory.ask's purpose, ...). The embedders read at most
# 256 (MiniLM) or 512 (e5) tokens, about 1,000 to 2,000 characters of prose, and the text channel ranks
# on a handful of terms: a longer "query" is a document, which the tool would rank on no better.
QUERY_MAX = 2_000
# A new entity's name (the entity table keeps 300 characters of its name and of its folded key: room
# for the fold to widen a name, as NFKC does).
NAME_MAX = 200
# An entity name looked up (to find, unlink or rename): any spelling the table can hold.
NAME_LOOKUP_MAX = 300
# An entity's type (the table keeps 100).
TYPE_MAX = 100
# A tag path as given. Paths longer than 64 characters are soft-rejected (save_memory's rejected_tags);
# this is the hard bound past which the call is refused.
TAG_MAX = 200
# A label: remember's scope and source (the table keeps 200, and Memory Guard's redaction markers can
# widen a text it scrubs).
LABEL_MAX = 100
# A workspace (folder) name, as the workspace table keeps it.
WORKSPACE_MAX = 200
# An opaque id given as a string: a memory, link, project or entry id (a UUID in any spelling
# Python's uuid accepts, braces and urn:uuid: included).
ID_MAX = 64
# Items in one list argument (entities, ids, renames, ...). remember's derived_from keeps the seed's 50.
ITEMS_MAX = 100
TAGS_MAX = 50
# An integer id (entity, tag group, team): a PostgreSQL bigint.
ROW_ID_MAX = 2**63 - 1

RowId = Annotated[int, Field(strict=True, ge=1, le=ROW_ID_MAX)]


def stated(**keywords: Any) -> Any:
    """JSON-schema keywords for a bound the handler enforces itself, because the seed gives its refusal an
    exact text and status (remember's ``content exceeds maximum allowed length``, 413): the published
    schema states the bound, and the handler's check, not pydantic's, refuses past it."""
    return Field(json_schema_extra=keywords)


@dataclass(frozen=True)
class Clamped:
    """An integer the server clamps into ``low..high`` (the seeds' "clamped" arguments): the published
    schema states the range, any integer is accepted and clamped before it is checked, so ``2**63`` reads
    as ``high``. ``clamp_low``/``clamp_high`` false: past that end it is refused instead. Booleans and
    numeric strings are refused (``false`` is not an integer)."""

    low: int
    high: int
    clamp_low: bool = True
    clamp_high: bool = True

    def clamp(self, value: Any) -> Any:
        if isinstance(value, int) and not isinstance(value, bool):
            if self.clamp_low:
                value = max(self.low, value)
            if self.clamp_high:
                value = min(self.high, value)
        return value

    def __get_pydantic_core_schema__(self, source: Any, handler: GetCoreSchemaHandler) -> CoreSchema:
        return core_schema.no_info_before_validator_function(
            self.clamp, core_schema.int_schema(strict=True, ge=self.low, le=self.high)
        )


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
