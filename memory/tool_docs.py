"""docs/tools/<toolset>.md, generated from the registry (``manage.py tools_docs``)."""

from __future__ import annotations

import json
from pathlib import Path

from django.conf import settings

from memory.registry import TOOLSETS, ToolSpec, registry

HEADER = "Generated from the built-in tools registry. Do not edit by hand."
TITLES = {
    "aiakiv": "Memory graph tools",
    "remember": "remember tools",
    "enterprise": "Enterprise memory tools",
}


def docs_dir() -> Path:
    return Path(settings.BASE_DIR) / "docs" / "tools"


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
