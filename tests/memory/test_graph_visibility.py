"""query_memory_graph: what a caller may not see never appears, through any relation; and the door.

An author-only memory of dana's (a plain member) and another tenant's memory are wired into every
relation of alice's graph (``build_hidden`` in tests/memory/graph_helpers.py).
"""

from __future__ import annotations

import json

import pytest

from accounts.services.keys import access_key_create
from core.dispatch import tool_dispatch
from memory.models import Entity, EntityCooccurrence
from tests.memory.graph_helpers import SEED_EXAMPLE, graph, ids_in
from tests.memory.graph_helpers import member_dana as _dana
from tests.memory.helpers import ctx, tool

# --- visibility ------------------------------------------------------------------------------------

THROUGH_EVERY_RELATION = [
    "START a = events(entity: 'Dana') MATCH (a)<-[:PARTICIPATED_IN]-(e)-[:PARTICIPATED_IN]->(b) RETURN a, e, b",
    "START a = events(entity: 'Dana') MATCH (a)-[r:SHARES]-(b) RETURN a, b, r",
    "START a = events(tag: 'deploy') MATCH (a)-[:MEMBER_OF]->(t)<-[:MEMBER_OF]-(b) RETURN a, t, b",
    "START a = events(entity: 'app-staging') MATCH (a)-[:NEXT]->(b) RETURN a, b",
    "START a = events(entity: 'app-staging') MATCH (a)<-[:NEXT]-(b) RETURN a, b",
    "START a = events(tag: 'plan') MATCH (a)-[r:RESOLVED_BY]->(b) RETURN a, b, r",
    "START a = events(entity: 'Dana') MATCH (a)-[r:SIMILAR {min: -1}]-(b) RETURN a, b, r",
    "START a = events(entity: 'Dana') MATCH (a)-[r:FAR {max: 1}]-(b) RETURN a, b, r",
    "START a = events(entity: 'Dana') MATCH (a)<-[:PARTICIPATED_IN]-(e)-[r:CONNECTED]-(o) RETURN e, o, r",
    "START a = events(entity: 'Dana') MATCH (a)<-[:PARTICIPATED_IN]-(e)-[:SAME_AS]-(o) RETURN e, o",
    "START a = events(text: 'Dana moved the staging deploy to the app-staging systemd unit.', k: 20) RETURN a",
    "START a = events(entity: 'Dana', text: 'staging deploy systemd', k: 20) RETURN a",
    "START a = events(tag: 'deploy/staging', k: 200) RETURN a",
]


@pytest.mark.parametrize("query", THROUGH_EVERY_RELATION)
def test_invisible_memories_never_appear(client, world, alice, corpus, hidden, query):
    body = graph(client, alice, query)
    assert "rows" in body, body
    text = json.dumps(body)
    assert hidden["secret"] not in text and hidden["foreign"] not in text
    assert "Secret Project" not in text and "hidden/topic" not in text


def test_the_author_reaches_the_memory_alice_cannot(client, world, corpus, hidden):
    """The control: dana may read her own author-only memory, and the same relations reach it."""
    with ctx(world):
        dana, _ = _dana(world, world.a)
        bob_a = access_key_create(member=dana, project=world.a.project)[1]
    shares = graph(client, bob_a, THROUGH_EVERY_RELATION[1])
    assert hidden["secret"] in ids_in(shares) and hidden["foreign"] not in json.dumps(shares)
    after = graph(client, bob_a, THROUGH_EVERY_RELATION[3])
    assert hidden["secret"] in ids_in(after)
    secret = graph(client, bob_a, "START a = events(entity: 'Secret Project') RETURN a.id")
    assert hidden["secret"] in {row[0] for row in secret["rows"]}  # with Dana's, its recorded rename


def test_invisible_names_do_not_resolve_and_counts_stay_visible(client, world, alice, corpus, hidden):
    body = graph(client, alice, "START a = events(entity: 'Secret Project') RETURN a")
    assert body["rows"] == [] and body["start"]["unresolved"] == [
        {"kind": "entity", "name": "Secret Project"}
    ]
    tag = graph(client, alice, "START a = events(tag: 'hidden') RETURN a")
    assert tag["start"]["unresolved"] == [{"kind": "tag", "name": "hidden"}]
    with ctx(world):
        dana, staging = Entity.objects.get(name="Dana"), Entity.objects.get(name="app-staging")
        a, b = sorted([dana.pk, staging.pk])
        assert EntityCooccurrence.objects.get(a_id=a, b_id=b).count == 3  # stored: the hidden one too
    connected = graph(
        client,
        alice,
        "START a = events(entity: 'Dana') MATCH (a)<-[:PARTICIPATED_IN]-(d:Entity {name: 'Dana'})-[r:CONNECTED]-(o) "
        "RETURN DISTINCT o.name, r.count ORDER BY o.name",
    )
    assert connected["rows"] == [["Lee", 1], ["app-staging", 2]]  # counted over what alice can read


def test_another_tenant_sees_none_of_it(client, world, bob_b, corpus, hidden):
    body = graph(client, bob_b, "START a = events(entity: 'Dana') MATCH (a)-[:SHARES]-(b) RETURN a, b")
    assert ids_in(body) <= {hidden["foreign"]}
    for key in ("deploy", "rollback", "plan"):
        assert corpus[key] not in json.dumps(body)
    ids = graph(client, bob_b, "START a = events(ids: $ids) RETURN a", ids=[corpus["deploy"]])
    assert ids["rows"] == [] and ids["start"]["unresolved"] == [{"kind": "id", "name": corpus["deploy"]}]


# --- the door ---------------------------------------------------------------------------------------


def test_scope_and_mcp_surface(client, world, alice, corpus):
    with ctx(world):
        _, no_read = access_key_create(
            member=world.alice.members[world.a.enterprise.slug],
            project=world.a.project,
            scopes=["tasks:read"],
        )
    refused = tool(client, no_read, "query_memory_graph", {"query": "START a = events(text: 'x') RETURN a"})
    assert (
        refused.status_code == 403
        and refused.json()["error"] == "this access key lacks the 'memory:read' scope"
    )
    assert tool(client, alice, "query_memory_graph", {"query": "x", "surprise": 1}).status_code == 422
    outcome = tool_dispatch(
        secret=alice,
        name="query_memory_graph",
        arguments={"query": SEED_EXAMPLE, "params": {"q": "staging deploy"}},
        surface="mcp",
    )
    assert outcome.ok and outcome.output["columns"] == ["b", "shared"]
    rejected = tool_dispatch(
        secret=alice,
        name="query_memory_graph",
        arguments={"query": "START a = events(text: $q) RETURN a"},
        surface="mcp",
    )
    assert rejected.ok and set(rejected.output) == {"error", "blocked_by", "hint"}
