"""The one tool registry. A tool is declared once and served everywhere.

MCP ``tools/list``, the REST endpoints, the OpenAPI document, the console's
tool page and ``docs/tools/*.md`` are all generated from these declarations.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager, nullcontext
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from pydantic import BaseModel
from pydantic_core import to_jsonable_python

if TYPE_CHECKING:
    from accounts.models import AccessKey, Enterprise, Member, Project

TOOLSETS: dict[str, str] = {
    "aiakiv": "Memory tools over the event / entity / tag graph (seed aiakiv-memory-tools).",
    "remember": "remember, forget and search with provenance and Memory Guard (seed remember-tool).",
    "enterprise": "Layered enterprise memory for task runs: memory.ask and memory.train (seed enterprise-memory-tools).",
}
SCOPES = ("memory:read", "memory:write", "tasks:read", "tasks:write", "partners:read", "admin")
MCP_NAME = re.compile(r"^[A-Za-z0-9_-]{1,64}$")


@dataclass
class ToolCall:
    """What a handler knows about the call: who, for which project, through which surface."""

    access_key: AccessKey
    member: Member
    project: Project
    enterprise: Enterprise
    surface: Literal["mcp", "rest", "stdio", "console", "run"]
    request_id: str
    idempotency_key: str | None = None
    # The task a run-scoped call is about (REST /v1/tasks/<id>/..., or a run key's task).
    task_id: str | None = None
    # Memory ids a read returned, for the read audit (filled by the handler).
    read_ids: list[str] = field(default_factory=list)


Handler = Callable[[ToolCall, Any], BaseModel]


@dataclass(frozen=True)
class ToolSpec:
    name: str
    toolset: str
    title: str
    summary: str
    description: str
    input_model: type[BaseModel]
    output_model: type[BaseModel]
    scope: str
    handler: Handler
    read_only: bool
    idempotent: bool
    destructive: bool = False
    open_world: bool = False
    retry: str = ""
    called_by: tuple[str, ...] = ("an MCP client", "the API")
    needs: tuple[str, ...] = ()
    returns: str = ""
    examples: tuple[tuple[str, dict[str, Any]], ...] = ()
    # Extra REST routes the seed names for this tool, as "METHOD /path (scope)".
    api_routes: tuple[str, ...] = ()
    # The argument the handler embeds as a search query (search_memory's ``query``, memory.ask's
    # ``purpose``): the door starts its embedding once the call has passed the gate, so the embedder
    # works while the rest of the door and the text channel run (memory.selectors.search).
    query_argument: str | None = None

    @property
    def mcp_name(self) -> str:
        """MCP clients and model APIs accept only [A-Za-z0-9_-]{1,64}: dots become underscores."""
        return self.name.replace(".", "_")

    def query_text(self, arguments: Any) -> str | None:
        """The text the door may start embedding before validation: only one the validation can accept (a
        string within the argument's max_length), so an over-long query is refused at once, never embedded."""
        if not self.query_argument or not isinstance(arguments, dict):
            return None
        query = arguments.get(self.query_argument)
        field = self.input_model.model_fields[self.query_argument]
        limit = max((getattr(m, "max_length", None) or 0 for m in field.metadata), default=0)
        return query if isinstance(query, str) and len(query) <= limit else None

    @property
    def effect(self) -> str:
        return "read" if self.read_only else "write"

    def input_schema(self) -> dict[str, Any]:
        return self.input_model.model_json_schema()

    def output_schema(self) -> dict[str, Any]:
        return self.output_model.model_json_schema(mode="serialization")


QueryPrefetch = Callable[[str | None], AbstractContextManager[Any]]


class ToolRegistry:
    def __init__(self) -> None:
        self._tools: dict[str, ToolSpec] = {}
        self._prefetch: QueryPrefetch = lambda _text: nullcontext()

    def query_prefetch_install(self, prefetch: QueryPrefetch) -> None:
        """What starts a query's embedding while the door goes on (memory installs its embedder's)."""
        self._prefetch = prefetch

    def query_prefetch(self, text: str | None) -> AbstractContextManager[Any]:
        return self._prefetch(text)

    def register(self, spec: ToolSpec) -> ToolSpec:
        if spec.name in self._tools:
            raise ValueError(f"tool {spec.name!r} registered twice")
        if spec.toolset not in TOOLSETS:
            raise ValueError(f"tool {spec.name!r}: unknown toolset {spec.toolset!r}")
        if spec.scope not in SCOPES:
            raise ValueError(f"tool {spec.name!r}: unknown scope {spec.scope!r}")
        if not MCP_NAME.match(spec.mcp_name):
            raise ValueError(f"tool {spec.name!r}: MCP name {spec.mcp_name!r} is not [A-Za-z0-9_-]{{1,64}}")
        clash = [t for t in self._tools.values() if t.mcp_name == spec.mcp_name]
        if clash:
            raise ValueError(f"tool {spec.name!r}: MCP name clashes with {clash[0].name!r}")
        self._tools[spec.name] = spec
        return spec

    def all(self) -> list[ToolSpec]:
        return sorted(self._tools.values(), key=lambda t: (t.toolset, t.name))

    def get(self, name: str) -> ToolSpec | None:
        """By seed name (``memory.ask``) or MCP name (``memory_ask``)."""
        spec = self._tools.get(name)
        if spec is None:
            spec = next((t for t in self._tools.values() if t.mcp_name == name), None)
        return spec

    def for_toolsets(self, toolsets: Iterable[str]) -> list[ToolSpec]:
        chosen = set(toolsets)
        return [t for t in self.all() if not chosen or t.toolset in chosen]


registry = ToolRegistry()


def dump_output(value: Any) -> Any:
    """A tool's output as JSON. Optional fields (default None) are left out when unset: the seeds'
    ``read_only?``, ``main_paused?``, ``rejected_tags?``; required fields stay, null or not."""
    if isinstance(value, BaseModel):
        out: dict[str, Any] = {}
        for name, info in type(value).model_fields.items():
            item = getattr(value, name)
            if item is None and not info.is_required() and info.default is None:
                continue
            out[info.alias or name] = dump_output(item)
        return out
    if isinstance(value, (list, tuple)):
        return [dump_output(v) for v in value]
    if isinstance(value, dict):
        return {k: dump_output(v) for k, v in value.items()}
    return to_jsonable_python(value)


def tools_for_key(key: AccessKey) -> list[ToolSpec]:
    """The tools an access key exposes: its toolsets (empty = all)."""
    return registry.for_toolsets(key.toolsets)
