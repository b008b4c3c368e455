"""Every partner tool over MCP (streamable HTTP at /mcp, the SDK's own client, a real uvicorn)."""

from __future__ import annotations

import asyncio
import uuid

import httpx2
import pytest
from mcp import Client
from mcp.client.streamable_http import streamable_http_client

from core.dispatch import tool_dispatch
from core.tenancy import tenant_context
from memory.models import Memory
from partners.services.links import partner_link_alias_add
from tests.conftest import build_world
from tests.live import running_web
from tests.partners.helpers import active_link

pytestmark = pytest.mark.live


@pytest.fixture(scope="module")
def linked(django_db_setup, django_db_blocker):
    """A committed world (its own names) where B provides project alpha to A, with one memory each side."""
    with django_db_blocker.unblock():
        world = build_world(suffix=f"-p{uuid.uuid4().hex[:6]}")
        link_id = active_link(world)
        ids = {}
        for slug, person, summary, entity in (
            ("a", world.alice, "Acme runs staging on Kubernetes", "Kubernetes"),
            ("b", world.bob, "Globex runs production on K8s", "K8s"),
        ):
            enterprise = getattr(world, slug).enterprise
            saved = tool_dispatch(
                secret=person.keys[enterprise.slug][1],
                name="save_memory",
                arguments={
                    "summary": summary,
                    "content": summary,
                    "entities": [{"name": entity, "type": "system"}],
                },
                surface="rest",
            )
            assert saved.output is not None, saved.error
            ids[slug] = str(saved.output["event_id"])
            with tenant_context(enterprise_id=enterprise.pk, door="test"):
                Memory.objects.filter(pk=ids[slug]).update(visibility="enterprise")
        with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
            partner_link_alias_add(
                actor=world.alice.members[world.a.enterprise.slug],
                link_id=link_id,
                home_name="Kubernetes",
                partner_name="K8s",
            )
    return world, str(link_id), ids


@pytest.fixture(scope="module")
def web(linked):
    with running_web() as base:
        yield base


def _client(base: str, secret: str) -> Client:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=60)
    return Client(streamable_http_client(f"{base}/mcp", http_client=http))


def test_every_partner_tool_over_mcp(web, linked):
    world, link_id, ids = linked
    secret = world.alice.keys[world.a.enterprise.slug][1]

    async def go():
        async with _client(web, secret) as c:
            names = {t.name for t in (await c.list_tools()).tools}
            listed = await c.call_tool("list_partner_links", {})
            searched = await c.call_tool(
                "search_partner_memory", {"sentence": "Where does Globex run production?", "link_id": link_id}
            )
            content = await c.call_tool(
                "get_partner_memory_content", {"event_id": ids["b"], "link_id": link_id}
            )
            connected = await c.call_tool(
                "find_partner_memory_connections",
                {"sentence": "Acme runs staging on Kubernetes", "link_id": link_id},
            )
            walked = await c.call_tool(
                "query_partner_memory_graph",
                {
                    "link_id": link_id,
                    "query": "START a = events(entity: $n, k: 5) MATCH (a)-[:SHARES]->(b) RETURN b",
                    "params": {"n": "Kubernetes"},
                },
            )
            bad = await c.call_tool("search_partner_memory", {"sentence": "x y"})
            return names, listed, searched, content, connected, walked, bad

    names, listed, searched, content, connected, walked, bad = asyncio.run(go())
    assert {
        "list_partner_links",
        "search_partner_memory",
        "get_partner_memory_content",
        "find_partner_memory_connections",
        "query_partner_memory_graph",
    } <= names
    assert not listed.is_error and listed.structured_content["links"][0]["link_id"] == link_id
    assert [h["event_id"] for h in searched.structured_content["hits"]] == [ids["b"]]
    assert content.structured_content["event"]["entities"] == ["K8s"]
    assert [c["event_id"] for c in connected.structured_content["connections"]] == [ids["b"]]
    assert [(r[0]["id"], r[0]["side"]) for r in walked.structured_content["rows"]] == [(ids["b"], "remote")]
    assert (
        bad.is_error
        and bad.content[0].text == "Error executing tool search_partner_memory: link_id: Field required"
    )


def test_the_provider_is_refused_over_mcp(web, linked):
    world, link_id, _ = linked
    secret = world.bob.keys[world.b.enterprise.slug][1]

    async def go():
        async with _client(web, secret) as c:
            return await c.call_tool(
                "search_partner_memory", {"sentence": "What is there?", "link_id": link_id}
            )

    result = asyncio.run(go())
    assert not result.is_error
    assert result.structured_content["reason"] == "principal_not_active"
