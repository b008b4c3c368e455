"""save_memory and update_memory, taken literally from seed aiakiv."""

from __future__ import annotations

import json
import uuid

import pytest

from accounts.services.keys import access_key_create
from accounts.services.targets import member_main_set
from core.tenancy import tenant_context
from memory.models import Entity, EntityRename, LinkKind, Memory, MemoryLink
from tests.memory.helpers import tool

SAVE = {
    "summary": "Dana decided staging deploys through the systemd unit app-staging.",
    "entities": [{"name": "Dana", "type": "person"}, {"name": "app-staging", "type": "system"}],
    "tags": ["deploy/staging", "decisions"],
    "content": "Dana: from now on staging goes out through the app-staging systemd unit.",
}


@pytest.fixture
def alice(world):
    return world.alice.keys[world.a.enterprise.slug][1]


def ctx(world):
    return tenant_context(enterprise_id=world.a.enterprise.pk, door="test")


def test_save_returns_the_seed_fields(client, world, alice):
    response = tool(client, alice, "save_memory", SAVE)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) >= {
        "event_id",
        "tags",
        "tag_tree",
        "saved_entities",
        "continuation_hint",
        "edit_command",
        "active_target",
    }
    assert body["tags"] == ["deploy/staging", "decisions"]
    assert {n["path"] for n in body["tag_tree"]} == {"deploy", "decisions"}
    assert [c["path"] for n in body["tag_tree"] if n["path"] == "deploy" for c in n["children"]] == [
        "deploy/staging"
    ]
    assert [(e["name"], e["created"]) for e in body["saved_entities"]] == [
        ("Dana", True),
        ("app-staging", True),
    ]
    assert body["active_target"] == {
        "project": "alpha",
        "workspace": "default",
        "team": "Platform",
        "folder_bound": False,
    }
    assert body["event_id"] in body["continuation_hint"] and body["event_id"] in body["edit_command"]
    assert "rejected_tags" not in body and "suggested_tags" not in body
    with ctx(world):
        memory = Memory.objects.get(pk=body["event_id"])
        assert memory.summary == SAVE["summary"] and memory.layer == "project"


def test_payload_form_object_and_string(client, world, alice):
    bundled = {k: SAVE[k] for k in ("summary", "entities", "content", "tags")}
    as_object = tool(client, alice, "save_memory", {"payload": bundled, "summary": "ignored"})
    as_string = tool(client, alice, "save_memory", {"payload": json.dumps(bundled)})
    assert as_object.status_code == as_string.status_code == 200
    with ctx(world):
        assert Memory.objects.get(pk=as_object.json()["event_id"]).summary == SAVE["summary"]
    bad = tool(client, alice, "save_memory", {"payload": "{not json"})
    assert bad.status_code == 422 and bad.json()["code"] == "invalid_payload"


@pytest.mark.parametrize(
    "change, code",
    [
        ({"summary": None}, "summary_required"),
        ({"summary": "s" * 501}, "summary_too_long"),
        ({"entities": None}, "entities_required"),
        ({"content": None}, "content_required"),
    ],
)
def test_required_arguments(client, world, alice, change, code):
    arguments = {**SAVE, **change}
    arguments = {k: v for k, v in arguments.items() if v is not None}
    assert tool(client, alice, "save_memory", arguments).json()["code"] == code


def test_content_limit_and_continuation(client, world, alice):
    too_long = tool(client, alice, "save_memory", {**SAVE, "content": "x" * 50_001})
    assert too_long.status_code == 413 and "prev_event_id" in too_long.json()["error"]
    first = tool(client, alice, "save_memory", {**SAVE, "content": "x" * 50_000}).json()["event_id"]
    second = tool(client, alice, "save_memory", {**SAVE, "summary": "part 2", "prev_event_id": first}).json()[
        "event_id"
    ]
    with ctx(world):
        assert MemoryLink.objects.filter(kind=LinkKind.NEXT, src_id=first, dst_id=second).exists()
    unknown = tool(client, alice, "save_memory", {**SAVE, "prev_event_id": str(uuid.uuid4())})
    assert unknown.json()["code"] == "prev_event_unknown"


@pytest.mark.parametrize(
    "marker", ["[truncated]", "... [1234 more characters]", "<truncated>", "(output truncated)", "[…]"]
)
def test_truncation_marker_is_refused_unless_allowed(client, world, alice, marker):
    content = f"the log said: error at step 4 {marker}"
    refused = tool(client, alice, "save_memory", {**SAVE, "content": content})
    assert refused.status_code == 422
    assert refused.json()["code"] == "truncation_marker_detected"
    assert refused.json()["error"].startswith("truncation_marker_detected")
    allowed = tool(
        client, alice, "save_memory", {**SAVE, "content": content, "allow_truncation_marker": True}
    )
    assert allowed.status_code == 200


def test_assert_project_blocks_never_redirects(client, world, alice):
    refused = tool(client, alice, "save_memory", {**SAVE, "assert_project": "beta"})
    assert refused.status_code == 409 and refused.json()["code"] == "assert_project_mismatch"
    with ctx(world):
        assert not Memory.objects.exists()
    assert tool(client, alice, "save_memory", {**SAVE, "assert_project": "alpha"}).status_code == 200


def test_destination_is_the_active_target(client, world, alice):
    member = world.alice.members[world.a.enterprise.slug]
    with ctx(world):
        member_main_set(member=member, project=world.a.other_project)
    body = tool(client, alice, "save_memory", SAVE).json()
    assert body["active_target"]["project"] == "beta"
    with ctx(world):
        _, bound = access_key_create(member=member, project=world.a.project, workspace_name="inbox")
    body = tool(client, bound, "save_memory", SAVE).json()
    assert body["active_target"] == {
        "project": "alpha",
        "workspace": "inbox",
        "team": "Platform",
        "folder_bound": True,
    }


def test_ids_hashes_and_dates_are_soft_rejected(client, world, alice):
    tags = ["ok/tag", str(uuid.uuid4()), "deadbeefcafebabe1234", "2026-11-30", "12345", "Q3-2026"]
    body = tool(client, alice, "save_memory", {**SAVE, "tags": tags}).json()
    assert body["tags"] == ["ok/tag"]
    assert [r["tag"] for r in body["rejected_tags"]] == tags[1:]
    assert all(r["reason"] for r in body["rejected_tags"])


def test_timestamp_and_source(client, world, alice):
    body = tool(
        client,
        alice,
        "save_memory",
        {
            **SAVE,
            "timestamp": "2026-01-02T03:04:05Z",
            "source": {"provider": "slack", "address": "C123/p1", "version": "2"},
        },
    ).json()
    with ctx(world):
        memory = Memory.objects.get(pk=body["event_id"])
    assert memory.timestamp.isoformat() == "2026-01-02T03:04:05+00:00"
    assert memory.origin == {"provider": "slack", "address": "C123/p1", "version": "2"}
    assert (
        tool(client, alice, "save_memory", {**SAVE, "timestamp": "yesterday"}).json()["code"]
        == "invalid_timestamp"
    )


def test_entities_reuse_one_spelling_and_suggest(client, world, alice):
    tool(client, alice, "save_memory", SAVE)
    body = tool(
        client,
        alice,
        "save_memory",
        {
            **SAVE,
            "entities": [{"name": "DANA", "type": "person"}, {"name": "app-staging-eu", "type": "system"}],
        },
    ).json()
    assert [(e["name"], e["created"]) for e in body["saved_entities"]] == [
        ("Dana", False),
        ("app-staging-eu", True),
    ]
    assert [s["name"] for s in body["suggested_entities"]] == ["app-staging"]


def test_save_idempotency(client, world, alice):
    first = tool(client, alice, "save_memory", SAVE, HTTP_X_IDEMPOTENCY_KEY="s-1").json()
    again = tool(client, alice, "save_memory", SAVE, HTTP_X_IDEMPOTENCY_KEY="s-1").json()
    assert first["event_id"] == again["event_id"]


# update_memory ------------------------------------------------------------------------------


def _save(client, secret, **change):
    return tool(client, secret, "save_memory", {**SAVE, **change}).json()["event_id"]


def test_update_entities_and_orphans(client, world, alice):
    event = _save(client, alice)
    body = tool(
        client,
        alice,
        "update_memory",
        {
            "event_id": event,
            "remove_entities": ["app-staging"],
            "add_entities": [{"name": "Dana Smith", "type": "person"}],
        },
    ).json()
    assert (body["removed_count"], body["added_count"]) == (1, 1)
    assert [e["name"] for e in body["now_linked_entities"]] == ["Dana", "Dana Smith"]
    assert [e["name"] for e in body["orphaned_entities"]] == ["app-staging"]
    assert body["graph_delta"]["entities_added"] == ["Dana Smith"]
    with ctx(world):
        assert Entity.objects.get(name="app-staging").deprecated is True
        assert Memory.objects.get(pk=event).content == SAVE["content"]


def test_update_entity_ids_are_validated(client, world, alice):
    event = _save(client, alice)
    with ctx(world):
        dana = Entity.objects.get(name="Dana").pk
    body = tool(client, alice, "update_memory", {"event_id": event, "add_entity_ids": [dana, 999999]}).json()
    assert body["added_count"] == 0
    assert body["rejected_entity_ids"] == [{"item": 999999, "reason": "no such entity"}]


def test_update_tags(client, world, alice):
    event = _save(client, alice)
    body = tool(
        client,
        alice,
        "update_memory",
        {"event_id": event, "add_tags": ["ops/oncall", "2026-11-30"], "remove_tags": ["decisions"]},
    ).json()
    assert body["added_tags"] == ["ops/oncall"]
    assert body["removed_tags"] == ["decisions"]
    assert body["rejected_tags"][0]["item"] == "2026-11-30"
    assert body["graph_delta"]["tags_removed"] == ["decisions"]


def test_update_prev_events_and_conflicts(client, world, alice):
    a, b, c = _save(client, alice), _save(client, alice), _save(client, alice)
    body = tool(
        client, alice, "update_memory", {"event_id": c, "add_prev_events": [a, b], "remove_prev_events": [b]}
    ).json()
    assert body["added_prev_events"] == [a]
    assert body["rejected_prev_events"] == [{"item": b, "reason": "conflicting_request"}]
    assert "graph_delta" not in body  # a link-only edit feeds no derived layer
    with ctx(world):
        MemoryLink.objects.filter(kind=LinkKind.NEXT, src_id=a, dst_id=c).update(protected=True)
    refused = tool(client, alice, "update_memory", {"event_id": c, "remove_prev_events": [a]}).json()
    assert refused["rejected_prev_events"] == [{"item": a, "reason": "protected_source"}]


def test_update_resolved_by_soft_revoke_and_revive(client, world, alice):
    plan = _save(client, alice, tags=["plan/q4"])
    evidence = _save(client, alice)
    item = {"event_id": evidence}
    added = tool(client, alice, "update_memory", {"event_id": plan, "add_resolved_by": [item]}).json()
    assert added["added_resolved_by"] == [{"event_id": evidence, "relation": "realization"}]
    again = tool(client, alice, "update_memory", {"event_id": plan, "add_resolved_by": [item]}).json()
    assert again["already_linked_resolved_by"] == [{"event_id": evidence, "relation": "realization"}]
    revoked = tool(client, alice, "update_memory", {"event_id": plan, "revoke_resolved_by": [item]}).json()
    assert revoked["revoked_resolved_by"] == [{"event_id": evidence, "relation": "realization"}]
    revived = tool(client, alice, "update_memory", {"event_id": plan, "add_resolved_by": [item]}).json()
    assert revived["added_resolved_by"]
    with ctx(world):
        assert MemoryLink.objects.filter(kind=LinkKind.RESOLVED_BY, src_id=plan).count() == 1
    both = tool(
        client,
        alice,
        "update_memory",
        {"event_id": plan, "add_resolved_by": [item], "revoke_resolved_by": [item]},
    ).json()
    assert {r["reason"] for r in both["rejected_resolved_by"]} == {"conflicting_request"}
    not_a_plan = tool(
        client, alice, "update_memory", {"event_id": evidence, "add_resolved_by": [{"event_id": plan}]}
    ).json()
    assert "registered app" in not_a_plan["rejected_resolved_by"][0]["reason"]


def test_update_entity_renames(client, world, alice):
    event = _save(
        client,
        alice,
        entities=[{"name": "Project Falcon", "type": "project"}, {"name": "Project Hawk", "type": "project"}],
    )
    body = tool(
        client,
        alice,
        "update_memory",
        {"event_id": event, "add_entity_renames": [{"old": "Project Falcon", "new": "Project Hawk"}]},
    ).json()
    assert body["added_entity_renames"] == [{"old": "Project Falcon", "new": "Project Hawk"}]
    with ctx(world):
        assert EntityRename.objects.count() == 1
    bad = tool(
        client,
        alice,
        "update_memory",
        {"event_id": event, "add_entity_renames": [{"old": "Nope", "new": "Project Hawk"}]},
    ).json()
    assert bad["rejected_entity_renames"][0]["item"] == {"old": "Nope", "new": "Project Hawk"}
    removed = tool(
        client,
        alice,
        "update_memory",
        {"event_id": event, "remove_entity_renames": [{"old": "Project Falcon", "new": "Project Hawk"}]},
    ).json()
    assert removed["removed_entity_renames"]


def test_update_another_tenants_event_is_not_found(client, world, alice):
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    foreign = _save(client, bob_b)
    response = tool(client, alice, "update_memory", {"event_id": foreign, "add_tags": ["x"]})
    assert response.status_code == 404 and response.json()["error"] == "memory not found"
