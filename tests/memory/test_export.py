"""Exports (docs/lifecycle.md "Export", docs/export-format.md): every line against the shipped JSON
Schema, the three scopes and who may ask for each, the other enterprise's data never in it, vectors
optional, the job's chunks with progress, a resume after a killed worker, the signed link, the command."""

from __future__ import annotations

import hashlib
import json
import os
import signal
import time
import uuid
from datetime import timedelta
from io import BytesIO, StringIO
from pathlib import Path
from typing import Any

import pytest
from django.core.management import CommandError, call_command
from django.utils import timezone
from jsonschema import Draft202012Validator

from accounts.services.workspaces import workspace_get_or_create
from core.errors import Forbidden, InvalidInput, NotFound, Unprocessable
from core.tenancy import tenant_context
from memory.models import DataExport, Memory, TransferState
from memory.services.export_writer import SECTIONS, ExportSpec, export_file, export_write
from memory.services.exports import (
    ENTERPRISE_DENIED,
    EXPORT_EXPIRED,
    FOLDER_KEY_DENIED,
    LINK_EXPIRED,
    LINK_INVALID,
    PROJECT_DENIED,
    export_download_url,
    export_request,
)
from memory.services.memories import MemoryDraft, memory_create
from memory.services.tasks import task_create, task_version_create
from memory.tasks import export_step_task
from tests.factories import AccessKeyFactory, MemberFactory, UserFactory
from tests.live import stop_process, wait_for, worker_process
from tests.memory.helpers import archive, ctx, save_event, tool

ROOT = Path(__file__).resolve().parents[2]
SCHEMA = json.loads((ROOT / "docs" / "export-format.schema.json").read_text())
VALIDATOR = Draft202012Validator(SCHEMA)


def check_document(data: bytes) -> list[dict[str, Any]]:
    """Every line valid against the schema, the sections in order, the footer's figures right."""
    raw = data.splitlines(keepends=True)
    lines = [json.loads(line) for line in raw]
    for line in lines:
        errors = [f"{list(e.path)}: {e.message}" for e in VALIDATOR.iter_errors(line)]
        assert errors == [], (line, errors)
    assert [line["type"] for line in lines].count("header") == 1 and lines[0]["type"] == "header"
    order = [SECTIONS.index(line["type"]) for line in lines]
    assert order == sorted(order)
    footer = lines[-1]
    assert footer["type"] == "footer"
    assert footer["lines"] == len(raw) - 1
    assert footer["sha256"] == hashlib.sha256(b"".join(raw[:-1])).hexdigest()
    kinds = [line["type"] for line in lines]
    assert footer["counts"] == {
        "entities": kinds.count("entity"),
        "tags": kinds.count("tag"),
        "tasks": kinds.count("task"),
        "memories": kinds.count("memory"),
        "links": kinds.count("link"),
    }
    ids = [line["id"] for line in lines if line["type"] == "memory"]
    assert len(ids) == len(set(ids))
    return lines


def export_now(world, slug: str = "a", **spec: Any) -> bytes:
    with ctx(world, slug):
        out = BytesIO()
        export_write(
            out,
            spec=ExportSpec(
                enterprise_id=getattr(world, slug).enterprise.pk,
                cutoff=spec.pop("cutoff", timezone.now()),
                **{"scope": "enterprise", **spec},
            ),
        )
    return out.getvalue()


def _of(lines, kind):
    return [line for line in lines if line["type"] == kind]


def _draft(world, *, member, key, project, content, workspace="default", **extra) -> MemoryDraft:
    return MemoryDraft(
        project=project,
        workspace=workspace_get_or_create(project=project, name=workspace),
        author=member,
        access_key=key,
        content=content,
        **extra,
    )


@pytest.fixture
def dana(world):
    """A plain member of A with her own memory in alpha (granted through the Platform team)."""
    member = MemberFactory.create(
        enterprise=world.a.enterprise, user=UserFactory.create(username="dana"), teams=[world.a.team]
    )
    key, secret = AccessKeyFactory.create(member=member, project=world.a.project, label="dana key")
    return member, key, secret


@pytest.fixture
def filled(client, world, alice, bob_b, dana):
    """Enterprise A with entities, tags, a sequence link, a fact key, derived_from, a task with two
    versions, a forgotten memory, a memory in beta and dana's; B with a memory of its own."""
    first = save_event(
        client, alice, "Globex billing", "Globex pays by invoice.", ["Globex"], ["billing/invoices"]
    )
    second = save_event(
        client,
        alice,
        "Globex terms",
        "Invoices are due in 30 days.",
        ["Globex", "Ünïcode Co"],
        prev_event_id=first,
    )
    fact = tool(
        client,
        alice,
        "remember",
        {
            "content": "Staging deploys from the release branch.",
            "source_id": "docs/deploy.md",
            "fact_key": "deploy-staging",
            "confidence": 0.9,
            "derived_from": [second, first],
        },
    ).json()["id"]
    gone = tool(client, alice, "remember", {"content": "An old note that was forgotten."}).json()["id"]
    assert tool(client, alice, "forget", {"id": gone, "reason": "obsolete"}).status_code == 200
    save_event(client, bob_b, "Initech plan", "Initech secret plan in enterprise B.", ["Initech"], ["secret"])
    member, key, _ = dana
    alice_member, alice_key = world.alice.members["acme"], world.alice.keys["acme"][0]
    with ctx(world):
        task = task_create(project=world.a.project, name="release check", goal="check releases")
        task_version_create(task=task, grants=[{"layer": "team", "prefix": "release"}])
        beta = memory_create(
            draft=_draft(
                world, member=alice_member, key=alice_key, project=world.a.other_project, content="Beta only."
            ),
            tool="test",
        )
        mine = memory_create(
            draft=_draft(world, member=member, key=key, project=world.a.project, content="Dana's own note."),
            tool="test",
        )
    return {
        "first": first,
        "second": second,
        "fact": fact,
        "gone": gone,
        "beta": str(beta.pk),
        "dana": str(mine.pk),
    }


def test_an_enterprise_export_holds_everything_and_every_line_validates(world, filled):
    data = export_now(world)
    lines = check_document(data)
    header = lines[0]
    assert header["format"] == "mnemos-export" and header["version"] == 1 and header["scope"] == "enterprise"
    assert header["enterprise"] == {
        "id": str(world.a.enterprise.pk),
        "slug": world.a.enterprise.slug,
        "name": world.a.enterprise.name,
    }
    assert [p["slug"] for p in header["projects"]] == ["alpha", "beta"]
    assert header["include_vectors"] is False and header["embedding"] is None
    memories = {line["id"]: line for line in _of(lines, "memory")}
    assert set(memories) == {filled[k] for k in ("first", "second", "fact", "gone", "beta", "dana")}
    fact = memories[filled["fact"]]
    assert fact["fact_key"] == "deploy-staging" and fact["fact_version"] == 1 and fact["confidence"] == 0.9
    assert fact["source_id"] == "docs/deploy.md"
    assert fact["derived_from"] == [filled["first"], filled["second"]]  # in the export's own order
    assert fact["author"] == world.alice.user.email and fact["project"] == "alpha"
    assert memories[filled["gone"]]["forgotten_at"] is not None
    second = memories[filled["second"]]
    assert second["entities"] == ["Globex", "Ünïcode Co"] and "embedding" not in second
    assert memories[filled["first"]]["tags"] == ["billing/invoices"]
    assert [t["path"] for t in _of(lines, "tag")] == ["billing", "billing/invoices"]
    assert [e["name"] for e in _of(lines, "entity")] == ["Globex", "Ünïcode Co"]
    [task] = _of(lines, "task")
    assert task["name"] == "release check" and [v["number"] for v in task["versions"]] == [1, 2]
    assert task["versions"][1]["grants"] == [{"layer": "team", "prefix": "release"}]
    links = _of(lines, "link")
    assert {(link["kind"], link["src"], link["dst"]) for link in links} >= {
        ("next", filled["first"], filled["second"])
    }
    # the memories in the order of their creation
    created = [line["created_at"] for line in _of(lines, "memory")]
    assert created == sorted(created)
    assert "Ünïcode Co".encode() in data  # text as itself, not \u escapes
    assert b"Initech" not in data  # enterprise B's memory, entity and tag are nowhere in A's export


def test_the_same_data_gives_the_same_document(world, filled):
    cutoff = timezone.now()
    assert export_now(world, cutoff=cutoff) == export_now(world, cutoff=cutoff)


def test_project_and_member_scopes(world, filled, dana):
    project = check_document(export_now(world, scope="project", project_id=world.a.project.pk))
    assert project[0]["project"]["slug"] == "alpha" and [p["slug"] for p in project[0]["projects"]] == [
        "alpha"
    ]
    ids = {line["id"] for line in _of(project, "memory")}
    assert filled["beta"] not in ids and {filled["first"], filled["dana"]} <= ids
    member = check_document(export_now(world, scope="member", member_id=dana[0].pk))
    assert member[0]["member"] == {"email": dana[0].user.email}
    assert [line["id"] for line in _of(member, "memory")] == [filled["dana"]]
    assert _of(member, "task") == [] and _of(member, "entity") == []
    # B's export holds B's memory only
    other = check_document(export_now(world, slug="b"))
    assert [line["content"] for line in _of(other, "memory")] == ["Initech secret plan in enterprise B."]


def test_vectors_are_optional(world, filled):
    archive(world, filled["first"], filled["second"])
    without = check_document(export_now(world))
    assert all("embedding" not in line for line in _of(without, "memory"))
    lines = check_document(export_now(world, include_vectors=True))
    with_vectors = {line["id"]: line for line in _of(lines, "memory") if "embedding" in line}
    assert set(with_vectors) >= {filled["first"], filled["second"]}
    line = with_vectors[filled["first"]]
    assert len(line["embedding"]) == line["embedding_dim"] and line["embedding_model"]
    assert lines[0]["embedding"] == {"model": line["embedding_model"], "dim": line["embedding_dim"]}
    with ctx(world):
        stored = Memory.objects.get(pk=filled["first"]).embedding
    assert line["embedding"] == [float(x) for x in stored]


def test_who_may_request_each_scope(world, dana):
    alice = world.alice.members["acme"]
    bob = world.bob.members["acme"]  # an auditor of A
    with ctx(world):
        for scope, project in (("enterprise", None), ("project", "alpha"), ("member", None)):
            export = export_request(member=alice, scope=scope, project_slug=project)
            assert export.state == TransferState.PENDING and export.requested_by == alice
        with pytest.raises(Forbidden, match=ENTERPRISE_DENIED):
            export_request(member=bob, scope="enterprise")
        with pytest.raises(Forbidden, match=PROJECT_DENIED.format(project="alpha")):
            export_request(member=bob, scope="project", project_slug="alpha")
        assert export_request(member=bob, scope="member").member == bob
        # dana may write alpha (her team's) but not manage it
        with pytest.raises(Forbidden, match=PROJECT_DENIED.format(project="alpha")):
            export_request(member=dana[0], scope="project", project_slug="alpha")
        with pytest.raises(Forbidden, match=ENTERPRISE_DENIED):
            export_request(member=dana[0], scope="enterprise")
        with pytest.raises(NotFound, match="no project 'nope'"):
            export_request(member=alice, scope="project", project_slug="nope")
        with pytest.raises(Unprocessable, match="a project export names its project"):
            export_request(member=alice, scope="project")
        with pytest.raises(InvalidInput, match="scope must be one of"):
            export_request(member=alice, scope="everything")
        bound, _ = AccessKeyFactory.create(member=alice, project=world.a.project, workspace_name="bound")
        with pytest.raises(Forbidden, match=FOLDER_KEY_DENIED):
            export_request(member=alice, scope="member", key=bound)
    with ctx(world, "b"):  # another enterprise sees none of A's exports
        assert not DataExport.objects.exists()


def _post(client, secret, body):
    return client.post(
        "/v1/exports",
        data=json.dumps(body),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )


def _get(client, secret, path):
    return client.get(path, HTTP_AUTHORIZATION=f"Bearer {secret}")


def test_the_rest_api(client, world, alice, bob_b):
    response = _post(client, alice, {"scope": "project", "project": "alpha"})
    assert response.status_code == 202, response.content
    body = response.json()
    assert body["state"] == "pending" and body["scope"] == "project" and body["project"] == "alpha"
    assert body["download_url"] is None and body["include_vectors"] is False
    assert _get(client, alice, f"/v1/exports/{body['id']}").json()["id"] == body["id"]
    assert [e["id"] for e in _get(client, alice, "/v1/exports").json()["exports"]] == [body["id"]]
    # the other enterprise: not found, and not listed
    assert _get(client, bob_b, f"/v1/exports/{body['id']}").status_code == 404
    assert _get(client, bob_b, "/v1/exports").json() == {"exports": []}
    # bob, an auditor of A, may not export the enterprise
    bob_a = world.bob.keys["acme"][1]
    refused = _post(client, bob_a, {"scope": "enterprise"})
    assert refused.status_code == 403 and refused.json() == {
        "error": ENTERPRISE_DENIED,
        "code": "export_forbidden",
    }
    bad = _post(client, alice, {"scope": "all of it"})
    assert bad.status_code == 400
    assert bad.json()["error"] == (
        'send {"scope": "project"|"enterprise"|"member", "project": "<slug, for scope project>", '
        '"include_vectors": false}'
    )
    assert _post(client, alice, {"scope": "project", "project": "nope"}).status_code == 404
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, write_only = AccessKeyFactory.create(
            member=world.alice.members["acme"], project=world.a.project, scopes=["memory:write"]
        )
    missing = _post(client, write_only, {"scope": "member"})
    assert (
        missing.status_code == 403
        and missing.json()["error"] == "this access key lacks the 'memory:read' scope"
    )


def _run_steps(world, export_id: str) -> list[int]:
    """Run the job's steps in-process until it is done; the ``done`` seen after each."""
    seen = []
    for _ in range(1000):
        result = export_step_task.apply(
            kwargs={"enterprise_id": str(world.a.enterprise.pk), "export_id": export_id}
        )
        assert result.successful(), result.result
        with ctx(world):
            seen.append(DataExport.objects.get(pk=export_id).done)
        if not result.result:
            return seen
    raise AssertionError("the export never finished")


def test_the_job_writes_chunks_resumes_past_a_dead_step_and_the_link_works(
    client, world, filled, settings, django_capture_on_commit_callbacks
):
    settings.EXPORT_CHUNK_LINES = 3
    with ctx(world):
        export = export_request(member=world.alice.members["acme"], scope="enterprise")
    export_id = str(export.pk)
    first = export_step_task.apply(
        kwargs={"enterprise_id": str(world.a.enterprise.pk), "export_id": export_id}
    )
    assert first.result is True
    with ctx(world):
        export = DataExport.objects.get(pk=export_id)
        assert export.state == TransferState.RUNNING and export.size_bytes > 0
    # what a worker killed mid-step leaves: bytes past the committed size, in the part file
    part = export_file(export).with_name(f"{export_id}.jsonl.part")
    with open(part, "ab") as f:
        f.write(b'{"type":"entity","name":"half a line')
    seen = _run_steps(world, export_id)
    assert seen == sorted(seen) and seen[-1] == 6 and len(set(seen)) > 2  # progress, a chunk at a time
    with ctx(world):
        export = DataExport.objects.get(pk=export_id)
        url = export_download_url(export)
    assert export.state == TransferState.DONE and export.total == export.done == 6
    assert not part.exists()
    data = export_file(export).read_bytes()
    assert export.size_bytes == len(data) and export.sha256 == hashlib.sha256(data).hexdigest()
    assert b"half a line" not in data
    # the whole job's document is the one written at once, at the same cutoff
    assert data == export_now(world, cutoff=export.created_at)
    check_document(data)
    # a repeat of a finished job changes nothing
    assert (
        export_step_task.apply(
            kwargs={"enterprise_id": str(world.a.enterprise.pk), "export_id": export_id}
        ).result
        is False
    )
    # the signed link: no key needed
    response = client.get(url)
    assert response.status_code == 200 and b"".join(response.streaming_content) == data
    assert response["X-Content-SHA256"] == export.sha256
    tampered = client.get(url[:-3] + ("aaa" if not url.endswith("aaa") else "bbb"))
    assert tampered.status_code == 403 and tampered.content.decode().strip() == LINK_INVALID
    forged = url.replace(str(world.a.enterprise.pk), str(world.b.enterprise.pk))
    assert client.get(forged).status_code == 403
    settings.EXPORT_LINK_SECONDS = 1
    time.sleep(1.2)
    expired = client.get(url)
    assert expired.status_code == 410 and expired.content.decode().strip() == LINK_EXPIRED
    settings.EXPORT_LINK_SECONDS = 3600
    with ctx(world):
        DataExport.objects.filter(pk=export_id).update(expires_at=timezone.now() - timedelta(seconds=1))
        export = DataExport.objects.get(pk=export_id)
        assert export_download_url(export) is None
        from memory.services.exports import export_download_token

        token = export_download_token(export)
    gone = client.get(f"/v1/exports/download/{token}")
    assert gone.status_code == 410 and gone.content.decode().strip() == EXPORT_EXPIRED
    # the retention sweep deletes an expired export's file (the row stays, its path cleared)
    file = export_file(export)
    assert file.exists()
    from memory.tasks import retention_sweep

    with django_capture_on_commit_callbacks(execute=True):
        retention_sweep.apply()
    assert not file.exists()
    with ctx(world):
        assert DataExport.objects.get(pk=export_id).path == ""


def test_the_command_writes_each_scope(world, filled, dana, tmp_path):
    out = tmp_path / "a.jsonl"
    err = StringIO()
    call_command("memory_export", "--enterprise", world.a.enterprise.slug, "--out", str(out), stderr=err)
    lines = check_document(out.read_bytes())
    assert len(_of(lines, "memory")) == 6 and "exported 6 memories" in err.getvalue()
    call_command(
        "memory_export",
        "--enterprise",
        world.a.enterprise.slug,
        "--project",
        "beta",
        "--out",
        str(out),
        "--quiet",
    )
    assert [m["id"] for m in _of(check_document(out.read_bytes()), "memory")] == [filled["beta"]]
    call_command(
        "memory_export",
        "--enterprise",
        world.a.enterprise.slug,
        "--member",
        dana[0].user.email,
        "--out",
        str(out),
    )
    assert [m["id"] for m in _of(check_document(out.read_bytes()), "memory")] == [filled["dana"]]
    with pytest.raises(CommandError, match="no enterprise with slug 'nope'"):
        call_command("memory_export", "--enterprise", "nope")
    with pytest.raises(CommandError, match="no project 'nope'"):
        call_command("memory_export", "--enterprise", world.a.enterprise.slug, "--project", "nope")
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        from accounts.models import AuditEvent

        assert AuditEvent.objects.filter(action="export.command").count() == 3


# -- a real worker -----------------------------------------------------------------------------------


@pytest.fixture
def live_db(django_db_blocker):
    with django_db_blocker.unblock():
        yield


@pytest.fixture
def many_memories(committed_world, live_db):
    """Memories in beta of the committed world (another process must see them), removed afterwards.
    Made in one insert: the write path is not what these tests are about."""
    world = committed_world
    slug = world.a.enterprise.slug
    member, key = world.alice.members[slug], world.alice.keys[slug][0]

    def make(count: int, size: int) -> list[str]:
        with ctx(world):
            folder = workspace_get_or_create(
                project=world.a.other_project, name=f"export-{uuid.uuid4().hex[:6]}"
            )
            start = timezone.now() - timedelta(hours=1)
            rows = Memory.objects.bulk_create(
                [
                    Memory(
                        enterprise_id=world.a.enterprise.pk,
                        project=world.a.other_project,
                        workspace=folder,
                        author=member,
                        access_key=key,
                        created_at=start + timedelta(milliseconds=n),
                        content=f"export note {n}: " + "x" * size,
                    )
                    for n in range(count)
                ]
            )
        made.extend(str(m.pk) for m in rows)
        return made

    made: list[str] = []
    yield make
    with ctx(world):
        Memory.objects.filter(pk__in=made).delete()
        DataExport.objects.all().delete()


def _request(world) -> DataExport:
    slug = world.a.enterprise.slug
    with ctx(world):
        return export_request(member=world.alice.members[slug], scope="project", project_slug="beta")


def _state(world, export_id) -> DataExport:
    with ctx(world):
        return DataExport.objects.get(pk=export_id)


@pytest.mark.live
def test_a_real_worker_writes_it_a_chunk_at_a_time(committed_world, many_memories):
    world = committed_world
    many_memories(40, 10)
    seen: set[int] = set()
    with worker_process(env={"MNEMOS_EXPORT_CHUNK_LINES": "4"}):
        export = _request(world)  # with the worker up: its steps are watched from the first

        def finished() -> bool:
            state = _state(world, export.pk)
            seen.add(state.done)
            return state.state == TransferState.DONE

        wait_for(finished, timeout=120, interval=0.005, what="the export to finish")
    done = _state(world, export.pk)
    assert done.done == done.total == 40
    assert len([n for n in seen if 0 < n < 40]) >= 2  # progress a person could watch
    lines = check_document(export_file(done).read_bytes())
    assert len(_of(lines, "memory")) == 40


@pytest.mark.live
def test_a_killed_worker_resumes_the_export_without_a_duplicate_or_a_gap(committed_world, many_memories):
    world = committed_world
    ids = many_memories(1500, 4000)
    env = {
        "MNEMOS_EXPORT_CHUNK_LINES": "150",
        "MNEMOS_JOBS_SWEEP_SECONDS": "1",
        "MNEMOS_JOBS_STALE_SECONDS": "1",
    }
    with worker_process(env=env, beat=True) as (_, process):
        export = _request(world)  # with the worker up: none of it runs before the watch starts
        part = export_file(export).with_name(f"{export.pk}.jsonl.part")

        def mid_step() -> bool:
            state = _state(world, export.pk)
            if state.state == TransferState.DONE:
                raise AssertionError("the export finished before the worker could be killed mid-step")
            size = part.stat().st_size if part.exists() else 0
            return state.done > 0 and size > state.size_bytes

        wait_for(mid_step, timeout=120, interval=0.001, what="a step half written")
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        killed = _state(world, export.pk)
        stop_process(process)
    assert 0 < killed.done < 1500 and killed.state == TransferState.RUNNING
    with worker_process(env=env, beat=True):
        wait_for(
            lambda: _state(world, export.pk).state == TransferState.DONE,
            timeout=180,
            what="the export to resume and finish",
        )
    done = _state(world, export.pk)
    assert done.done == done.total == 1500
    data = export_file(done).read_bytes()
    assert done.sha256 == hashlib.sha256(data).hexdigest()
    lines = check_document(data)
    assert [line["id"] for line in _of(lines, "memory")] == ids  # every memory once, in order


def test_an_export_line_that_breaks_the_schema_is_caught():
    """The schema is closed: the test above can fail."""
    assert list(VALIDATOR.iter_errors({"type": "tag", "path": "a", "name": "a", "extra": 1}))
    assert list(VALIDATOR.iter_errors({"type": "memory", "id": "not-a-uuid"}))
    assert list(VALIDATOR.iter_errors({"type": "unknown"}))
    assert not list(VALIDATOR.iter_errors({"type": "tag", "path": "a", "name": "a"}))
