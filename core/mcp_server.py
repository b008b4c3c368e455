"""The MCP surface: the official SDK's low-level server over the one registry.

Streamable HTTP at ``/mcp`` (in the same ASGI application as Django, bearer
access key) and stdio (``manage.py mcp_stdio``, key from ``MNEMOS_ACCESS_KEY``).
Every call goes through ``core.dispatch.tool_dispatch``.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from typing import Any

import mcp_types as types
from asgiref.sync import sync_to_async
from mcp.server.lowlevel import Server
from mcp.shared.exceptions import MCPError

from core.dispatch import UnknownTool, tool_dispatch, tool_list_for
from core.errors import InternalError, MnemosError, ServiceUnavailable, failure_error
from core.http import request_id_from
from core.registry import ToolSpec

SERVER_NAME = "mnemos"
INSTRUCTIONS = (
    "Mnemos is this company's shared memory. Search it before answering from scratch, save what the user "
    "asks to keep, and show switch links to the user rather than switching anything yourself."
)

SecretSource = Callable[[Any], str | None]


def http_secret(ctx: Any) -> str | None:
    """The bearer key of the HTTP request behind this MCP request."""
    from core.http import bearer_secret

    request = getattr(ctx, "request", None)
    if request is None:
        return None
    return bearer_secret(request.headers.get("authorization"))


def mcp_tool(spec: ToolSpec) -> types.Tool:
    return types.Tool(
        name=spec.mcp_name,
        title=spec.title,
        description=spec.description,
        input_schema=spec.input_schema(),
        output_schema=spec.output_schema(),
        annotations=types.ToolAnnotations(
            title=spec.title,
            read_only_hint=spec.read_only,
            destructive_hint=spec.destructive,
            idempotent_hint=spec.idempotent,
            open_world_hint=spec.open_world,
        ),
    )


def error_text(tool_name: str, message: str) -> str:
    return f"Error executing tool {tool_name}: {message}"


def server_error(error: MnemosError) -> MCPError:
    """An outage (or a crash outside the tool door) as a JSON-RPC error: the SDK's clients raise it as an
    ``MCPError`` with this message, and its ``data`` is the REST body (``{"error", "code", ...}``)."""
    return MCPError(types.INTERNAL_ERROR, error.message, data=error.as_dict())


def build_server(secret_source: SecretSource, *, surface: str) -> Server[Any]:
    async def list_tools(ctx: Any, params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        try:
            specs = await sync_to_async(tool_list_for)(secret=secret_source(ctx))
        except Exception as exc:  # a refusal, or an outage or crash that failure_error logs
            error = failure_error(exc, request_id=uuid.uuid4().hex, where="tools/list")
            if isinstance(error, (ServiceUnavailable, InternalError)):
                raise server_error(error) from exc
            raise MCPError(types.INVALID_REQUEST, error.message) from exc
        return types.ListToolsResult(tools=[mcp_tool(spec) for spec in specs])

    async def call_tool(ctx: Any, params: types.CallToolRequestParams) -> types.CallToolResult:
        request_id = str(ctx.request_id) if getattr(ctx, "request_id", None) is not None else None
        outcome = await sync_to_async(tool_dispatch)(
            secret=secret_source(ctx),
            name=params.name,
            arguments=params.arguments,
            surface=surface,
            # A JSON-RPC id is the client's choice: one that does not fit the audit gets a fresh request id.
            request_id=None if request_id is None else request_id_from(f"mcp-{request_id}"),
        )
        if isinstance(outcome.error, UnknownTool):
            raise MCPError(types.INVALID_PARAMS, outcome.error.message)
        if isinstance(outcome.error, ServiceUnavailable):  # the server's trouble, not the call's
            raise server_error(outcome.error)
        if outcome.error is not None:
            return types.CallToolResult(
                content=[types.TextContent(text=error_text(params.name, outcome.error.message))],
                is_error=True,
            )
        output = outcome.output or {}
        return types.CallToolResult(
            content=[types.TextContent(text=json.dumps(output, ensure_ascii=False))],
            structured_content=output,
        )

    return Server(
        SERVER_NAME,
        version="1.0",
        title="Mnemos",
        instructions=INSTRUCTIONS,
        on_list_tools=list_tools,
        on_call_tool=call_tool,
    )
