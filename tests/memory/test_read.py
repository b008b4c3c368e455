"""The read tools to the letter, the visibility matrix, ask's budget and statuses, task runs, read audit."""

from __future__ import annotations

import json
import uuid

import pytest

from accounts.models import AuditEvent, Role, RoleAssignment
from accounts.services.keys import access_key_create
from accounts.services.workspaces import workspace_get_or_create
from memory.models import Memory
from memory.services.memories import MemoryDraft, memory_create
from memory.services.tasks import task_create
from tests.memory.helpers import archive as _archive
from tests.memory.helpers import ctx, tool
from tests.memory.helpers import save_event as _save


@pytest.fixture
def corpus(client, world, alice):
    ids = {
        "deploy": _save(
            client,
            alice,
            "Dana moved the staging deploy to the app-staging systemd unit.",
            "Staging now deploys through systemd (unit app-staging) instead of docker compose.",
            ["Dana", "app-staging"],
            ["deploy/staging"],
        ),
        "rollback": _save(
            client,
            alice,
            "Lee documented how to roll back a failed staging deploy.",
            "Rollback: systemctl stop app-staging, restore the previous release directory, start it again.",
            ["Lee", "app-staging"],
            ["deploy/staging", "runbooks"],
        ),
        "lunch": _save(
            client,
            alice,
            "The team lunch moved to Thursday.",
            "Team lunch is on Thursdays from now on.",
            ["Team lunch"],
            ["social"],
        ),
    }
    ids["rollback2"] = _save(
        client,
        alice,
        "Second part of the rollback notes.",
        "Check the health endpoint after rollback.",
        ["Lee"],
        ["runbooks"],
        prev_event_id=ids["rollback"],
    )
    return ids


# search_memory --------------------------------------------------------------------------------


def test_search_memory_contract(client, world, alice, corpus):
    body = tool(client, alice, "search_memory", {"query": "How is staging deployed now?"}).json()
    assert set(body) >= {"query", "mode", "hits", "total", "hint", "searched_scope"}
    assert body["mode"] == "hybrid" and body["hits"][0]["event_id"] == corpus["deploy"]
    hit = body["hits"][0]
    assert set(hit) >= {"event_id", "summary", "timestamp", "tags", "connections", "channels"}
    assert hit["tags"] == ["deploy/staging"]
    assert set(body["hint"]) == {"threads", "entities", "categories", "clusters", "available_channels"}
    assert "text" in body["hint"]["available_channels"]
    categories = {c["path"]: c for c in body["hint"]["categories"]}
    assert categories["deploy/staging"]["total"] == 2 and categories["deploy"]["count"] >= 2
    assert body["searched_scope"]["projects"] == [str(world.a.project.pk)]


def test_search_memory_sequence_and_threads(client, world, alice, corpus):
    body = tool(client, alice, "search_memory", {"query": "rollback of a staging deploy", "top_k": 10}).json()
    hits = {h["event_id"]: h for h in body["hits"]}
    assert hits[corpus["rollback"]]["connections"]["sequential"] == {
        "prev": None,
        "next": corpus["rollback2"],
    }
    assert hits[corpus["rollback2"]]["connections"]["sequential"]["prev"] == corpus["rollback"]
    assert [corpus["rollback"], corpus["rollback2"]] in body["hint"]["threads"]


@pytest.mark.parametrize("top_k, expected", [(0, 1), (1, 1), (2, 2), (500, 4)])
def test_top_k_is_clamped(client, world, alice, corpus, top_k, expected):
    body = tool(
        client, alice, "search_memory", {"query": "staging deploy rollback lunch", "top_k": top_k}
    ).json()
    assert len(body["hits"]) == min(expected, body["total"])


def test_offset_and_continuation(client, world, alice, corpus):
    first = tool(
        client, alice, "search_memory", {"query": "staging deploy rollback lunch", "top_k": 2}
    ).json()
    assert first["continuation"] == {"offset": 2}
    second = tool(
        client, alice, "search_memory", {"query": "staging deploy rollback lunch", "top_k": 2, "offset": 2}
    ).json()
    assert not {h["event_id"] for h in first["hits"]} & {h["event_id"] for h in second["hits"]}
    huge = tool(client, alice, "search_memory", {"query": "staging", "offset": 10_000}).json()
    assert huge["hits"] == []  # clamped to 200, past the end


def test_entities_mode_points_to_find_memories_by_entity(client, world, alice):
    response = tool(client, alice, "search_memory", {"query": "Dana", "mode": "entities"})
    assert response.status_code == 422
    assert "find_memories_by_entity" in response.json()["error"]
    assert tool(client, alice, "search_memory", {"query": "Dana", "mode": "events"}).status_code == 200


def test_principal_filter_and_candidates(client, world, alice, corpus):
    with ctx(world):
        access_key_create(member=world.bob.members[world.a.enterprise.slug], project=world.a.project)
    only_alice = tool(
        client, alice, "search_memory", {"query": "staging", "principal": world.alice.user.email}
    ).json()
    assert only_alice["hits"] and only_alice["searched_scope"]["principal"] == [
        world.alice.members[world.a.enterprise.slug].pk
    ]
    team = tool(client, alice, "search_memory", {"query": "staging", "principal": "Platform"}).json()
    assert team["hits"]
    unknown = tool(client, alice, "search_memory", {"query": "staging", "principal": "nobody@example.com"})
    assert unknown.status_code == 422 and unknown.json()["code"] == "principal_unknown"


# search (remember) ----------------------------------------------------------------------------


def test_search_shows_status_and_graph_relations(client, world, alice):
    first = tool(
        client, alice, "remember", {"content": "Staging runs on systemd.", "fact_key": "staging-runtime"}
    ).json()["id"]
    second = tool(
        client, alice, "remember", {"content": "Staging runs on docker.", "fact_key": "staging-runtime"}
    ).json()["id"]
    _archive(world, first, second)
    body = tool(client, alice, "search", {"query": "staging runs on"}).json()
    results = {r["id"]: r for r in body["results"]}
    assert results[first]["status"] == results[second]["status"] == "conflict"
    assert {"type": "conflict", "id": first, "direction": "out"} in results[second]["graph_relations"]
    assert {"type": "conflict", "id": second, "direction": "in"} in results[first]["graph_relations"]
    scoped = tool(client, alice, "search", {"query": "staging", "scope": "private"}).json()
    assert scoped["results"] == []


# timeline, entity, connections ----------------------------------------------------------------


def test_timeline_modes(client, world, alice, corpus):
    domain = tool(client, alice, "list_memory_timeline", {}).json()
    assert domain["mode"] == "domain" and domain["anchor"] is None and domain["total"] == 4
    stamps = [e["timestamp"] for e in domain["events"]]
    assert stamps == sorted(stamps)
    limited = tool(client, alice, "list_memory_timeline", {"limit": 2}).json()
    assert limited["truncated"] is True and [e["event_id"] for e in limited["events"]] == [
        e["event_id"] for e in domain["events"][-2:]
    ]
    entity = tool(client, alice, "find_memories_by_entity", {"name": "app-staging"}).json()["entity"]
    by_entity = tool(client, alice, "list_memory_timeline", {"entity_id": entity["id"]}).json()
    assert by_entity["mode"] == "entity" and {e["event_id"] for e in by_entity["events"]} == {
        corpus["deploy"],
        corpus["rollback"],
    }
    search = tool(client, alice, "search_memory", {"query": "staging deploy rollback"}).json()
    group = next(c for c in search["hint"]["categories"] if c["path"] == "deploy")
    by_group = tool(client, alice, "list_memory_timeline", {"cg_id": group["id"]}).json()
    assert by_group["mode"] == "tag_group" and by_group["total"] == 2
    assert tool(client, alice, "list_memory_timeline", {"limit": 999}).status_code == 200
    assert tool(client, alice, "list_memory_timeline", {"days": 0}).status_code == 422


def test_find_memories_by_entity(client, world, alice, corpus):
    body = tool(
        client, alice, "find_memories_by_entity", {"name": "ＬＥＥ"}
    ).json()  # full-width and case folded
    assert body["entity"]["name"] == "Lee" and body["total"] == 2
    page = tool(client, alice, "find_memories_by_entity", {"name": "lee", "limit": 1}).json()
    assert len(page["events"]) == 1 and page["continuation"] == {"offset": 1}
    tool(
        client,
        alice,
        "update_memory",
        {
            "event_id": corpus["lunch"],
            "add_entities": [{"name": "Leon", "type": "person"}],
            "add_entity_renames": [{"old": "Lee", "new": "Leon"}],
        },
    )
    renamed = tool(client, alice, "find_memories_by_entity", {"name": "Leon"}).json()
    assert renamed["total"] == 3 and [e["name"] for e in renamed["also_known_as"]] == ["Lee"]
    missing = tool(client, alice, "find_memories_by_entity", {"name": "Da"}).json()
    assert missing["entity"] is None and [c["name"] for c in missing["candidates"]] == ["Dana"]
    assert tool(client, alice, "find_memories_by_entity", {}).status_code == 422


def test_find_memory_connections(client, world, alice, corpus):
    body = tool(
        client, alice, "find_memory_connections", {"sentence": "Dana moved the staging deploy to systemd"}
    ).json()
    assert body["starts"][0] == corpus["deploy"]
    reached = {c["event_id"]: c for c in body["connections"]}
    if corpus["rollback"] in body["starts"]:
        # Found directly by the sentence: then its sequence neighbour is reached from it.
        assert {"via": "sequence", "from_event": corpus["rollback"]} in [
            {k: r[k] for k in ("via", "from_event")} for r in reached[corpus["rollback2"]]["reached_by"]
        ]
    else:
        assert {"via": "entity", "from_event": corpus["deploy"], "detail": "app-staging"} in reached[
            corpus["rollback"]
        ]["reached_by"]


# ask ----------------------------------------------------------------------------------------------


def ask(client, secret, task, **params):
    query = "&".join(f"{k}={v}" for k, v in params.items())
    return client.get(f"/v1/tasks/{task.pk}/memory/ask?{query}", HTTP_AUTHORIZATION=f"Bearer {secret}")


@pytest.fixture
def task(world):
    with ctx(world):
        return task_create(
            project=world.a.project, name="release check", goal="What does the release check need?"
        )


def _note(world, task, text, *, layer="task", visibility="project", fact_key=None, member=None):
    member = member or world.alice.members[world.a.enterprise.slug]
    with ctx(world):
        key, _ = world.alice.keys[world.a.enterprise.slug]
        memory = memory_create(
            draft=MemoryDraft(
                project=world.a.project,
                workspace=workspace_get_or_create(project=world.a.project, name="notes"),
                author=member,
                access_key=key,
                content=text,
                summary=text[:500],
                layer=layer,
                visibility=visibility,
                task=task if layer == "task" else None,
                fact_key=fact_key,
            ),
            tool="test",
        )
    return str(memory.pk)


def test_ask_answers_with_cited_evidence_over_http(client, world, alice, task):
    note = _note(
        world,
        task,
        "The release check needs the preview URL before it can start. It also needs a green build.",
    )
    _note(world, task, "Lunch is on Thursday.")
    body = ask(client, alice, task, purpose="What does the release check need before it can start?").json()
    assert set(body) == {"answer", "evidence", "appliedFilters", "status", "usage"}
    assert body["status"] == "answered"
    assert [e["id"] for e in body["evidence"]] == [note]
    assert f"[{note}]" in body["answer"] and "preview URL" in body["answer"]
    assert (
        "The release check needs the preview URL before it can start. It also needs a green build."
        in body["answer"]
    )
    assert body["appliedFilters"] == {
        "teamId": None,
        "projectId": None,
        "layers": ["task", "team", "enterprise"],
        "limit": 5,
    }
    assert body["usage"]["evidenceReturned"] == 1 and body["usage"]["evidenceOmitted"] == 0


def test_ask_insufficient_evidence(client, world, alice, task):
    body = ask(client, alice, task, purpose="What is the capital of Mars?").json()
    assert body["status"] == "insufficient_evidence" and body["evidence"] == [] and body["answer"] == ""


def test_ask_conflict(client, world, alice, task):
    first = _note(world, task, "The release check runs on Mondays.", fact_key="release-day")
    second = _note(world, task, "The release check runs on Fridays.", fact_key="release-day")
    _archive(world, first, second)
    body = ask(client, alice, task, purpose="Which day does the release check run?").json()
    assert body["status"] == "conflict" and {first, second} <= {e["id"] for e in body["evidence"]}


def test_ask_unavailable_when_the_embedder_is_down(client, world, alice, task, monkeypatch):
    from memory.embedding import registry as embedders

    _note(world, task, "The release check needs the preview URL.")
    monkeypatch.setenv("MNEMOS_EMBEDDER", "openai:http://127.0.0.1:9|down-model|384")
    monkeypatch.setattr(embedders, "_cache", {})
    body = ask(client, alice, task, purpose="What does the release check need?").json()
    assert body["status"] == "unavailable" and body["answer"] == "" and body["evidence"] == []


def test_ask_in_a_run_fits_one_result(client, world, alice, task):
    from memory.selectors.ask import RUN_BUDGET_CHARS

    long = "The release check needs the preview URL. " + "detail " * (RUN_BUDGET_CHARS // 7 + 10)
    big = _note(world, task, long)
    other = _note(world, task, "The release check needs the preview URL and a changelog entry.")
    from core.dispatch import tool_dispatch

    outcome = tool_dispatch(
        secret=alice,
        name="memory_ask",
        arguments={"purpose": "release check preview URL"},
        surface="mcp",
        task_id=str(task.pk),
    )
    body = outcome.output
    ids = [e["id"] for e in body["evidence"]]
    first = body["evidence"][0]
    if first["id"] == big:
        assert (
            first["partial"] is True
            and first["chars"] == len(long)
            and len(first["text"]) == RUN_BUDGET_CHARS
        )
        assert body["omitted"] == [
            {
                "id": other,
                "layer": "task",
                "sourceEventId": None,
                "chars": len("The release check needs the preview URL and a changelog entry."),
            }
        ]
    else:
        assert ids == [other] and body["omitted"][0]["id"] == big and body["omitted"][0]["chars"] == len(long)
    assert body["usage"]["evidenceOmitted"] == len(body["omitted"])


def test_ask_filters_are_honoured_never_widened(client, world, alice, task):
    note = _note(world, task, "The release check needs the preview URL.")
    other = str(world.a.other_project.pk)
    narrowed = ask(client, alice, task, purpose="release check preview URL", projectId=other).json()
    assert narrowed["status"] == "insufficient_evidence" and narrowed["appliedFilters"]["projectId"] == other
    same = ask(
        client, alice, task, purpose="release check preview URL", projectId=str(world.a.project.pk)
    ).json()
    assert [e["id"] for e in same["evidence"]] == [note]
    team = ask(client, alice, task, purpose="release check preview URL", teamId=world.a.team.pk).json()
    assert team["appliedFilters"]["teamId"] == world.a.team.pk


def test_ask_never_stores_and_is_audited(client, world, alice, task):
    note = _note(world, task, "The release check needs the preview URL.")
    with ctx(world):
        before = Memory.objects.count()
    ask(client, alice, task, purpose="What does the release check need?", HTTP_X_REQUEST_ID="x")
    response = client.get(
        f"/v1/tasks/{task.pk}/memory/ask?purpose=release+check",
        HTTP_AUTHORIZATION=f"Bearer {alice}",
        HTTP_X_REQUEST_ID="ask-audit",
    )
    assert response.status_code == 200
    with ctx(world):
        assert Memory.objects.count() == before
        event = AuditEvent.objects.get(request_id="ask-audit")
    assert event.action == "tool.call" and event.details["read_ids"] == [note]


def test_ask_foreign_task_is_not_found(client, world, task):
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    response = ask(client, bob_b, task, purpose="anything")
    assert response.status_code == 404 and response.json()["error"] == "task not found"


# task runs ----------------------------------------------------------------------------------------


def test_a_run_consults_before_and_learns_after(client, world, alice, task):
    note = _note(world, task, "The release check needs the preview URL before it can start.")
    started = client.post(f"/v1/tasks/{task.pk}/runs", HTTP_AUTHORIZATION=f"Bearer {alice}")
    assert started.status_code == 201, started.content
    run = started.json()
    assert run["consulted"]["status"] == "answered" and [e["id"] for e in run["consulted"]["evidence"]] == [
        note
    ]
    run_key = run["runKey"]
    # The run key asks and trains within its run only.
    assert tool(client, run_key, "memory.ask", {"purpose": "preview URL"}).json()["status"] == "answered"
    assert tool(client, run_key, "remember", {"content": "x"}).status_code == 404
    finish = lambda: client.post(  # noqa: E731
        f"/v1/tasks/{task.pk}/runs/{run['runId']}/finish",
        data=json.dumps({"outcome": "The preview URL was missing; the check waited."}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {alice}",
    )
    done = finish().json()
    assert done["state"] == "finished" and done["learned"]
    again = finish().json()
    assert again == done
    with ctx(world):
        learned = Memory.objects.get(pk=done["learned"]["id"])
    assert (learned.layer, learned.task_id, learned.source_event_id) == (
        "task",
        task.pk,
        f"run:{run['runId']}",
    )
    assert tool(client, run_key, "memory.ask", {"purpose": "preview URL"}).status_code == 401


# visibility matrix -----------------------------------------------------------------------------


VISIBILITY_CASES = [
    # (visibility, layer, alice sees, bob (auditor of A, Platform team) sees)
    ("project", "project", True, True),
    ("enterprise", "project", True, True),
    ("team", "project", True, True),
    ("author", "member", True, False),
]


@pytest.mark.parametrize("visibility, layer, alice_sees, bob_sees", VISIBILITY_CASES)
def test_visibility_matrix_for_every_read_tool(client, world, alice, visibility, layer, alice_sees, bob_sees):
    text = f"Zebrafish protocol {uuid.uuid4().hex[:6]} for {visibility}"
    memory_id = _note(world, None, text, layer=layer, visibility=visibility)
    bob_a = world.bob.keys[world.a.enterprise.slug][1]
    bob_b = world.bob.keys[world.b.enterprise.slug][1]
    for secret, expected in ((alice, alice_sees), (bob_a, bob_sees), (bob_b, False)):
        seen = {
            "search_memory": memory_id
            in {h["event_id"] for h in tool(client, secret, "search_memory", {"query": text}).json()["hits"]},
            "search": memory_id
            in {r["id"] for r in tool(client, secret, "search", {"query": text}).json()["results"]},
            "timeline": memory_id
            in {
                e["event_id"]
                for e in tool(client, secret, "list_memory_timeline", {"limit": 200}).json()["events"]
            },
            "connections": memory_id
            in tool(client, secret, "find_memory_connections", {"sentence": text}).json()["starts"],
        }
        assert seen == dict.fromkeys(seen, expected), (secret == alice, seen)


def test_role_layer_is_read_by_role_holders_only(client, world, alice):
    with ctx(world):
        role = Role.objects.create(enterprise=world.a.enterprise, slug="oncall", name="On call")
        RoleAssignment.objects.create(
            enterprise=world.a.enterprise, member=world.alice.members[world.a.enterprise.slug], role=role
        )
        key, _ = world.alice.keys[world.a.enterprise.slug]
        memory = memory_create(
            draft=MemoryDraft(
                project=world.a.project,
                workspace=workspace_get_or_create(project=world.a.project, name="notes"),
                author=world.alice.members[world.a.enterprise.slug],
                access_key=key,
                content="On-call pager rotates weekly.",
                layer="role",
                visibility="enterprise",
                role=role,
            ),
            tool="test",
        )
    bob_a = world.bob.keys[world.a.enterprise.slug][1]
    assert str(memory.pk) in {
        r["id"] for r in tool(client, alice, "search", {"query": "pager rotates"}).json()["results"]
    }
    assert str(memory.pk) not in {
        r["id"] for r in tool(client, bob_a, "search", {"query": "pager rotates"}).json()["results"]
    }


def test_forgotten_memories_never_appear(client, world, alice, corpus):
    tool(client, alice, "forget", {"id": corpus["lunch"]})
    for name, arguments, path in (
        ("search_memory", {"query": "team lunch Thursday"}, ("hits", "event_id")),
        ("search", {"query": "team lunch Thursday"}, ("results", "id")),
        ("list_memory_timeline", {}, ("events", "event_id")),
    ):
        body = tool(client, alice, name, arguments).json()
        assert corpus["lunch"] not in {item[path[1]] for item in body[path[0]]}, name


def test_reads_are_audited_with_the_ids_returned(client, world, alice, corpus):
    tool(client, alice, "search_memory", {"query": "staging deploy"}, HTTP_X_REQUEST_ID="read-1")
    with ctx(world):
        event = AuditEvent.objects.get(request_id="read-1")
    assert event.details["tool"] == "search_memory" and corpus["deploy"] in event.details["read_ids"]


def test_the_entity_channel_ignores_entities_on_too_many_memories(client, world, alice):
    from memory.selectors import search as search_module

    rare = _save(client, alice, "Quokka sighting report.", "A quokka was seen near the office.", ["Quokka"])
    for i in range(search_module.ENTITY_CHANNEL_MAX_LINKS + 1):
        _save(client, alice, f"Weekly status {i}.", f"Status number {i}.", ["Acme"])
    quokka = tool(client, alice, "search_memory", {"query": "Quokka"}).json()["hits"]
    assert quokka[0]["event_id"] == rare and "entity" in quokka[0]["channels"]
    acme = tool(client, alice, "search_memory", {"query": "Acme", "top_k": 50}).json()["hits"]
    assert all("entity" not in hit["channels"] for hit in acme)


def test_hint_categories_count_groups_by_path_without_wildcards(client, world, alice):
    """A group's total is its live memories under it: `_` in a path is a letter, forgotten ones don't count."""
    for tags in (["ci_cd/build"], ["ci_cd/build"], ["ciXcd/deploy"]):
        _save(client, alice, "Quokka build", "The quokka build ran.", tags=tags)
    gone = _save(client, alice, "Quokka release", "The quokka release ran.", tags=["ci_cd/release"])
    assert tool(client, alice, "forget", {"id": gone}).status_code == 200
    body = tool(client, alice, "search_memory", {"query": "quokka build"}).json()
    categories = {c["path"]: (c["count"], c["total"]) for c in body["hint"]["categories"]}
    assert categories["ci_cd/build"] == (2, 2) and categories["ci_cd"] == (2, 2)
    assert "ciXcd" not in categories and "ciXcd/deploy" not in categories
