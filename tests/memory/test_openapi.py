"""The OpenAPI document (/v1/schema/) says every status each route can answer, with one Error body."""

from __future__ import annotations

import json
from typing import Any

import pytest
from openapi_spec_validator import validate
from pydantic import BaseModel, ConfigDict, Field

from core.openapi import add_tool_paths
from core.registry import ToolSpec, registry
from core.schema import ERROR_SCHEMA

ERROR_REF = {"$ref": "#/components/schemas/Error"}

# The DRF views' statuses: the door's for every operation (400, 401, 406, 422: accounts.api.v1.base
# checks every query string, the parser every body; 503 while the database is down), 403 with a scope,
# 404 with a path id, 413 and 415 with a body; and each view's own (extend_schema).
DOOR = {"400", "401", "406", "422", "503"}
DRF_ROUTES = {
    ("get", "/v1/whoami"): DOOR | {"200"},
    ("get", "/v1/audit-events"): DOOR | {"200", "403"},
    ("get", "/v1/audit-events/{event_id}"): DOOR | {"200", "403", "404"},
    ("post", "/v1/guard/check"): DOOR | {"200", "403", "413", "415"},
    ("get", "/v1/guard/settings"): DOOR | {"200", "403"},
    ("put", "/v1/guard/settings"): DOOR | {"200", "403", "413", "415"},
    ("post", "/v1/guard/reports"): DOOR | {"201", "403", "404", "409", "413", "415"},
    ("post", "/v1/tasks/{task_id}/runs"): DOOR | {"201", "403", "404"},
    ("post", "/v1/tasks/{task_id}/runs/{run_id}/finish"): DOOR | {"200", "403", "404", "409", "413", "415"},
    ("get", "/v1/exports"): DOOR | {"200", "403"},
    ("post", "/v1/exports"): DOOR | {"202", "403", "404", "413", "415"},
    ("get", "/v1/exports/{export_id}"): DOOR | {"200", "403", "404"},
    ("get", "/v1/imports"): DOOR | {"200", "403"},
    ("post", "/v1/imports"): DOOR | {"202", "403", "404", "409", "413", "415"},
    ("get", "/v1/imports/{import_id}"): DOOR | {"200", "403", "404"},
    # People (accounts/api/v1/people.py) and tasks (memory/api/v1/tasks.py).
    ("get", "/v1/members"): DOOR | {"200", "403"},
    ("post", "/v1/members"): DOOR | {"201", "403", "404", "413", "415"},
    ("get", "/v1/members/{member_id}"): DOOR | {"200", "403", "404"},
    ("patch", "/v1/members/{member_id}"): DOOR | {"200", "403", "404", "413", "415"},
    ("get", "/v1/teams"): DOOR | {"200", "403"},
    ("post", "/v1/teams"): DOOR | {"201", "403", "409", "413", "415"},
    ("patch", "/v1/teams/{team_id}"): DOOR | {"200", "403", "404", "413", "415"},
    ("delete", "/v1/teams/{team_id}"): DOOR | {"204", "403", "404"},
    ("get", "/v1/projects/{project_id}/grants"): DOOR | {"200", "403", "404"},
    ("post", "/v1/projects/{project_id}/grants"): DOOR | {"200", "403", "404", "413", "415"},
    ("get", "/v1/tasks"): DOOR | {"200", "403"},
    ("post", "/v1/tasks"): DOOR | {"201", "403", "404", "413", "415"},
    ("get", "/v1/tasks/{task_id}"): DOOR | {"200", "403", "404"},
    ("patch", "/v1/tasks/{task_id}"): DOOR | {"200", "403", "404", "413", "415"},
    # Events and webhooks (events/api/v1/views.py).
    ("get", "/v1/events"): DOOR | {"200", "403"},
    ("get", "/v1/webhooks"): DOOR | {"200", "403"},
    ("post", "/v1/webhooks"): DOOR | {"201", "403", "413", "415"},
    ("get", "/v1/webhooks/{webhook_id}"): DOOR | {"200", "403", "404"},
    ("patch", "/v1/webhooks/{webhook_id}"): DOOR | {"200", "403", "404", "413", "415"},
    ("delete", "/v1/webhooks/{webhook_id}"): DOOR | {"204", "403", "404"},
    ("get", "/v1/webhooks/{webhook_id}/deliveries"): DOOR | {"200", "403", "404"},
    ("post", "/v1/webhooks/deliveries/{delivery_id}/replay"): DOOR | {"202", "403", "404"},
}
# Tool routes that are not under /v1/tools/ nor a task's /memory/ (a tool's own api_routes).
TOOL_ROUTES = {"/v1/memories:batch"}
# 409 on a read too: write_conflict, a call the database cancelled on every attempt (core.dispatch).
READ_TOOL = {"200", "400", "401", "403", "404", "409", "413", "422", "429", "503"}
WRITE_TOOL = READ_TOOL


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    from django.test import Client

    response = Client().get("/v1/schema/?format=json")
    assert response.status_code == 200
    return json.loads(response.content)


def _operations(document):
    for path, item in document["paths"].items():
        for method, operation in item.items():
            yield method, path, operation


def _refs(node):
    if isinstance(node, dict):
        for key, value in node.items():
            if key == "$ref":
                yield value
            else:
                yield from _refs(value)
    elif isinstance(node, list):
        for value in node:
            yield from _refs(value)


def test_the_document_is_valid_openapi_and_every_ref_resolves(document):
    validate(document)
    schemas = document["components"]["schemas"]
    for ref in _refs(document):
        assert ref.startswith("#/components/schemas/"), ref
        assert ref.removeprefix("#/components/schemas/") in schemas, ref


def test_one_error_body_for_every_refusal(document):
    assert document["components"]["schemas"]["Error"] == ERROR_SCHEMA
    assert ERROR_SCHEMA["required"] == ["error", "code"] and ERROR_SCHEMA["additionalProperties"] is True
    for method, path, operation in _operations(document):
        assert operation["security"] == [{"accessKey": []}], (method, path)
        assert "X-Request-Id" in {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        for status, response in operation["responses"].items():
            if status.startswith("2"):
                continue
            assert response["description"], (method, path, status)
            assert response["content"] == {"application/json": {"schema": ERROR_REF}}, (method, path, status)
    assert document["components"]["securitySchemes"]["accessKey"]["scheme"] == "bearer"


def test_every_drf_route_lists_what_its_door_and_view_answer(document):
    documented = {
        (method, path): set(operation["responses"])
        for method, path, operation in _operations(document)
        if not path.startswith("/v1/tools/") and "/memory/" not in path and path not in TOOL_ROUTES
    }
    assert documented == DRF_ROUTES


def test_every_tool_route_lists_what_the_tool_door_answers(document):
    for spec in registry.all():
        operation = document["paths"][f"/v1/tools/{spec.name}"]["post"]
        assert set(operation["responses"]) == (READ_TOOL if spec.read_only else WRITE_TOOL), spec.name
        # The door's 401 says how to authenticate (memory.api.v1.views.error_response).
        assert "WWW-Authenticate" in operation["responses"]["401"]["headers"]
        assert "Retry-After" in operation["responses"]["503"]["headers"]
        body = operation["requestBody"]
        assert body["content"]["application/json"]["schema"] == {
            "$ref": f"#/components/schemas/{spec.input_model.__name__}"
        }
        assert body["required"] == bool(spec.input_schema().get("required")), spec.name
        headers = {p["name"] for p in operation["parameters"] if p["in"] == "header"}
        assert headers == {"X-Request-Id"} | (set() if spec.read_only else {"X-Idempotency-Key"}), spec.name


def test_the_seed_routes_take_task_ids_and_query_arguments(document):
    ask = document["paths"]["/v1/tasks/{taskId}/memory/ask"]["get"]
    assert "requestBody" not in ask
    assert set(ask["responses"]) == READ_TOOL - {"413"}
    parameters = {p["name"]: p for p in ask["parameters"]}
    assert parameters["taskId"]["schema"] == {"type": "string", "format": "uuid"}
    assert {n for n, p in parameters.items() if p["in"] == "query"} == {
        "purpose",
        "teamId",
        "projectId",
        "limit",
    }
    assert parameters["purpose"]["required"] is True and parameters["teamId"]["schema"]["type"] == "integer"
    train = document["paths"]["/v1/tasks/{taskId}/memory/train"]["post"]
    assert set(train["responses"]) == WRITE_TOOL
    assert train["requestBody"] == document["paths"]["/v1/tools/memory.train"]["post"]["requestBody"]
    batch = document["paths"]["/v1/memories:batch"]["post"]
    assert set(batch["responses"]) == WRITE_TOOL
    assert batch["requestBody"] == document["paths"]["/v1/tools/save_memories"]["post"]["requestBody"]
    assert "X-Idempotency-Key" in {p["name"] for p in batch["parameters"]}


class _Nested(BaseModel):
    model_config = ConfigDict(extra="forbid")
    value: int = Field(description="A value.")


class _WithDefs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nested: _Nested = Field(description="A nested model.")


def _another_nested() -> type[BaseModel]:
    class _Nested(BaseModel):  # the same name as the one above, another shape
        model_config = ConfigDict(extra="forbid")
        other: str = Field(description="Another field.")

    return _Nested


class _ClashingDefs(BaseModel):
    model_config = ConfigDict(extra="forbid")
    nested: _another_nested() = Field(description="A nested model of the same name.")  # type: ignore[valid-type]


def _spec(name: str, input_model: type[BaseModel]) -> ToolSpec:
    return ToolSpec(
        name=name,
        toolset="remember",
        title="t",
        summary="s",
        description="d",
        input_model=input_model,
        output_model=input_model,
        scope="memory:read",
        handler=lambda call, args: args,
        read_only=True,
        idempotent=True,
    )


@pytest.fixture
def extra_tools():
    added: list[str] = []

    def add(spec: ToolSpec) -> None:
        registry._tools[spec.name] = spec
        added.append(spec.name)

    yield add
    for name in added:
        del registry._tools[name]


def test_pydantic_defs_become_components_and_a_name_clash_is_refused(extra_tools):
    extra_tools(_spec("test_defs", _WithDefs))
    result = add_tool_paths({"paths": {}}, None, None, True)
    schemas = result["components"]["schemas"]
    assert schemas["_WithDefs"]["properties"]["nested"]["$ref"] == "#/components/schemas/_Nested"
    assert schemas["_Nested"]["properties"]["value"]["type"] == "integer"
    assert "$defs" not in schemas["_WithDefs"]

    extra_tools(_spec("test_clash", _ClashingDefs))
    with pytest.raises(ValueError, match="'_Nested' is defined twice"):
        add_tool_paths({"paths": {}}, None, None, True)
