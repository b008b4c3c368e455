"""No input answers 500 (issue 16): NUL characters, lone surrogates, deep JSON, oversized bodies,
malformed ids and numbers, over REST and MCP. Each refusal is JSON with its exact text."""

from __future__ import annotations

import asyncio
import json
import uuid

import httpx2
import mcp_types as types
import pytest
from django.test import Client

from accounts.models import AuditEvent
from core.inputs import MAX_DEPTH, arguments_check, json_depth
from core.tenancy import tenant_context
from memory.models import Memory
from memory.services.tasks import task_create
from tests.live import running_web
from tests.memory.helpers import tool

DEEP = "[" * 10_000 + "]" * 10_000
TOO_DEEP = {"error": "request body is nested too deep", "code": "invalid_json"}
TOO_LARGE = {"error": "request body too large", "code": "payload_too_large"}
NOT_FOUND = {"error": "not found", "code": "not_found"}


def nul(field: str) -> dict[str, str]:
    return {"error": f"{field}: must not contain NUL characters", "code": "invalid_characters"}


@pytest.fixture
def alice(world):
    return world.alice.keys[world.a.enterprise.slug][1]


@pytest.fixture
def task(world):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        return task_create(project=world.a.project, name="release check", goal="check releases")


def post(client, secret, url, body: str | bytes, content_type="application/json", **headers):
    return client.post(
        url, data=body, content_type=content_type, HTTP_AUTHORIZATION=f"Bearer {secret}", **headers
    )


def save_body(**changes) -> dict:
    return {
        "summary": "deploy notes",
        "entities": [],
        "content": "the deploy runs at nine",
        "tags": [],
        **changes,
    }


def nested_lists(levels: int) -> list:
    value: list = []
    for _ in range(levels - 1):
        value = [value]
    return value


def nothing_saved(world) -> bool:
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        return not Memory.objects.exists()


# The pure checks ---------------------------------------------------------------------------------


def test_json_depth_counts_brackets_outside_strings():
    assert json_depth("{}") == 1 and json_depth('{"a": [1, {"b": []}]}') == 4
    assert json_depth('{"a": "[[[[{{{{", "b": "\\"[[["}') == 1
    assert json_depth('{"a": "x\\\\", "b": [[1]]}') == 3  # an escaped backslash ends the string
    assert json_depth("[[[[") == 4 and json_depth("]]][[[") == 3  # unclosed brackets count
    siblings = "[[]," * 70 + "]" * 70  # no run of opening brackets, still 71 deep
    assert json_depth(siblings) == MAX_DEPTH + 1 and json_depth(siblings, limit=100) == 71
    assert json_depth('"' + '\\"' * 100_000) == 0  # an unclosed string full of escaped quotes: linear
    assert json_depth("") == 0 and json_depth("12") == 0
    assert json_depth(DEEP) == MAX_DEPTH + 1  # counting stops past the limit


def test_arguments_check_names_the_field_at_any_depth():
    arguments_check({"entities": [{"name": "ok", "type": "thing"}], "n": 1.5})
    with pytest.raises(Exception, match=r"^entities\.1\.name: must not contain NUL characters$"):
        arguments_check({"entities": [{"name": "ok"}, {"name": "a\x00b"}]})
    with pytest.raises(Exception, match=r"^tags\.0: must not contain unpaired surrogates$"):
        arguments_check({"tags": ["\udc00x"]})
    with pytest.raises(Exception, match=r"^a\\u0000b: argument names must not contain NUL characters$"):
        arguments_check({"a\x00b": 1})
    with pytest.raises(Exception, match=r"^limit: must be a finite number$"):
        arguments_check({"limit": float("inf")})
    with pytest.raises(Exception, match=r"^filters: nested deeper than 64 levels$"):
        arguments_check({"filters": nested_lists(MAX_DEPTH)})
    arguments_check({"filters": nested_lists(MAX_DEPTH - 1)})  # 64 levels, the arguments object included


# NUL characters and lone surrogates at the tool door (REST) -------------------------------------


def test_nul_in_a_value_is_refused_and_audited(client, world, alice):
    response = tool(client, alice, "save_memory", save_body(content="the deploy\x00runs"))
    assert response.status_code == 422
    assert response.json() == nul("content")
    assert nothing_saved(world)
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        event = AuditEvent.objects.filter(action="tool.error").latest("id")
    assert event.details["error_code"] == "invalid_characters"


def test_nul_deep_inside_a_value_names_its_path(client, world, alice):
    body = save_body(entities=[{"name": "Kafka", "type": "thing"}, {"name": "Ka\x00fka", "type": "thing"}])
    response = tool(client, alice, "save_memory", body)
    assert response.status_code == 422
    assert response.json() == nul("entities.1.name")


def test_nul_in_an_argument_name_is_refused(client, world, alice):
    response = tool(client, alice, "save_memory", {**save_body(), "con\x00tent": "x"})
    assert response.status_code == 422
    assert response.json() == {
        "error": "con\\u0000tent: argument names must not contain NUL characters",
        "code": "invalid_characters",
    }


@pytest.mark.parametrize(
    ("raw", "message"),
    [
        ('{"summary": "deploy \\ud800", "entities": [], "content": "c", "tags": []}', "summary"),
        ('{"summary": "s", "entities": [], "content": "c", "tags": ["\\udfff"]}', "tags.0"),
        ('{"summary": "s", "entities": [], "content": "c", "tags": [], "\\ud800": 1}', None),
    ],
)
def test_lone_surrogates_are_refused(client, world, alice, raw, message):
    response = post(client, alice, "/v1/tools/save_memory", raw)
    assert response.status_code == 422
    if message is None:
        expected = "\\ud800: argument names must not contain unpaired surrogates"
    else:
        expected = f"{message}: must not contain unpaired surrogates"
    assert response.json() == {"error": expected, "code": "invalid_characters"}
    assert nothing_saved(world)


def test_lone_surrogate_bytes_in_the_body_are_refused(client, alice):
    raw = b'{"summary": "s\xed\xa0\x80", "entities": [], "content": "c", "tags": []}'
    response = post(client, alice, "/v1/tools/save_memory", raw)
    assert response.status_code == 422
    assert response.json()["error"] == "summary: must not contain unpaired surrogates"


def test_nul_in_a_query_parameter(client, alice, task):
    response = client.get(
        f"/v1/tasks/{task.pk}/memory/ask?purpose=a%00b", HTTP_AUTHORIZATION=f"Bearer {alice}"
    )
    assert response.status_code == 422 and response.json() == nul("purpose")
    response = client.get("/v1/audit-events?action=tool.call%00", HTTP_AUTHORIZATION=f"Bearer {alice}")
    assert response.status_code == 422 and response.json() == nul("action")


# save_memory's payload string ---------------------------------------------------------------------


def test_a_deep_payload_string_is_refused(client, world, alice):
    deep_payload = "[" * 5_000 + "]" * 5_000
    response = tool(client, alice, "save_memory", {"payload": deep_payload})
    assert response.status_code == 422
    assert response.json() == {"error": "payload: nested deeper than 64 levels", "code": "nested_too_deep"}


def test_a_payload_string_with_nul_or_surrogates_is_refused(client, world, alice):
    payload = json.dumps(save_body(content="the deploy\x00runs"))
    response = tool(client, alice, "save_memory", {"payload": payload})
    assert response.status_code == 422 and response.json() == nul("payload.content")
    payload = '{"summary": "s\\ud800", "entities": [], "content": "c", "tags": []}'
    response = tool(client, alice, "save_memory", {"payload": payload})
    assert response.status_code == 422
    assert response.json()["error"] == "payload.summary: must not contain unpaired surrogates"
    assert nothing_saved(world)


def test_a_payload_string_still_saves(client, world, alice):
    response = tool(client, alice, "save_memory", {"payload": json.dumps(save_body())})
    assert response.status_code == 200, response.content


# Deep JSON, before parsing, on every REST route ---------------------------------------------------


def _routes(task) -> list[str]:
    return [
        "/v1/tools/save_memory",
        "/v1/guard/check",
        f"/v1/tasks/{task.pk}/runs/{uuid.uuid4()}/finish",
        f"/v1/tasks/{task.pk}/memory/train",
    ]


def test_deep_json_is_a_400_on_every_route(client, alice, task):
    for url in _routes(task):
        for body in (DEEP, '{"text": ' + DEEP + "}", "[" * 10_000):
            response = post(client, alice, url, body)
            assert (url, response.status_code, response.json()) == (url, 400, TOO_DEEP)


def test_json_at_the_depth_limit_is_parsed(client, alice, task):
    nested = "[" * (MAX_DEPTH - 1) + "]" * (MAX_DEPTH - 1)
    response = post(client, alice, "/v1/tools/list_memory_projects", '{"deep": ' + nested + "}")
    assert response.status_code == 422  # parsed; then refused as an unknown argument
    assert response.json() == {"error": "deep: unknown argument", "code": "invalid_arguments"}
    response = post(client, alice, "/v1/guard/check", '{"text": "x", "deep": ' + nested + "}")
    assert response.status_code == 200


def test_non_json_numbers_are_a_400(client, alice):
    for constant in ("NaN", "Infinity", "-Infinity"):
        response = post(client, alice, "/v1/tools/list_memory_projects", '{"limit": ' + constant + "}")
        assert response.status_code == 400
        assert response.json() == {
            "error": f"request body is not valid JSON: {constant} is not valid JSON",
            "code": "invalid_json",
        }
    response = post(client, alice, "/v1/tools/list_memory_projects", '{"limit": ' + "9" * 5000 + "}")
    assert response.json() == {
        "error": "request body is not valid JSON: a number is too long",
        "code": "invalid_json",
    }
    response = post(client, alice, "/v1/guard/check", '{"text": NaN}')
    assert response.status_code == 400 and response.json()["code"] == "invalid_json"


def test_drf_routes_refuse_nul_with_the_field(client, alice, task):
    response = post(client, alice, "/v1/guard/check", json.dumps({"text": "a\x00b"}))
    assert response.status_code == 422 and response.json() == nul("text")
    url = f"/v1/tasks/{task.pk}/runs/{uuid.uuid4()}/finish"
    response = post(client, alice, url, json.dumps({"outcome": "done\x00"}))
    assert response.status_code == 422 and response.json() == nul("outcome")


def test_drf_routes_speak_json_only(client, alice):
    response = post(
        client, alice, "/v1/guard/check", "text=x", content_type="application/x-www-form-urlencoded"
    )
    assert response.status_code == 415
    assert response.json()["code"] == "unsupported_media_type"


# Body size: 413 on every route --------------------------------------------------------------------


@pytest.mark.parametrize("size", [2 * 1024 * 1024 + 10, 3_000_000])
def test_a_large_body_is_a_413_on_every_route(client, alice, task, size):
    body = json.dumps({"outcome": "x" * size, "text": "x"})
    for url in _routes(task):
        response = post(client, alice, url, body)
        assert (url, response.status_code, response.json()) == (url, 413, TOO_LARGE)


# Malformed ids and numbers in paths and query strings --------------------------------------------


@pytest.mark.parametrize(
    "url",
    [
        "/v1/tasks/not-a-uuid/runs",
        "/v1/tasks/not-a-uuid/memory/train",
        "/v1/tasks/not-a-uuid/memory/ask",
        f"/v1/tasks/{uuid.uuid4()}/runs/42/finish",
        "/v1/audit-events/abc",
        "/v1/audit-events/-1",
        "/v1/no-such-endpoint",
    ],
)
def test_a_malformed_path_is_the_json_404(client, alice, url):
    method = client.get if url.endswith("/ask") or "audit" in url or "no-such" in url else client.post
    response = method(url, HTTP_AUTHORIZATION=f"Bearer {alice}")
    assert response.status_code == 404
    assert response["Content-Type"] == "application/json"
    assert response.json() == NOT_FOUND


def test_outside_the_api_a_404_stays_a_page(client):
    response = client.get("/no-such-page")
    assert response.status_code == 404 and response["Content-Type"].startswith("text/html")


def test_a_huge_audit_event_id_is_not_found(client, alice):
    response = client.get("/v1/audit-events/" + "9" * 30, HTTP_AUTHORIZATION=f"Bearer {alice}")
    assert response.status_code == 404 and response.json()["code"] == "not_found"


@pytest.mark.parametrize("value", ["9" * 25, "9" * 5000, "²", "1.5", "1e3", ""])
def test_a_bad_integer_in_the_ask_query_is_a_400(client, alice, task, value):
    response = client.get(
        f"/v1/tasks/{task.pk}/memory/ask?purpose=x&limit={value}", HTTP_AUTHORIZATION=f"Bearer {alice}"
    )
    assert response.status_code == 400
    assert response.json() == {"error": "limit must be an integer", "code": "invalid_input"}


@pytest.mark.parametrize("value", ["-5", "0", "9" * 25, "abc", "9" * 5000])
def test_a_bad_audit_limit_is_never_a_500(client, alice, value):
    response = client.get(f"/v1/audit-events?limit={value}", HTTP_AUTHORIZATION=f"Bearer {alice}")
    assert response.status_code in (400, 422) and set(response.json()) >= {"error", "code"}


# Headers -----------------------------------------------------------------------------------------


@pytest.mark.parametrize("request_id", ["r" * 65, "a b", "caf\u00e9"])
def test_an_unfit_request_id_gets_a_fresh_one(client, world, alice, request_id):
    response = tool(client, alice, "list_memory_projects", {}, HTTP_X_REQUEST_ID=request_id)
    assert response.status_code == 200
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        event = AuditEvent.objects.filter(action="tool.call").latest("id")
    assert event.request_id != request_id and len(event.request_id) == 32
    response = client.get("/v1/whoami", HTTP_AUTHORIZATION=f"Bearer {alice}", HTTP_X_REQUEST_ID=request_id)
    assert response.status_code == 200


def test_a_fitting_request_id_is_kept(client, world, alice):
    tool(client, alice, "list_memory_projects", {}, HTTP_X_REQUEST_ID="trace-1234")
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        assert AuditEvent.objects.filter(action="tool.call").latest("id").request_id == "trace-1234"


def test_a_disallowed_host_is_a_json_400_under_the_api(client):
    response = client.get("/v1/whoami", HTTP_HOST="evil.example")
    assert response.status_code == 400 and response.json() == {"error": "bad request", "code": "bad_request"}


def test_the_last_resort_500_is_json_under_the_api(world, alice, monkeypatch):
    from core import http as views

    def broken(*args, **kwargs):
        raise RuntimeError("boom")

    monkeypatch.setattr(views, "tool_dispatch", broken)
    response = post(Client(raise_request_exception=False), alice, "/v1/tools/list_memory_projects", "{}")
    assert response.status_code == 500
    body = response.json()
    assert body == {"error": "internal error", "code": "internal_error", "request_id": body["request_id"]}
    assert len(body["request_id"]) == 32  # a fresh one: the request sent none


# The admin's "view on site" shortcut ---------------------------------------------------------------


def test_the_admin_view_on_site_shortcut_is_gone(client, world):
    client.force_login(world.bob.user)
    for url in ("/admin/r/11/1/", "/admin/r/1/not-a-uuid/", "/admin/r/x/y/"):
        assert client.get(url).status_code == 404


# MCP ---------------------------------------------------------------------------------------------


@pytest.fixture(scope="module")
def web(committed_world):
    with running_web() as base:
        yield base


def _mcp_post(web: str, secret: str, content: bytes) -> httpx2.Response:
    return httpx2.post(
        f"{web}/mcp",
        content=content,
        headers={
            "Authorization": f"Bearer {secret}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
        timeout=30,
    )


def _mcp_message(response: httpx2.Response) -> dict:
    """The JSON-RPC answer, from a JSON body or the SSE stream's data line."""
    if response.headers["content-type"].startswith("text/event-stream"):
        data = [
            line[5:] for line in response.text.splitlines() if line.startswith("data:") and line[5:].strip()
        ]
        return json.loads(data[-1])
    return response.json()


def _tools_call(name: str, arguments_json: str, request_id: str | int = 1) -> bytes:
    return (
        '{"jsonrpc": "2.0", "id": ' + json.dumps(request_id) + ', "method": "tools/call", '
        '"params": {"name": ' + json.dumps(name) + ', "arguments": ' + arguments_json + "}}"
    ).encode()


def _mcp_error_text(message: dict) -> str:
    result = message["result"]
    assert result["isError"] is True
    return result["content"][0]["text"]


def test_mcp_nul_is_an_is_error_result_with_the_sdk_client(web, committed_world):
    from mcp import Client
    from mcp.client.streamable_http import streamable_http_client

    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]

    async def go():
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=30)
        async with Client(streamable_http_client(f"{web}/mcp", http_client=http)) as c:
            value = await c.call_tool("save_memory", save_body(content="a\x00b"))
            name = await c.call_tool("list_memory_projects", {"a\x00": 1})
            nested = await c.call_tool("list_memory_projects", {"filters": nested_lists(100)})
            return value, name, nested

    value, name, nested = asyncio.run(go())
    assert value.is_error and value.content[0].text == (
        "Error executing tool save_memory: content: must not contain NUL characters"
    )
    assert name.is_error and name.content[0].text == (
        "Error executing tool list_memory_projects: a\\u0000: argument names must not contain NUL characters"
    )
    assert nested.is_error and nested.content[0].text == (
        "Error executing tool list_memory_projects: filters: nested deeper than 64 levels"
    )


def test_mcp_bad_input_never_reaches_internal_error(web, committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    payload = json.dumps("[" * 5_000 + "]" * 5_000)
    refused = {
        '{"summary": "s", "entities": [], "content": "a\\u0000b", "tags": []}': (
            "content: must not contain NUL characters"
        ),
        '{"payload": ' + payload + "}": "payload: nested deeper than 64 levels",
        '{"summary": "s", "entities": [], "content": "c", "tags": [], "n": NaN}': "n: must be a finite number",
    }
    for arguments, error in refused.items():
        message = _mcp_message(_mcp_post(web, secret, _tools_call("save_memory", arguments)))
        assert _mcp_error_text(message) == f"Error executing tool save_memory: {error}"
    # A JSON-RPC id too long (or odd) for the audit's request id: the call still runs.
    for request_id in ("x" * 500, "a\u0000b"):
        message = _mcp_message(_mcp_post(web, secret, _tools_call("list_memory_projects", "{}", request_id)))
        assert message["id"] == request_id and message["result"]["isError"] is False
    # A tool name with NUL is an unknown tool: invalid params.
    message = _mcp_message(_mcp_post(web, secret, _tools_call("list\u0000", "{}")))
    assert message["error"]["code"] == types.INVALID_PARAMS


def test_mcp_refuses_what_it_cannot_parse_with_400(web, committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    for arguments in ('{"a": ' + DEEP + "}", '{"content": "\\ud800"}'):
        response = _mcp_post(web, secret, _tools_call("save_memory", arguments))
        assert response.status_code == 400
        assert response.json()["error"]["code"] == types.PARSE_ERROR
        assert "internal" not in response.text.lower()


def test_mcp_body_over_the_limit_is_a_413(web, committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    body = _tools_call("save_memory", json.dumps(save_body(content="x" * 3_000_000)))
    response = _mcp_post(web, secret, body)
    assert response.status_code == 413 and response.json() == TOO_LARGE


def test_a_console_write_with_a_long_request_id_is_not_a_500(client, world):
    """Every door takes a tracing header as a hint: the console's too (core.tenancy.usable_request_id)."""
    from core.tenancy import usable_request_id

    assert usable_request_id("trace-1") == "trace-1"
    assert usable_request_id("x" * 65) != "x" * 65 and len(usable_request_id("x" * 65)) == 32
    assert usable_request_id("a b") != "a b" and len(usable_request_id(None)) == 32
    client.force_login(world.alice.user)
    response = client.post("/console/main/", {"paused": "1"}, HTTP_X_REQUEST_ID="r" * 500)
    assert response.status_code in (200, 302), response.status_code
