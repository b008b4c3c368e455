"""docs/tools/<toolset>.md, generated from the registry (``manage.py tools_docs``)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from django.conf import settings

from core.registry import TOOLSETS, ToolSpec, registry

HEADER = "Generated from the built-in tools registry. Do not edit by hand."
TITLES = {
    "aiakiv": "Memory graph tools",
    "remember": "remember tools",
    "enterprise": "Enterprise memory tools",
}


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs" / "tools"


def _branches(prop: dict[str, Any], defs: dict[str, Any]) -> list[dict[str, Any]]:
    """The schemas a value may take, nulls left out and references resolved."""
    if "$ref" in prop:
        return _branches(defs[prop["$ref"].split("/")[-1]], defs)
    if "anyOf" in prop:
        return [b for sub in prop["anyOf"] for b in _branches(sub, defs) if b.get("type") != "null"]
    return [prop]


def _type(schema: dict[str, Any], defs: dict[str, Any]) -> str:
    kind = schema.get("type", "any")
    if kind == "array":
        items = " or ".join(_type(b, defs) for b in _branches(schema.get("items", {}), defs))
        return f"array of {items}"
    if kind == "object" and "title" in schema and "properties" in schema:
        return f"object ({schema['title']})"
    return str(kind)


def _bounds(schema: dict[str, Any], defs: dict[str, Any]) -> list[str]:
    """A value's bounds in words: lengths, counts, ranges and choices (the schema's own keywords)."""
    out = []
    low, high = schema.get("minLength"), schema.get("maxLength")
    if high is not None:
        out.append(f"{low or 0}-{high} characters" if low else f"at most {high} characters")
    elif low:
        out.append(f"at least {low} character{'s' if low > 1 else ''}")
    low, high = schema.get("minimum"), schema.get("maximum")
    if low is not None or high is not None:
        out.append(f"{'' if low is None else low}..{'' if high is None else high}")
    if "maxItems" in schema:
        out.append(f"at most {schema['maxItems']} items")
    if "maxProperties" in schema:
        out.append(f"at most {schema['maxProperties']} entries")
    if "enum" in schema:
        out.append("one of " + ", ".join(f"`{v}`" for v in schema["enum"]))
    if schema.get("type") == "array":
        for item in _branches(schema.get("items", {}), defs):
            inner = _bounds(item, defs)
            if inner:
                out.append(f"each {'; '.join(inner)}")
    return out


def _arguments(schema: dict[str, Any]) -> list[str]:
    """The top-level arguments as a table, with every bound the schema states (nested ones are in the
    schema below)."""
    properties = schema.get("properties", {})
    if not properties:
        return ["Arguments: none.", ""]
    defs = schema.get("$defs", {})
    required = set(schema.get("required", []))
    lines = [
        "Arguments:",
        "",
        "| argument | type | required | default | bounds | description |",
        "|---|---|---|---|---|---|",
    ]
    for name, prop in properties.items():
        branches = _branches(prop, defs)
        kind = " or ".join(_type(b, defs) for b in branches)
        # Bounds sit on the property itself or on the branch it takes when it is not null.
        stated = [prop, *(b for b in branches if b is not prop)]
        bounds = "; ".join(bound for schema in stated for bound in _bounds(schema, defs))
        default = f"`{json.dumps(prop['default'])}`" if "default" in prop else ""
        row = [
            f"`{name}`",
            kind,
            "yes" if name in required else "no",
            default,
            bounds,
            prop.get("description", ""),
        ]
        lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in row) + " |")
    return [*lines, ""]


def _tool_section(spec: ToolSpec) -> list[str]:
    lines = [f"## {spec.name}", "", spec.summary, ""]
    if spec.mcp_name != spec.name:
        lines += [f"MCP name: `{spec.mcp_name}`", ""]
    lines += ["What the model reads:", "", spec.description, ""]
    lines.append(f"- Effect: {spec.effect}.")
    lines.append(f"- Retry: {spec.retry}")
    lines.append(f"- Called by: {', '.join(spec.called_by)}.")
    if spec.needs:
        lines.append("- Needs:")
        lines += [f"  - {need}" for need in spec.needs]
    lines.append(f"- Scope: `{spec.scope}`.")
    hints = [
        f"read-only: {str(spec.read_only).lower()}",
        f"idempotent: {str(spec.idempotent).lower()}",
        f"destructive: {str(spec.destructive).lower()}",
        f"open-world: {str(spec.open_world).lower()}",
    ]
    lines.append(f"- Hints: {', '.join(hints)}.")
    lines.append(f"- Returns: {spec.returns}")
    routes = [f"POST /v1/tools/{spec.name} ({spec.scope})", *spec.api_routes]
    lines.append(f"- API: {'; '.join(routes)}")
    lines.append("")
    for title, example in spec.examples:
        lines += [
            f"Example, {title[0].lower() + title[1:]}:",
            "",
            "```json",
            json.dumps(example, indent=2),
            "```",
            "",
        ]
    lines += _arguments(spec.input_schema())
    lines += [
        "Input schema:",
        "",
        "```json",
        json.dumps(spec.input_schema(), indent=2, sort_keys=True),
        "```",
        "",
    ]
    return lines


def render_toolset(toolset: str) -> str:
    specs = [s for s in registry.all() if s.toolset == toolset]
    lines = [f"# {TITLES[toolset]}", "", HEADER, "", TOOLSETS[toolset], ""]
    if not specs:
        lines += ["No tools of this set are registered yet.", ""]
    for spec in specs:
        lines += _tool_section(spec)
    return "\n".join(lines).rstrip() + "\n"


def rendered_docs() -> dict[str, str]:
    return {f"{toolset}.md": render_toolset(toolset) for toolset in TOOLSETS}


def write_docs() -> list[Path]:
    target = docs_dir()
    target.mkdir(parents=True, exist_ok=True)
    written = []
    for name, text in rendered_docs().items():
        path = target / name
        path.write_text(text)
        written.append(path)
    return written
