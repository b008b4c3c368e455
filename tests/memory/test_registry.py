"""Contract test over every registered tool, and the generated docs."""

from __future__ import annotations

import re

import pytest

from memory.registry import SCOPES, TOOLSETS, registry
from memory.tool_docs import HEADER, docs_dir, rendered_docs

TOOLS = registry.all()


def test_the_registry_is_not_empty():
    assert "list_memory_projects" in {t.name for t in TOOLS}


def _properties(schema, defs):
    """Every object schema reachable from this one, with its properties."""
    seen = [schema]
    stack = [schema]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            if "$ref" in node:
                target = defs[node["$ref"].split("/")[-1]]
                if target not in seen:
                    seen.append(target)
                    stack.append(target)
            stack.extend(v for k, v in node.items() if k != "$defs")
        elif isinstance(node, list):
            stack.extend(node)
    return [n for n in seen if isinstance(n, dict) and n.get("type") == "object"]


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_tool_contract(spec):
    assert spec.description.strip() and spec.summary.strip() and spec.title.strip()
    assert spec.toolset in TOOLSETS
    assert spec.scope in SCOPES
    assert re.fullmatch(r"[A-Za-z0-9_-]{1,64}", spec.mcp_name)
    # Hints are coherent: a read-only tool is idempotent and destroys nothing.
    if spec.read_only:
        assert spec.idempotent and not spec.destructive
    assert spec.retry and spec.returns and spec.called_by
    for schema in (spec.input_schema(), spec.output_schema()):
        defs = schema.get("$defs", {})
        for obj in _properties(schema, defs):
            # Closed schemas: no argument or field the contract does not name.
            assert obj.get("additionalProperties") is False, obj.get("title")
            for name, prop in obj.get("properties", {}).items():
                assert prop.get("description"), f"{spec.name}: {obj.get('title')}.{name} has no description"


def test_mcp_names_are_unique():
    names = [t.mcp_name for t in TOOLS]
    assert len(names) == len(set(names))


def test_committed_tool_docs_are_current():
    expected = rendered_docs()
    committed = {p.name: p.read_text() for p in docs_dir().glob("*.md")}
    assert committed == expected, "docs/tools is stale: run `python manage.py tools_docs` and commit"
    for text in expected.values():
        assert HEADER in text
