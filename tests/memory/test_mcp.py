"""MCP end to end with the SDK's own client: streamable HTTP at /mcp (real uvicorn) and stdio."""

from __future__ import annotations

import asyncio
import os
import sys

import httpx2
import mcp_types as types
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError

from accounts.services.keys import access_key_create
from core.tenancy import tenant_context
from tests.live import ROOT, running_web

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def web(committed_world):
    with running_web() as base:
        yield base


def _http_client(base: str, secret: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=30)
    return Client(streamable_http_client(f"{base}/mcp", http_client=http))


async def _session(client: Client):
    async with client as c:
        listed = await c.list_tools()
        ok = await c.call_tool("list_memory_projects", {})
        bad = await c.call_tool("list_memory_projects", {"surprise": 1})
        try:
            await c.call_tool("no_such_tool", {})
            unknown = None
        except MCPError as exc:
            unknown = exc
        return listed, ok, bad, unknown


def _check_session(listed, ok, bad, unknown, world):
    tools = {t.name: t for t in listed.tools}
    assert "list_memory_projects" in tools
    tool = tools["list_memory_projects"]
    assert tool.annotations.read_only_hint is True and tool.annotations.idempotent_hint is True
    assert tool.input_schema["additionalProperties"] is False
    assert ok.is_error is False
    projects = ok.structured_content["projects"]
    assert [p["project"] for p in projects] == ["alpha", "beta"]
    assert bad.is_error is True
    assert bad.content[0].text == "Error executing tool list_memory_projects: surprise: unknown argument"
    assert unknown is not None and unknown.code == types.INVALID_PARAMS
    assert unknown.message == "Unknown tool: no_such_tool"


def test_mcp_over_streamable_http(web, committed_world, django_db_blocker):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    listed, ok, bad, unknown = asyncio.run(_session(_http_client(web, secret)))
    _check_session(listed, ok, bad, unknown, committed_world)
    # switch links point at this server's console.
    assert ok.structured_content["projects"][0]["switch_url"].startswith(f"{web}/console/switch/")


def test_mcp_http_refuses_a_bad_key_with_401(web):
    response = httpx2.post(
        f"{web}/mcp",
        json={"jsonrpc": "2.0", "id": 1, "method": "tools/list"},
        headers={"Authorization": "Bearer mnm_wrong", "Accept": "application/json, text/event-stream"},
    )
    assert response.status_code == 401
    assert response.json() == {"error": "invalid access key", "code": "invalid_key"}
    assert httpx2.post(f"{web}/mcp", json={}).status_code == 401


def test_mcp_lists_only_the_keys_toolsets(web, committed_world, django_db_blocker):
    world = committed_world
    with django_db_blocker.unblock(), tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(
            member=world.alice.members[world.a.enterprise.slug],
            project=world.a.project,
            toolsets=["enterprise"],
        )

    async def go():
        async with _http_client(web, secret) as c:
            listed = await c.list_tools()
            with pytest.raises(MCPError, match="Unknown tool: list_memory_projects"):
                await c.call_tool("list_memory_projects", {})
            return listed

    assert all(t.name != "list_memory_projects" for t in asyncio.run(go()).tools)


def test_mcp_over_stdio(committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    params = StdioServerParameters(
        command=sys.executable,
        args=["manage.py", "mcp_stdio"],
        cwd=str(ROOT),
        env={**os.environ, "MNEMOS_ACCESS_KEY": secret, "PYTHONUNBUFFERED": "1"},
    )
    listed, ok, bad, unknown = asyncio.run(_session(Client(params)))
    _check_session(listed, ok, bad, unknown, committed_world)


def test_mcp_malformed_request_is_a_json_rpc_error(web, committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    response = httpx2.post(
        f"{web}/mcp",
        content=b"{not json",
        headers={
            "Authorization": f"Bearer {secret}",
            "Accept": "application/json, text/event-stream",
            "Content-Type": "application/json",
        },
    )
    assert response.status_code == 400
    body = response.json()
    assert body["jsonrpc"] == "2.0" and body["error"]["code"] == types.PARSE_ERROR
    assert "Traceback" not in response.text


def test_sql_and_schema_tools_over_mcp(web, committed_world):
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]

    async def go():
        async with _http_client(web, secret) as c:
            schema = await c.call_tool("describe_memory_schema", {})
            counted = await c.call_tool(
                "query_memories_with_sql", {"sql": "SELECT count(*) AS n FROM agent.memories"}
            )
            refused = await c.call_tool("query_memories_with_sql", {"sql": "SELECT pg_sleep(1)"})
            return schema, counted, refused

    schema, counted, refused = asyncio.run(go())
    assert not schema.is_error and "memories" in {v["name"] for v in schema.structured_content["views"]}
    assert not counted.is_error and counted.structured_content["columns"] == ["n"]
    assert refused.is_error
    assert refused.content[0].text.startswith(
        "Error executing tool query_memories_with_sql: query refused by rule allowed_functions:"
    )
