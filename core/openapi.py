"""OpenAPI for the tools: one path per tool, from the same pydantic models as MCP.

Each operation lists what the tool door (``core.dispatch``) and the REST adapter
(``memory.api.v1.views``) can answer, with the shared ``Error`` body (``core.schema``).
"""

from __future__ import annotations

import re
from typing import Any

from core.registry import ToolSpec, registry
from core.schema import (
    ACCESS_KEY_SECURITY,
    REQUEST_ID_PARAMETER,
    RETRY_AFTER,
    UNAUTHENTICATED,
    UNAVAILABLE,
    WWW_AUTHENTICATE,
    error_response,
    register_components,
)

COMPONENTS_PREFIX = "#/components/schemas/"
# The seed routes' path ids are task ids: the URL converter (memory/api/v1/urls.py) takes only uuids.
PATH_PARAMETER_SCHEMAS: dict[str, dict[str, Any]] = {"taskId": {"type": "string", "format": "uuid"}}
QUERY_TYPES = frozenset({"string", "integer", "number", "boolean"})


def _hoist(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """Move pydantic's $defs into components and point $refs there."""
    defs = schema.pop("$defs", {})
    for name, sub in defs.items():
        _put(components, name, _rewrite_refs(sub))
    rewritten: dict[str, Any] = _rewrite_refs(schema)
    return rewritten


def _put(components: dict[str, Any], name: str, schema: dict[str, Any]) -> None:
    """One name, one schema: two models of one name would silently share whichever came last."""
    existing = components.setdefault(name, schema)
    if existing != schema:
        raise ValueError(f"OpenAPI component {name!r} is defined twice, differently: rename one model")


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                v.replace("#/$defs/", COMPONENTS_PREFIX)
                if k == "$ref" and isinstance(v, str)
                else _rewrite_refs(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


def tool_error_responses(spec: ToolSpec, *, method: str = "POST", task_route: bool = False) -> dict[str, Any]:
    """What one tool's route can refuse with, and why (the door's order: body, key, gate, arguments)."""
    if method == "GET":
        malformed = "A query parameter is not of its type (teamId and limit are integers)."
    else:
        malformed = (
            "The body is not a JSON object, or X-Idempotency-Key is not 1-256 printable ASCII characters; "
            "or an argument names something malformed."
        )
    responses: dict[str, Any] = {
        "400": error_response(malformed),
        "401": error_response(UNAUTHENTICATED, headers=WWW_AUTHENTICATE),
        "403": error_response(
            f"The key lacks the '{spec.scope}' scope, the subscription forbids it ([MMW Notice])"
            + ("" if spec.read_only else ", the membership may not write")
            + ", or the key or membership may not reach what the call names."
        ),
        "404": error_response(
            "Unknown tool (or one outside the key's toolsets), or an object that does not exist for this "
            "enterprise" + (" (the task)." if task_route else ".")
        ),
    }
    conflict = (
        "The database cancelled the call on every attempt to let other calls writing the same rows finish "
        "(`write_conflict`; nothing was changed: retry it)."
    )
    responses["409"] = error_response(
        conflict
        if spec.read_only
        else "The X-Idempotency-Key was used with different input, or a plan limit is reached. Or: "
        + conflict
    )
    if method != "GET":
        responses["413"] = error_response("The request body (or a text in it) is too large.")
    responses["422"] = error_response("The arguments do not match the tool's schema or its rules.")
    responses["429"] = error_response("MCP rate limit exceeded, project call limit exceeded.")
    responses["503"] = error_response(UNAVAILABLE, headers=RETRY_AFTER)
    return responses


def add_tool_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook."""
    register_components(result.setdefault("components", {}))
    components = result["components"]["schemas"]
    paths = result.setdefault("paths", {})
    paths.pop("/v1/tools/{name}", None)
    for spec in registry.all():
        input_name, output_name = spec.input_model.__name__, spec.output_model.__name__
        _put(components, input_name, _hoist(spec.input_schema(), components))
        _put(components, output_name, _hoist(spec.output_schema(), components))
        paths[f"/v1/tools/{spec.name}"] = {"post": _tool_operation(spec, components)}
        for route in spec.api_routes:
            _add_seed_route(paths, route, spec, components)
    return result


def _tool_operation(
    spec: ToolSpec,
    components: dict[str, Any],
    *,
    method: str = "POST",
    path_parameters: list[dict[str, Any]] | None = None,
    operation_id: str | None = None,
) -> dict[str, Any]:
    input_name, output_name = spec.input_model.__name__, spec.output_model.__name__
    parameters = list(path_parameters or [])
    if method == "GET":
        parameters += _query_parameters(components[input_name])
    elif not spec.read_only:
        parameters.append(
            {
                "name": "X-Idempotency-Key",
                "in": "header",
                "required": False,
                "description": "1-256 printable ASCII characters; a repeat with the same input returns the same response.",
                "schema": {"type": "string", "pattern": "^[\\x20-\\x7e]{1,256}$"},
            }
        )
    parameters.append(REQUEST_ID_PARAMETER)
    operation: dict[str, Any] = {
        "operationId": operation_id or f"tool_{spec.mcp_name}",
        "summary": spec.summary,
        "description": spec.description,
        "tags": [f"tools: {spec.toolset}"],
        "security": ACCESS_KEY_SECURITY,
        "parameters": parameters,
    }
    if method != "GET":
        operation["requestBody"] = {
            # An empty body is the empty object: optional only when no argument is required.
            "required": bool(components[input_name].get("required")),
            "content": {"application/json": {"schema": {"$ref": f"{COMPONENTS_PREFIX}{input_name}"}}},
        }
    operation["responses"] = {
        "200": {
            "description": spec.returns or "The tool's result.",
            "content": {"application/json": {"schema": {"$ref": f"{COMPONENTS_PREFIX}{output_name}"}}},
        },
        **tool_error_responses(spec, method=method, task_route=bool(path_parameters)),
    }
    operation.update({"x-scope": spec.scope, "x-read-only": spec.read_only, "x-idempotent": spec.idempotent})
    return operation


def _query_parameters(input_schema: dict[str, Any]) -> list[dict[str, Any]]:
    """A GET route's arguments: the input model's scalar fields, as query parameters (null = absent)."""
    required = set(input_schema.get("required", []))
    parameters = []
    for name, field in input_schema.get("properties", {}).items():
        branches = [b for b in field.get("anyOf", [field]) if b.get("type") != "null"]
        if len(branches) != 1 or branches[0].get("type") not in QUERY_TYPES:
            continue
        schema = {k: v for k, v in branches[0].items() if k not in ("title", "description")}
        parameters.append(
            {
                "name": name,
                "in": "query",
                "required": name in required,
                "description": field.get("description", ""),
                "schema": schema,
            }
        )
    return parameters


def _add_seed_route(paths: dict[str, Any], route: str, spec: ToolSpec, components: dict[str, Any]) -> None:
    """A route the seed names, as "METHOD /v1/tasks/:taskId/... (scope)"."""
    method, path = route.split(" ")[:2]
    method = method.upper()
    # A parameter is a whole segment (/:taskId/); a colon inside one is literal (/v1/memories:batch).
    openapi_path = re.sub(r"(?<=/):(\w+)", r"{\1}", path)
    path_parameters = [
        {
            "name": name,
            "in": "path",
            "required": True,
            "schema": PATH_PARAMETER_SCHEMAS.get(name, {"type": "string"}),
        }
        for name in re.findall(r"(?<=/):(\w+)", path)
    ]
    paths.setdefault(openapi_path, {})[method.lower()] = _tool_operation(
        spec,
        components,
        method=method,
        path_parameters=path_parameters,
        operation_id=f"tool_{spec.mcp_name}_{method.lower()}_route",
    )
