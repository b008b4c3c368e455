"""memory.train, taken literally from seed enterprise-memory-tools."""

from __future__ import annotations

import json

import pytest

from accounts.models import RoleAssignment
from accounts.services.enterprises import role_create
from accounts.services.keys import access_key_create
from core.tenancy import tenant_context
from memory.models import Memory
from memory.services.runs import task_run_start
from memory.services.tasks import task_clone, task_create, task_version_create
from tests.memory.helpers import tool


def ctx(world):
    return tenant_context(enterprise_id=world.a.enterprise.pk, door="test")


@pytest.fixture
def task(world):
    with ctx(world):
        return task_create(project=world.a.project, name="release check", goal="check releases")


@pytest.fixture
def alice(world):
    return world.alice.keys[world.a.enterprise.slug][1]


def train(client, secret, task, body, **headers):
    return client.post(
        f"/v1/tasks/{task.pk}/memory/train",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
        **headers,
    )


EXAMPLE = {
    "body": "The release check needs the preview URL before it can start.",
    "source": {"eventId": "evt_1", "revision": "1"},
}


def test_the_seed_example_is_accepted_at_the_task_layer(client, world, alice, task):
    response = train(client, alice, task, EXAMPLE)
    assert response.status_code == 200, response.content
    body = response.json()
    assert set(body) == {"status", "entry", "usage"}
    assert body["status"] == "accepted"
    entry = body["entry"]
    assert (entry["layer"], entry["kind"], entry["body"], entry["taskId"]) == (
        "task",
        "fact",
        EXAMPLE["body"],
        str(task.pk),
    )
    assert (entry["sourceEventId"], entry["revision"]) == ("evt_1", "1")
    assert body["usage"] == {"notesStored": 1, "notesRetired": 0, "nearDuplicates": 0}
    with ctx(world):
        note = Memory.objects.get(pk=entry["id"])
    assert note.author_id == world.alice.members[world.a.enterprise.slug].pk
    assert note.enterprise_id == world.a.enterprise.pk


def test_a_retry_with_the_same_source_is_not_stored_twice(client, world, alice, task):
    first = train(client, alice, task, EXAMPLE).json()
    second = train(client, alice, task, EXAMPLE).json()
    assert first == second
    with ctx(world):
        assert Memory.objects.filter(task=task).count() == 1
    changed = train(client, alice, task, {**EXAMPLE, "body": "something else"})
    assert changed.status_code == 409


def test_retained_and_consolidating(client, world, alice, task):
    train(client, alice, task, {"body": "Flaky checks are retried once before failing the release."})
    retained = train(
        client, alice, task, {"body": "flaky checks are retried once  before failing the release."}
    ).json()
    assert retained["status"] == "retained" and retained["usage"]["notesStored"] == 0
    near = train(
        client, alice, task, {"body": "Flaky checks are retried once before failing the whole release."}
    ).json()
    assert near["status"] == "consolidating" and near["usage"]["nearDuplicates"] == 1


def test_layers_member_role_and_clones(client, world, alice, task):
    assert (
        train(
            client, alice, task, {"body": "I prefer short reports.", "layer": "member", "kind": "preference"}
        ).json()["entry"]["layer"]
        == "member"
    )
    no_role = train(client, alice, task, {"body": "Reviewers check the changelog.", "layer": "role"})
    assert no_role.json()["code"] == "no_role"
    with ctx(world):
        role = role_create(enterprise=world.a.enterprise, slug="reviewer", name="Reviewer")
        RoleAssignment.objects.create(
            enterprise=world.a.enterprise, member=world.alice.members[world.a.enterprise.slug], role=role
        )
        clone = task_clone(task=task)
    assert (
        train(client, alice, task, {"body": "Reviewers check the changelog.", "layer": "role"}).json()[
            "status"
        ]
        == "accepted"
    )
    for layer in ("member", "role"):
        refused = train(client, alice, clone, {"body": f"clone note {layer}", "layer": layer})
        assert refused.status_code == 422 and "never a clone" in refused.json()["error"]
    assert train(client, alice, task, {"body": "x", "layer": "project"}).json()["code"] == "invalid_layer"


def test_team_and_enterprise_need_the_grant_and_prefix(client, world, alice, task):
    body = {
        "body": "Releases freeze on Fridays.",
        "layer": "team",
        "source": {"eventId": "rel:42", "revision": "1"},
    }
    assert train(client, alice, task, body).json()["code"] == "layer_denied"
    with ctx(world):
        task_version_create(task=task, grants=[{"layer": "team", "prefix": "rel:"}])
        clone = task_clone(task=task)
    assert train(client, alice, task, body).json()["status"] == "accepted"
    wrong_prefix = {**body, "source": {"eventId": "other:1", "revision": "1"}}
    assert train(client, alice, task, wrong_prefix).json()["code"] == "layer_denied"
    assert train(client, alice, task, {**body, "layer": "enterprise"}).json()["code"] == "layer_denied"
    assert (
        train(client, alice, clone, {**body, "source": {"eventId": "rel:43", "revision": "1"}}).json()["code"]
        == "layer_denied"
    )


@pytest.mark.parametrize("event_id", ["team:1", "gate:release"])
def test_reserved_event_ids_are_refused(client, world, alice, task, event_id):
    with ctx(world):
        task_version_create(task=task, grants=[{"layer": "team", "prefix": "rel:"}])
    response = train(client, alice, task, {"body": "n", "source": {"eventId": event_id, "revision": "1"}})
    assert response.json()["code"] == "reserved_event_id"


def test_corrections_retire_the_old_note(client, world, alice, task):
    old = train(client, alice, task, {"body": "The preview URL is optional."}).json()["entry"]["id"]
    needs_kind = train(client, alice, task, {"body": "It is required.", "supersedes": {"entryId": old}})
    assert needs_kind.json()["code"] == "supersedes_needs_correction"
    fixed = train(
        client,
        alice,
        task,
        {"body": "The preview URL is required.", "kind": "correction", "supersedes": {"entryId": old}},
    ).json()
    assert fixed["status"] == "accepted" and fixed["entry"]["supersedes"] == old
    assert fixed["usage"]["notesRetired"] == 1
    with ctx(world):
        assert Memory.objects.get(pk=old).status == "superseded"
    other_layer = train(
        client,
        alice,
        task,
        {
            "body": "n",
            "layer": "member",
            "kind": "correction",
            "supersedes": {"entryId": fixed["entry"]["id"]},
        },
    )
    assert other_layer.json()["code"] == "supersede_denied"


def test_train_needs_a_task_and_the_scope(client, world, alice, task):
    no_task = tool(client, alice, "memory.train", {"body": "n"})
    assert no_task.status_code == 422 and no_task.json()["code"] == "no_task"
    member = world.alice.members[world.a.enterprise.slug]
    key = world.alice.keys[world.a.enterprise.slug][0]
    with tenant_context(enterprise_id=world.a.enterprise.pk, member=member, access_key=key, door="test"):
        # A run key (its run's TaskRun.run_key) trains its run's task without naming it.
        run_key = task_run_start(task=task, member=member, key=key).run_key
        _, read_only = access_key_create(member=member, project=world.a.project, scopes=["tasks:read"])
    assert tool(client, run_key, "memory_train", {"body": "via a run key"}).json()["status"] == "accepted"
    assert train(client, read_only, task, {"body": "n"}).status_code == 403


def test_another_enterprises_task_is_not_found(client, world, task):
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    response = train(client, bob_b, task, {"body": "n"})
    assert response.status_code == 404 and response.json()["error"] == "task not found"


def test_author_cannot_be_set_from_arguments(client, world, alice, task):
    response = train(client, alice, task, {"body": "n", "author": "someone"})
    assert response.status_code == 422 and response.json()["error"] == "author: unknown argument"
