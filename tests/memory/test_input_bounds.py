"""Bounded inputs: every tool argument states its bounds in the published schema, and the door holds them.

The walk covers every registered tool (its input schema, as MCP tools/list, OpenAPI and docs/tools
publish it); the calls go over REST the way agents make them.
"""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from core.registry import registry
from memory.tools.common import Clamped
from tests.memory.helpers import save_event, tool

TOOLS = registry.all()


def _resolve(schema: dict[str, Any], defs: dict[str, Any]) -> dict[str, Any]:
    return defs[schema["$ref"].split("/")[-1]] if "$ref" in schema else schema


def _unbounded(
    schema: dict[str, Any], defs: dict[str, Any], where: str, inherited: dict[str, Any]
) -> list[str]:
    """Every value schema under ``schema`` lacking its bound, as ``where: what is missing``. A bound
    stated beside an ``anyOf`` (a nullable argument) holds for its branches."""
    schema = _resolve(schema, defs)
    bounds = {**inherited, **{k: v for k, v in schema.items() if k not in ("anyOf", "items", "properties")}}
    missing: list[str] = []
    for branch in schema.get("anyOf", []):
        missing += _unbounded(branch, defs, where, bounds)
    kind = schema.get("type")
    if kind == "object":
        for name, prop in schema.get("properties", {}).items():
            missing += _unbounded(prop, defs, f"{where}.{name}", {})
        for pattern in schema.get("patternProperties", {}).values():
            missing += _unbounded(pattern, defs, f"{where}.*", {})
        if schema.get("patternProperties") and "maxProperties" not in schema:
            missing.append(f"{where}: an open object without maxProperties")
    elif kind == "array":
        if "maxItems" not in bounds:
            missing.append(f"{where}: an array without maxItems")
        missing += _unbounded(schema.get("items", {}), defs, f"{where}[]", {})
    elif kind == "string":
        if "maxLength" not in bounds and "enum" not in bounds and "const" not in bounds:
            missing.append(f"{where}: a string without maxLength")
    elif kind in ("integer", "number") and ("minimum" not in bounds or "maximum" not in bounds):
        missing.append(f"{where}: a {kind} without minimum and maximum")
    return missing


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_every_argument_states_its_bounds(spec):
    schema = spec.input_schema()
    assert _unbounded(schema, schema.get("$defs", {}), spec.name, {}) == []


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_no_combinator_at_the_top_of_an_input_schema(spec):
    # The Anthropic API refuses every request whose tool list holds an input_schema with oneOf, anyOf
    # or allOf at its top level: rules across arguments are if/then/else instead.
    assert not {"oneOf", "anyOf", "allOf"} & set(spec.input_schema())
    assert spec.input_schema()["type"] == "object"


def _top_level_kinds(schema: dict[str, Any]) -> dict[str, tuple[str, bool]]:
    """Each top-level argument's scalar type (``integer``, ``number``, ``boolean``) and whether it is
    a list of them."""
    kinds = {}
    for name, prop in schema.get("properties", {}).items():
        for branch in prop.get("anyOf", [prop]):
            if branch.get("type") in ("integer", "number", "boolean"):
                kinds[name] = (branch["type"], False)
            elif branch.get("type") == "array" and branch.get("items", {}).get("type") in (
                "integer",
                "number",
            ):
                kinds[name] = (branch["items"]["type"], True)
    return kinds


WRONG = {"integer": (False, "int_type"), "number": (True, "float_type"), "boolean": (1, "bool_type")}


@pytest.mark.parametrize("spec", TOOLS, ids=lambda s: s.name)
def test_no_argument_coerces_a_boolean_or_an_integer(spec):
    # false is not an integer, 1 is not a boolean, and "5" is neither: every such argument is strict.
    for name, (kind, listed) in _top_level_kinds(spec.input_schema()).items():
        value, error_type = WRONG[kind]
        for given in (value, "5"):
            with pytest.raises(ValidationError) as refused:
                spec.input_model.model_validate({name: [given] if listed else given})
            where = (name, 0) if listed else (name,)
            errors = [e for e in refused.value.errors() if tuple(e["loc"])[: len(where)] == where]
            assert errors, f"{spec.name}.{name} accepted {given!r}"
            assert errors[0]["type"] == error_type, (spec.name, name, given, errors)


def test_the_walk_finds_a_missing_bound():
    schema = {
        "type": "object",
        "properties": {
            "q": {"type": "string"},
            "n": {"anyOf": [{"type": "integer", "minimum": 1}, {"type": "null"}]},
            "ids": {"type": "array", "items": {"type": "string", "maxLength": 5}},
            "ok": {"anyOf": [{"type": "string"}, {"type": "null"}], "maxLength": 3},
        },
    }
    assert _unbounded(schema, {}, "t", {}) == [
        "t.q: a string without maxLength",
        "t.n: a integer without minimum and maximum",
        "t.ids: an array without maxItems",
    ]


def test_clamped_clamps_any_integer_and_leaves_booleans_to_the_strict_check():
    bound = Clamped(1, 50)
    assert (bound.clamp(2**63), bound.clamp(-(2**63)), bound.clamp(7)) == (50, 1, 7)
    assert bound.clamp(False) is False
    assert Clamped(1, 50, clamp_low=False).clamp(0) == 0


def test_exactly_one_of_name_or_entity_id_is_in_the_schema():
    schema = registry.get("find_memories_by_entity").input_schema()
    assert schema["if"] == {"required": ["name"], "properties": {"name": {"type": "string"}}}
    assert schema["then"] == {"properties": {"entity_id": {"type": "null"}}}
    assert schema["else"]["required"] == ["entity_id"]


def test_seed_limits_are_stated_as_the_seeds_give_them():
    remember = registry.get("remember").input_schema()["properties"]
    assert remember["content"]["maxLength"] == 100_000 and remember["content"]["minLength"] == 1
    assert remember["derived_from"]["anyOf"][0]["maxItems"] == 50
    assert (remember["confidence"]["minimum"], remember["confidence"]["maximum"]) == (0, 1)
    save = registry.get("save_memory").input_schema()["properties"]
    assert save["summary"]["anyOf"][0]["maxLength"] == 500
    assert save["content"]["anyOf"][0]["maxLength"] == 50_000
    search = registry.get("search_memory").input_schema()["properties"]
    assert (search["top_k"]["minimum"], search["top_k"]["maximum"]) == (1, 50)
    assert (search["offset"]["minimum"], search["offset"]["maximum"]) == (0, 200)
    timeline = registry.get("list_memory_timeline").input_schema()["properties"]
    assert (timeline["limit"]["minimum"], timeline["limit"]["maximum"]) == (1, 200)
    sql = registry.get("query_memories_with_sql").input_schema()["properties"]
    assert sql["max_rows"]["default"] == 10_000 and sql["max_rows"]["maximum"] == 10_000
    assert sql["timeout_ms"]["default"] == 5_000 and sql["timeout_ms"]["maximum"] == 5_000


def test_the_tool_docs_state_the_bounds():
    from core.tool_docs import render_toolset

    aiakiv = render_toolset("aiakiv")
    assert "| `query` | string | yes |  | 1-2000 characters |" in aiakiv
    assert "| `entities` | array of object (EntityIn) | no | `null` | at most 100 items |" in aiakiv
    assert "| `top_k` | integer | no | `10` | 1..50 |" in aiakiv


# --- the door holds them ----------------------------------------------------------------------------


def _refused(response, status: int = 422) -> dict[str, Any]:
    assert response.status_code == status, response.content
    return response.json()


def test_an_over_long_query_is_refused_naming_the_field(client, world, alice):
    body = _refused(tool(client, alice, "search_memory", {"query": "x" * 100_000}))
    assert body == {"error": "query: String should have at most 2000 characters", "code": "invalid_arguments"}
    for name, argument in (("search", "query"), ("find_memory_connections", "sentence")):
        refused = _refused(tool(client, alice, name, {argument: "x" * 2001}))
        assert refused["error"] == f"{argument}: String should have at most 2000 characters"
    assert tool(client, alice, "search_memory", {"query": "x" * 2000}).status_code == 200


def test_the_door_embeds_only_a_query_the_validation_accepts(client, world, alice, monkeypatch):
    # The door starts a query's embedding before validation; an over-long one must not start it.
    from core.registry import registry

    started: list[object] = []
    prefetch = registry._prefetch

    def observed(text: object) -> Any:
        started.append(text)
        return prefetch(text)  # type: ignore[arg-type]

    monkeypatch.setattr(registry, "_prefetch", observed)
    assert tool(client, alice, "search_memory", {"query": "x" * 100_000}).status_code == 422
    assert tool(client, alice, "memory.ask", {"purpose": "x" * 2001}).status_code == 422
    assert tool(client, alice, "search_memory", {"query": 5}).status_code == 422
    assert tool(client, alice, "search_memory", {"query": "staging deploy"}).status_code == 200
    assert started == [None, None, None, "staging deploy"]


def test_a_thousand_entities_are_refused(client, world, alice):
    entities = [{"name": f"entity {i}", "type": "thing"} for i in range(1000)]
    body = _refused(
        tool(client, alice, "save_memory", {"summary": "s", "content": "c", "entities": entities, "tags": []})
    )
    assert body["error"] == "entities: List should have at most 100 items after validation, not 1000"
    assert body["code"] == "invalid_arguments"


def test_over_long_names_and_lists_are_refused(client, world, alice):
    save = {"summary": "s", "content": "c", "entities": [{"name": "n" * 201, "type": "thing"}]}
    assert _refused(tool(client, alice, "save_memory", save))["error"] == (
        "entities.0.name: String should have at most 200 characters"
    )
    tags = {"summary": "s", "content": "c", "entities": [], "tags": [f"t{i}" for i in range(51)]}
    assert _refused(tool(client, alice, "save_memory", tags))["error"].startswith(
        "tags: List should have at most 50 items"
    )
    event = save_event(client, alice, "Dana owns the deploy.", "Dana owns the deploy.", ["Dana"])
    ids = {"event_id": event, "add_entity_ids": list(range(1, 102))}
    assert _refused(tool(client, alice, "update_memory", ids))["error"].startswith(
        "add_entity_ids: List should have at most 100 items"
    )
    assert _refused(tool(client, alice, "update_memory", {"event_id": "x" * 65}))["error"] == (
        "event_id: String should have at most 64 characters"
    )
    graph = {"query": "START a = events(text: $q) RETURN a", "params": {f"p{i}": 1 for i in range(51)}}
    assert (
        _refused(tool(client, alice, "query_memory_graph", graph))["error"] == "params: at most 50 parameters"
    )
    long_text = {"query": "START a = events(text: $q) RETURN a", "params": {"q": "x" * 2001}}
    assert _refused(tool(client, alice, "query_memory_graph", long_text))["error"] == (
        "params.q: a text parameter takes at most 2000 characters"
    )


def test_seed_texts_stay_for_seed_limits(client, world, alice):
    too_long = tool(client, alice, "remember", {"content": "x" * 100_001})
    assert _refused(too_long, 413)["error"] == "content exceeds maximum allowed length"
    ids = [f"00000000-0000-0000-0000-{i:012d}" for i in range(51)]
    derived = tool(client, alice, "remember", {"content": "ok", "derived_from": ids})
    assert _refused(derived)["error"] == "derived_from accepts at most 50 memory ids"
    assert _refused(tool(client, alice, "remember", {"content": "ok", "confidence": 2}))["error"] == (
        "confidence must be between 0 and 1"
    )
    # The graph's own length bound is a syntax rejection (a result), as every graph rejection is.
    graph = tool(client, alice, "query_memory_graph", {"query": "x" * 10_001}).json()
    assert graph["blocked_by"] == "syntax" and "10000" in graph["error"]


def test_absurd_integers_clamp_or_are_refused_never_500(client, world, alice):
    save_event(client, alice, "Dana moved the deploy.", "Dana moved the deploy to systemd.", ["Dana"])
    days = tool(client, alice, "list_memory_timeline", {"days": 10**9})
    assert days.status_code == 200 and days.json()["total"] == 1
    offset = tool(client, alice, "search_memory", {"query": "deploy", "offset": 2**63})
    assert offset.status_code == 200 and offset.json()["hits"] == []
    top_k = tool(client, alice, "search_memory", {"query": "deploy", "top_k": 2**63})
    assert top_k.status_code == 200 and len(top_k.json()["hits"]) == 1
    assert tool(client, alice, "list_memory_timeline", {"limit": 2**63}).status_code == 200
    sql = {"sql": "SELECT count(*) AS n FROM agent.memories", "max_rows": 2**63, "timeout_ms": 2**63}
    assert tool(client, alice, "query_memories_with_sql", sql).status_code == 200
    assert _refused(tool(client, alice, "list_memory_timeline", {"entity_id": 2**63}))["error"] == (
        "entity_id: Input should be less than or equal to 9223372036854775807"
    )
    by_entity = tool(client, alice, "find_memories_by_entity", {"name": "dana", "offset": 2**63})
    assert _refused(by_entity)["error"] == "offset: Input should be less than or equal to 100000"
    assert tool(client, alice, "find_memories_by_entity", {"name": "dana", "offset": -5}).status_code == 200
    assert _refused(tool(client, alice, "list_memory_timeline", {"days": 0}))["error"] == (
        "days: Input should be greater than or equal to 1"
    )


def test_ask_limit_outside_1_to_50_is_refused(client, world, alice):
    for limit in (-1, 0, 51):
        body = _refused(tool(client, alice, "memory.ask", {"purpose": "release check", "limit": limit}))
        assert body["code"] == "invalid_arguments" and body["error"].startswith("limit: Input should be")
    assert _refused(tool(client, alice, "memory.ask", {"purpose": "x" * 2001}))["error"] == (
        "purpose: String should have at most 2000 characters"
    )


@pytest.mark.parametrize(
    "name, arguments, field",
    [
        ("search_memory", {"query": "deploy", "top_k": False}, "top_k"),
        ("search_memory", {"query": "deploy", "offset": True}, "offset"),
        ("list_memory_timeline", {"days": False}, "days"),
        ("memory.ask", {"purpose": "release", "limit": True}, "limit"),
        ("search_memory", {"query": "deploy", "top_k": "5"}, "top_k"),
    ],
)
def test_a_boolean_or_a_string_is_not_an_integer(client, world, alice, name, arguments, field):
    body = _refused(tool(client, alice, name, arguments))
    assert body == {"error": f"{field}: Input should be a valid integer", "code": "invalid_arguments"}


def test_an_integer_is_not_a_boolean_nor_a_number(client, world, alice):
    save = {"summary": "s", "content": "c", "entities": [], "allow_truncation_marker": 1}
    assert _refused(tool(client, alice, "save_memory", save))["error"] == (
        "allow_truncation_marker: Input should be a valid boolean"
    )
    remember = tool(client, alice, "remember", {"content": "ok", "confidence": True})
    assert _refused(remember)["error"] == "confidence: Input should be a valid number"


def test_exactly_one_of_name_or_entity_id(client, world, alice):
    for arguments in ({}, {"name": "dana", "entity_id": 1}):
        body = _refused(tool(client, alice, "find_memories_by_entity", arguments))
        assert body == {"error": "pass exactly one of name or entity_id", "code": "invalid_arguments"}
