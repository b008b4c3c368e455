"""OpenAPI for the tools: one path per tool, from the same pydantic models as MCP."""

from __future__ import annotations

import re
from typing import Any

from memory.registry import registry

ERROR_SCHEMA = {
    "type": "object",
    "required": ["error", "code"],
    "properties": {
        "error": {
            "type": "string",
            "description": "What went wrong, in the seed contracts' exact words where they give them.",
        },
        "code": {"type": "string", "description": "A stable machine-readable code."},
    },
}
ERROR_STATUSES = {
    "400": "Malformed request (not JSON, bad X-Idempotency-Key).",
    "401": "Missing, unknown, revoked or expired access key.",
    "403": "The key lacks the tool's scope, the membership may not write, or the subscription forbids it ([MMW Notice]).",
    "404": "Unknown tool, or an object that does not exist for this enterprise.",
    "409": "Conflict (idempotency key reused with different input, limits).",
    "413": "Request body too large.",
    "422": "Arguments do not match the tool's schema.",
    "429": "MCP rate limit exceeded, project call limit exceeded.",
}


def _hoist(schema: dict[str, Any], components: dict[str, Any]) -> dict[str, Any]:
    """Move pydantic's $defs into components and point $refs there."""
    defs = schema.pop("$defs", {})
    for name, sub in defs.items():
        components[name] = sub
    text = _rewrite_refs(schema)
    for name in defs:
        components[name] = _rewrite_refs(components[name])
    return text


def _rewrite_refs(node: Any) -> Any:
    if isinstance(node, dict):
        return {
            k: (
                v.replace("#/$defs/", "#/components/schemas/")
                if k == "$ref" and isinstance(v, str)
                else _rewrite_refs(v)
            )
            for k, v in node.items()
        }
    if isinstance(node, list):
        return [_rewrite_refs(v) for v in node]
    return node


def add_tool_paths(result: dict[str, Any], generator: Any, request: Any, public: bool) -> dict[str, Any]:
    """drf-spectacular postprocessing hook."""
    components = result.setdefault("components", {}).setdefault("schemas", {})
    components["ToolError"] = ERROR_SCHEMA
    security = result["components"].setdefault("securitySchemes", {})
    security["accessKey"] = {"type": "http", "scheme": "bearer", "description": "A Mnemos access key."}
    paths = result.setdefault("paths", {})
    paths.pop("/v1/tools/{name}", None)
    for spec in registry.all():
        input_name, output_name = spec.input_model.__name__, spec.output_model.__name__
        components[input_name] = _hoist(spec.input_schema(), components)
        components[output_name] = _hoist(spec.output_schema(), components)
        responses: dict[str, Any] = {
            "200": {
                "description": spec.returns or "The tool's result.",
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{output_name}"}}},
            }
        }
        for status, text in ERROR_STATUSES.items():
            responses[status] = {
                "description": text,
                "content": {"application/json": {"schema": {"$ref": "#/components/schemas/ToolError"}}},
            }
        parameters = []
        if not spec.read_only:
            parameters.append(
                {
                    "name": "X-Idempotency-Key",
                    "in": "header",
                    "required": False,
                    "description": "1-256 printable ASCII characters; a repeat with the same input returns the same response.",
                    "schema": {"type": "string", "minLength": 1, "maxLength": 256},
                }
            )
        operation = {
            "operationId": f"tool_{spec.mcp_name}",
            "summary": spec.summary,
            "description": spec.description,
            "tags": [f"tools: {spec.toolset}"],
            "security": [{"accessKey": []}],
            "parameters": parameters,
            "requestBody": {
                "required": False,
                "content": {"application/json": {"schema": {"$ref": f"#/components/schemas/{input_name}"}}},
            },
            "responses": responses,
            "x-scope": spec.scope,
            "x-read-only": spec.read_only,
            "x-idempotent": spec.idempotent,
        }
        paths[f"/v1/tools/{spec.name}"] = {"post": operation}
        for route in spec.api_routes:
            _add_seed_route(paths, route, operation)
    return result


def _add_seed_route(paths: dict[str, Any], route: str, operation: dict[str, Any]) -> None:
    """A route the seed names, as "METHOD /v1/tasks/:taskId/... (scope)"."""
    method, path = route.split(" ")[:2]
    names = re.findall(r":(\w+)", path)
    openapi_path = re.sub(r":(\w+)", r"{\1}", path)
    seed_operation = dict(operation)
    seed_operation["operationId"] = f"{operation['operationId']}_{method.lower()}_route"
    seed_operation["parameters"] = [
        {"name": n, "in": "path", "required": True, "schema": {"type": "string"}} for n in names
    ] + list(operation["parameters"])
    if method.upper() == "GET":
        seed_operation.pop("requestBody", None)
    paths.setdefault(openapi_path, {})[method.lower()] = seed_operation
