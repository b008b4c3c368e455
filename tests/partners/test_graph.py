"""query_partner_memory_graph and find_partner_memory_connections: the walk crosses only through aliases."""

from __future__ import annotations

import pytest

from partners.services.links import partner_link_alias_add
from tests.memory.helpers import save_event, tool
from tests.partners.helpers import admin_member, audits, in_org, provider_event

pytestmark = pytest.mark.django_db

WALK = (
    "START a = events(entity: $name, k: 5) MATCH (a)-[:PARTICIPATED_IN]-(e)-[:PARTICIPATED_IN]-(b) "
    "RETURN b, e ORDER BY b.id LIMIT 50"
)


@pytest.fixture
def graph(client, world, alice, link):
    home = save_event(
        client, alice, "Acme moved staging to Kubernetes", "k8s at acme", entities=["Kubernetes", "Acme"]
    )
    remote = provider_event(
        client, world, "Globex runs K8s in production", "k8s at globex", entities=["K8s", "Globex"]
    )
    other = provider_event(client, world, "Globex hired Dana", "people", entities=["Dana"])
    same_spelling = provider_event(client, world, "Globex wrote about Acme", "acme", entities=["Acme"])
    return {"home": home, "remote": remote, "other": other, "same_spelling": same_spelling}


def _rows(client, alice, link, query=WALK, params=None):
    body = tool(
        client,
        alice,
        "query_partner_memory_graph",
        {"link_id": str(link), "query": query, "params": params or {"name": "Kubernetes"}},
    ).json()
    return body


def test_without_an_alias_the_walk_stays_home(client, world, alice, link, graph):
    body = _rows(client, alice, link, params={"name": "Acme"})
    assert (
        body["status"] == "ok"
        and body["link_id"] == str(link)
        and body["remote_org"] == str(world.b.enterprise.pk)
    )
    # The same spelling on the partner's side is not an alias: nothing crosses.
    assert all(row[0]["side"] == "home" for row in body["rows"])
    assert graph["same_spelling"] not in {row[0]["id"] for row in body["rows"]}


def test_an_alias_folds_the_partner_entity_under_the_home_spelling(client, world, alice, link, graph):
    with in_org(world, "a"):
        partner_link_alias_add(
            actor=admin_member(world, "a"), link_id=link, home_name="Kubernetes", partner_name="K8s"
        )
    body = _rows(client, alice, link)
    assert body["status"] == "ok", body
    reached = {row[0]["id"]: row for row in body["rows"]}
    assert graph["remote"] in reached and graph["other"] not in reached
    row = reached[graph["remote"]]
    assert row[0]["side"] == "remote" and row[0]["order_index"] is None
    assert row[1]["name"] == "Kubernetes"  # one node, the home spelling
    assert set(body) >= {
        "columns",
        "rows",
        "row_count",
        "start",
        "partial",
        "truncated",
        "plan",
        "budget",
        "notes",
    }
    # The provider audited what it served; nothing else was written there.
    served = audits(world, "b", "partner.serve")
    assert any(graph["remote"] in e.details.get("read_ids", []) for e in served)


def test_shares_crosses_through_aliases_both_ways(client, world, alice, link, graph):
    with in_org(world, "a"):
        partner_link_alias_add(
            actor=admin_member(world, "a"), link_id=link, home_name="Kubernetes", partner_name="K8s"
        )
    query = "START a = events(entity: $name, k: 5) MATCH (a)-[r:SHARES]->(b) RETURN b, r.count ORDER BY b.id"
    body = _rows(client, alice, link, query=query)
    assert [(row[0]["id"], row[0]["side"], row[1]) for row in body["rows"]] == [
        (graph["remote"], "remote", 1)
    ]
    upgrade = save_event(client, alice, "Acme upgraded Kubernetes", "upgrade", entities=["Kubernetes"])
    back = (
        "START a = events(ids: $ids) MATCH (a)-[:SHARES]->(b)-[:SHARES]->(c) "
        "RETURN DISTINCT b, c ORDER BY b.id, c.id"
    )
    body = _rows(client, alice, link, query=back, params={"ids": [graph["home"]]})
    pairs = {(row[0]["side"], row[1]["id"], row[1]["side"]) for row in body["rows"]}
    # home -> partner (alias) -> the other home event: the walk came back through the alias.
    assert ("remote", upgrade, "home") in pairs


def test_start_only_returns_home_events_and_rejections_carry_blocked_by(client, world, alice, link, graph):
    body = _rows(client, alice, link, query="START a = events(entity: $name, k: 5) RETURN a")
    assert [row[0]["id"] for row in body["rows"]] == [graph["home"]] and body["rows"][0][0]["side"] == "home"
    rejected = _rows(client, alice, link, query="MATCH (a) RETURN a")
    assert rejected["status"] == "error" and rejected["blocked_by"] in ("syntax", "grammar")
    assert rejected["reason"] == rejected["error"] == "query_rejected" and rejected["detail"]


def test_graph_is_refused_through_a_provided_link(client, world, link, graph):
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    body = tool(
        client,
        bob_b,
        "query_partner_memory_graph",
        {"link_id": str(link), "query": WALK, "params": {"name": "K8s"}},
    ).json()
    assert body["status"] == "error" and body["reason"] == body["error"] == "principal_not_active"


def test_find_partner_memory_connections_follows_aliases(client, world, alice, link, graph):
    args = {"sentence": "Acme moved staging to Kubernetes", "link_id": str(link)}
    body = tool(client, alice, "find_partner_memory_connections", args).json()
    assert body["status"] == "ok" and body["connections"] == [] and graph["home"] in body["starts"]
    with in_org(world, "a"):
        partner_link_alias_add(
            actor=admin_member(world, "a"), link_id=link, home_name="Kubernetes", partner_name="K8s"
        )
    body = tool(client, alice, "find_partner_memory_connections", args).json()
    (found,) = body["connections"]
    assert found["event_id"] == graph["remote"] and found["side"] == "remote"
    assert found["reached_by"][0]["via"] == "alias" and found["reached_by"][0]["from_event"] == graph["home"]


def _alias(world, link) -> None:
    with in_org(world, "a"):
        partner_link_alias_add(
            actor=admin_member(world, "a"), link_id=link, home_name="Kubernetes", partner_name="K8s"
        )


def test_next_and_member_of_stay_within_a_side(client, world, alice, link, graph):
    _alias(world, link)
    # The partner's aliased event has a tag and a successor; so has a home event sharing Kubernetes.
    tagged = provider_event(
        client, world, "Globex rolled K8s out", "rollout", entities=["K8s"], tags=["infra/rollout"]
    )
    provider_event(
        client, world, "Globex then retired the VMs", "vms", entities=["VMs"], prev_event_id=tagged
    )
    upgrade = save_event(
        client, alice, "Acme upgraded Kubernetes", "upgrade", entities=["Kubernetes"], tags=["infra/rollout"]
    )
    retired = save_event(
        client, alice, "Acme then retired its VMs", "vms", entities=["VMs"], prev_event_id=upgrade
    )
    params = {"ids": [graph["home"]]}
    reached = _rows(
        client, alice, link, "START a = events(ids: $ids) MATCH (a)-[:SHARES]->(b) RETURN b", params
    )
    assert tagged in {row[0]["id"] for row in reached["rows"]}  # the walk does cross here
    body = _rows(
        client,
        alice,
        link,
        "START a = events(ids: $ids) MATCH (a)-[:SHARES]->(b)-[:NEXT]->(c) RETURN b, c ORDER BY b.id",
        params,
    )
    assert [(row[0]["id"], row[1]["id"], row[1]["side"]) for row in body["rows"]] == [
        (upgrade, retired, "home")
    ]
    body = _rows(
        client,
        alice,
        link,
        "START a = events(ids: $ids) MATCH (a)-[:SHARES]->(b)-[:MEMBER_OF]->(t) RETURN b, t ORDER BY b.id",
        params,
    )
    assert [row[0]["id"] for row in body["rows"]] == [upgrade]


def test_the_walk_never_reaches_outside_the_exposure(client, world, alice, link, graph):
    _alias(world, link)
    hidden = provider_event(
        client, world, "Globex private K8s notes", "private", entities=["K8s"], visibility="project"
    )
    walked = {row[0]["id"] for row in _rows(client, alice, link)["rows"]}
    shared = _rows(
        client,
        alice,
        link,
        "START a = events(ids: $ids) MATCH (a)-[:SHARES]->(b) RETURN b",
        {"ids": [graph["home"]]},
    )
    connected = tool(
        client,
        alice,
        "find_partner_memory_connections",
        {"sentence": "Acme moved staging to Kubernetes", "link_id": str(link)},
    ).json()
    assert graph["remote"] in walked and hidden not in walked
    assert hidden not in {row[0]["id"] for row in shared["rows"]}
    assert [c["event_id"] for c in connected["connections"]] == [graph["remote"]]
    served = [i for e in audits(world, "b", "partner.serve") for i in e.details.get("read_ids", [])]
    assert graph["remote"] in served and hidden not in served
