"""Contract test over every registered tool, and the generated docs.

The toolset, the scope, the MCP name and its uniqueness are checked by ``register()`` itself at import
(a bad spec stops start-up); the tests here check that it refuses each, and what it cannot check.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import pytest
from pydantic import BaseModel

from core.registry import ToolRegistry, registry
from core.tool_docs import HEADER, docs_dir, rendered_docs

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


REFUSED = {
    "unknown toolset": ({"toolset": "nope"}, "tool 'list_memory_projects': unknown toolset 'nope'"),
    "unknown scope": (
        {"scope": "memory:everything"},
        "tool 'list_memory_projects': unknown scope 'memory:everything'",
    ),
    "MCP name": (
        {"name": "list memory"},
        "tool 'list memory': MCP name 'list memory' is not [A-Za-z0-9_-]{1,64}",
    ),
    "MCP name too long": (
        {"name": "x" * 65},
        f"tool '{'x' * 65}': MCP name '{'x' * 65}' is not [A-Za-z0-9_-]{{1,64}}",
    ),
}


@pytest.mark.parametrize("case", list(REFUSED))
def test_register_refuses_a_bad_spec_with_its_reason(case):
    changes, message = REFUSED[case]
    spec = dataclasses.replace(registry.get("list_memory_projects"), **changes)
    fresh = ToolRegistry()
    with pytest.raises(ValueError) as refused:
        fresh.register(spec)
    assert str(refused.value) == message
    assert fresh.all() == []


def test_register_refuses_a_name_twice_and_a_clashing_mcp_name():
    spec = registry.get("list_memory_projects")
    fresh = ToolRegistry()
    fresh.register(dataclasses.replace(spec, name="memory.list"))
    with pytest.raises(ValueError) as twice:
        fresh.register(dataclasses.replace(spec, name="memory.list"))
    assert str(twice.value) == "tool 'memory.list' registered twice"
    with pytest.raises(ValueError) as clash:
        fresh.register(dataclasses.replace(spec, name="memory_list"))  # its MCP name is memory.list's
    assert str(clash.value) == "tool 'memory_list': MCP name clashes with 'memory.list'"
    assert [t.name for t in fresh.all()] == ["memory.list"]


def _typed(schema) -> bool:
    if any(key in schema for key in ("type", "$ref", "enum", "const")):
        return True
    return any(schema.get(key) and all(_typed(s) for s in schema[key]) for key in ("anyOf", "oneOf", "allOf"))


def _untyped(schema, path="") -> list[str]:
    """Every property, item or map value that declares no type (an "anything"), by its path.

    Typed is a ``type``, a ``$ref``, an ``enum`` or ``const``, or an anyOf/oneOf/allOf of typed schemas: what
    the MCP Inspector's ``--strict`` asks of a tool's schemas (docs/tool-surfaces.md runs it).
    """
    if not isinstance(schema, dict):
        return []
    children = [(f"{path}.{name}", sub) for name, sub in schema.get("properties", {}).items()]
    children += [(f"{path}.{name}", sub) for name, sub in schema.get("patternProperties", {}).items()]
    children += [(f"{path}.{key}", schema[key]) for key in ("items", "additionalProperties") if key in schema]
    children += [(f"{path}.prefixItems[{i}]", sub) for i, sub in enumerate(schema.get("prefixItems", []))]
    # ``true`` (dict[str, Any]'s additionalProperties) is an "anything" too; ``false`` closes an object.
    found = [where for where, sub in children if sub is True or (isinstance(sub, dict) and not _typed(sub))]
    for where, sub in children:
        found += _untyped(sub, where)
    for key in ("anyOf", "oneOf", "allOf"):
        for i, sub in enumerate(schema.get(key, [])):
            found += _untyped(sub, f"{path}.{key}[{i}]")
    for key in ("if", "then", "else"):
        found += _untyped(schema.get(key), f"{path}.{key}")
    for name, sub in schema.get("$defs", {}).items():
        found += _untyped(sub, f"$defs.{name}")
    return sorted(where.lstrip(".") for where in found)


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_every_value_of_a_tool_schema_declares_its_type(spec):
    assert _untyped(spec.input_schema()) == []
    assert _untyped(spec.output_schema()) == []


def test_an_untyped_value_is_found():
    class Loose(BaseModel):
        rows: list[list[Any]]
        item: Any = None
        tags: dict[str, Any] = {}
        typed: list[dict[str, int]] | None = None

    assert _untyped(Loose.model_json_schema(mode="serialization")) == [
        "item",
        "rows.items.items",
        "tags.additionalProperties",
    ]


def test_committed_tool_docs_are_current():
    expected = rendered_docs()
    committed = {p.name: p.read_text() for p in docs_dir().glob("*.md")}
    assert committed == expected, "docs/tools is stale: run `python manage.py tools_docs` and commit"
    for text in expected.values():
        assert HEADER in text
