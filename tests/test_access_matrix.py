"""The access matrix: every tool x every kind of principal, through the tool door (the one every surface uses).

Generated from the registry: a tool without its row here fails ``test_every_tool_has_its_row``.
Each row says what a call of the tool does (read, read the projects, save, change by id, train), and
each effect has one expected outcome per principal (``EXPECTED``), from the policy in accounts/access.py:

    ok        the call answers and the target is in the answer (reads) or was written (writes)
    hidden    the call answers and the target is not in it (reads), or the same not-found a missing
              object gets (writes by id, tasks)
    <code>    the call is refused with that error code

Principals, all in enterprise A unless said (project alpha is granted to team Platform; beta to nobody):
owner, admin (alice), member (dana, in Platform), ungranted (erin: no team, a key made before the CLI
checked), removed (frank: taken off Platform after his key was made), auditor (bob), folder_in / folder_out
(dana's key bound to folder "notes", aimed at a memory in "notes" / in "default"), read_only (dana's
memory:read,tasks:read,partners:read key), run (the run key of a run of task T), foreign (bob's key in B).
"""

from __future__ import annotations

import json
import uuid
from dataclasses import dataclass
from typing import Any

import pytest
from django.contrib.auth.models import User

from accounts import access
from accounts.models import AccessKey, OrgRole, TeamMembership
from accounts.services.enterprises import member_add, project_grant
from accounts.services.keys import access_key_create, access_key_digest
from core.dispatch import tool_dispatch
from core.registry import registry
from core.tenancy import tenant_context
from memory.models import Task
from memory.services.runs import task_run_start
from tests.partners.helpers import active_link

pytestmark = pytest.mark.django_db

PRINCIPALS = (
    "owner",
    "admin",
    "member",
    "ungranted",
    "removed",
    "auditor",
    "folder_in",
    "folder_out",
    "read_only",
    "run",
    "foreign",
)

H, OK = "hidden", "ok"
WRITE_REFUSED = "membership_may_not_write"
NO_SCOPE = "missing_scope"
NO_TOOL = "unknown_tool"

# What each kind of call gives each principal.
EXPECTED: dict[str, dict[str, str]] = {
    # Reads of memories (search, timeline, entities, connections, graph, SQL, ask without a task).
    "read": {
        "owner": OK,
        "admin": OK,
        "member": OK,
        "ungranted": H,
        "removed": H,
        "auditor": OK,
        "folder_in": OK,
        "folder_out": H,
        "read_only": OK,
        "run": NO_TOOL,
        "foreign": H,
    },
    # list_memory_projects: does project beta (granted to nobody) appear? Owners, admins, auditors read all.
    "projects": {
        "owner": OK,
        "admin": OK,
        "member": H,
        "ungranted": H,
        "removed": H,
        "auditor": OK,
        "folder_in": H,
        "folder_out": H,
        "read_only": H,
        "run": NO_TOOL,
        "foreign": H,
    },
    # A call that reads no memory (describe_memory_schema): the scope and the toolset decide.
    "plain": {p: OK for p in PRINCIPALS} | {"run": NO_TOOL},
    # Partner reads through the link B provides to A: an org-to-org capability for A's readers.
    "partner": {p: OK for p in PRINCIPALS} | {"run": NO_TOOL, "foreign": "principal_not_active"},
    # A new memory (remember, save_memory, save_memories) in the key's project / folder.
    "save": {
        "owner": OK,
        "admin": OK,
        "member": OK,
        "ungranted": "project_write_denied",
        "removed": "project_write_denied",
        "auditor": WRITE_REFUSED,
        "folder_in": OK,
        "folder_out": "workspace_forbidden",
        "read_only": NO_SCOPE,
        "run": NO_TOOL,
        "foreign": OK,  # into its own enterprise: nothing of A is touched
    },
    # A change of an existing memory by id (update_memory, forget).
    "change": {
        "owner": OK,
        "admin": OK,
        "member": OK,
        "ungranted": H,
        "removed": H,
        "auditor": WRITE_REFUSED,
        "folder_in": OK,
        "folder_out": H,
        "read_only": NO_SCOPE,
        "run": NO_TOOL,
        "foreign": H,
    },
    # memory.train into task T (project alpha).
    "train": {
        "owner": OK,
        "admin": OK,
        "member": OK,
        "ungranted": H,
        "removed": H,
        "auditor": WRITE_REFUSED,
        "folder_in": "task_write_denied",
        "folder_out": "task_write_denied",
        "read_only": NO_SCOPE,
        "run": OK,
        "foreign": H,
    },
    # memory.ask about task T: the run reads the task's layers only; others need read on alpha.
    "task_read": {
        "owner": OK,
        "admin": OK,
        "member": OK,
        "ungranted": H,
        "removed": H,
        "auditor": OK,
        "folder_in": OK,
        "folder_out": OK,
        "read_only": OK,
        "run": OK,
        "foreign": H,
    },
}


@dataclass
class Matrix:
    world: Any
    secrets: dict[str, str]
    task: Task
    link: uuid.UUID
    notes_key: str  # dana's folder-bound key, to make targets in "notes"
    dana_key: str  # dana's project key, to make targets in "default"
    partner_event: str


def _raw_key(member, project, scopes=None, workspace=None) -> str:
    """A key made without the policy's check (as the CLI made them before it checked the project)."""
    secret = f"mnm_raw{uuid.uuid4().hex[:6]}_{uuid.uuid4().hex}"
    AccessKey.objects.create(
        enterprise_id=member.enterprise_id,
        member=member,
        project=project,
        workspace=workspace,
        scopes=scopes or ["memory:read", "memory:write", "tasks:read", "tasks:write", "partners:read"],
        prefix=secret[4:12],
        digest=access_key_digest(secret),
    )
    return secret


def _person(world, username: str, role: str, teams=()):
    user = User.objects.create_user(username=username, password="x")
    return member_add(
        enterprise=world.a.enterprise,
        user=user,
        org_role=role,
        teams=list(teams),
        main_project=world.a.project,
    )


def call(secret: str, name: str, arguments: dict[str, Any] | None = None, task_id: str | None = None):
    return tool_dispatch(secret=secret, name=name, arguments=arguments or {}, surface="rest", task_id=task_id)


def _save(secret: str, text: str) -> str:
    outcome = call(
        secret,
        "save_memory",
        {"summary": text, "content": text, "entities": [{"name": "Zephyrix", "type": "thing"}]},
    )
    assert outcome.ok, outcome.error and outcome.error.message
    assert outcome.output is not None
    return str(outcome.output["event_id"])


@pytest.fixture
def matrix(world) -> Matrix:
    a = world.a
    with tenant_context(enterprise_id=a.enterprise.pk, door="test"):
        owner = _person(world, "olga", OrgRole.OWNER)
        dana = _person(world, "dana", OrgRole.MEMBER, teams=[a.team])
        erin = _person(world, "erin", OrgRole.MEMBER)
        frank = _person(world, "frank", OrgRole.MEMBER, teams=[a.team])
        secrets = {
            "owner": access_key_create(member=owner, project=a.project)[1],
            "admin": world.alice.keys[a.enterprise.slug][1],
            "member": access_key_create(member=dana, project=a.project)[1],
            "ungranted": _raw_key(erin, a.project),
            "removed": access_key_create(member=frank, project=a.project)[1],
            "auditor": world.bob.keys[a.enterprise.slug][1],
            "read_only": access_key_create(
                member=dana, project=a.project, scopes=["memory:read", "tasks:read", "partners:read"]
            )[1],
        }
        notes_key = access_key_create(member=dana, project=a.project, workspace_name="notes")[1]
        secrets["folder_in"] = secrets["folder_out"] = notes_key
        # frank leaves the team that grants alpha: his key stays, his grant goes.
        TeamMembership.objects.filter(member=frank, team=a.team).delete()
        frank.user.groups.remove(a.team.group)
        task = Task.objects.create(
            enterprise=a.enterprise, project=a.project, team=a.team, name="Release check"
        )
        run_member = dana
        run_key = AccessKey.objects.get(digest=access_key_digest(secrets["member"]))
        secrets["run"] = task_run_start(task=task, member=run_member, key=run_key).run_key
    secrets["foreign"] = world.bob.keys[world.b.enterprise.slug][1]
    link = active_link(world)
    partner_event = _save(world.bob.keys[world.b.enterprise.slug][1], "Globex keeps Zephyrix staging on k8s")
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        from memory.models import Memory

        Memory.objects.filter(pk=partner_event).update(visibility="enterprise")
    return Matrix(
        world=world,
        secrets=secrets,
        task=task,
        link=link,
        notes_key=notes_key,
        dana_key=secrets["member"],
        partner_event=partner_event,
    )


def _target(m: Matrix, principal: str, word: str) -> str:
    """A fresh memory the principal aims at: in folder "notes", or in "default" for folder_out."""
    secret = m.dana_key if principal == "folder_out" else m.notes_key
    return _save(secret, f"{word} rollout decided for Zephyrix")


# Each tool: its effect, and how to call it at a target (memory id, its unique word, the matrix).
Case = tuple[str, Any]


def _read(args) -> Case:
    return ("read", args)


CASES: dict[str, Case] = {
    "search_memory": _read(lambda m, t, w: {"query": f"{w} rollout"}),
    "search": _read(lambda m, t, w: {"query": f"{w} rollout"}),
    "list_memory_timeline": _read(lambda m, t, w: {"limit": 200}),
    "find_memories_by_entity": _read(lambda m, t, w: {"name": "Zephyrix", "limit": 100}),
    "find_memory_connections": _read(lambda m, t, w: {"sentence": f"{w} rollout decided for Zephyrix"}),
    "query_memory_graph": _read(
        lambda m, t, w: {"query": 'START a = events(entity: "Zephyrix", k: 200) RETURN a LIMIT 200'}
    ),
    "query_memories_with_sql": _read(lambda m, t, w: {"sql": "SELECT id, workspace FROM agent.memories"}),
    "memory.ask": _read(lambda m, t, w: {"purpose": f"What was decided about the {w} rollout?", "limit": 50}),
    "list_memory_projects": ("projects", lambda m, t, w: {}),
    "describe_memory_schema": ("plain", lambda m, t, w: {}),
    "list_partner_links": ("plain", lambda m, t, w: {}),
    "search_partner_memory": (
        "partner",
        lambda m, t, w: {"sentence": "Where does Zephyrix staging run?", "link_id": str(m.link)},
    ),
    "find_partner_memory_connections": (
        "partner",
        lambda m, t, w: {"sentence": "Zephyrix staging", "link_id": str(m.link)},
    ),
    "get_partner_memory_content": (
        "partner",
        lambda m, t, w: {"event_id": m.partner_event, "link_id": str(m.link)},
    ),
    "query_partner_memory_graph": (
        "partner",
        lambda m, t, w: {
            "link_id": str(m.link),
            "query": 'START a = events(entity: "Zephyrix", k: 5) RETURN a',
        },
    ),
    "remember": (
        "save",
        lambda m, t, w: {"content": f"{w} noted", "workspace": "default" if t == "out" else "notes"},
    ),
    "save_memory": (
        "save",
        lambda m, t, w: {"summary": f"{w} saved", "content": f"{w} saved", "entities": []},
    ),
    "save_memories": (
        "save",
        lambda m, t, w: {
            "items": [{"content": f"{w} batched", "workspace": "default" if t == "out" else "notes"}]
        },
    ),
    "update_memory": ("change", lambda m, t, w: {"event_id": t, "add_tags": ["matrix/checked"]}),
    "forget": ("change", lambda m, t, w: {"id": t, "reason": "matrix"}),
    "memory.train": (
        "train",
        lambda m, t, w: {"body": f"{w} trained", "source": {"eventId": f"evt_{w}", "revision": "1"}},
    ),
}
TASK_TOOLS = {"memory.train"}
# Where one tool differs from its effect's row, and why.
OVERRIDES: dict[tuple[str, str], str] = {
    # save_memory names no folder: a folder-bound key's saves always land in its own folder.
    ("save_memory", "folder_out"): OK,
    # memory.ask is an enterprise tool: a run key may call it, and it reads the task's layers only
    # (the target is a project-layer note).
    ("memory.ask", "run"): H,
}


def test_every_tool_has_its_row():
    assert set(CASES) == {spec.name for spec in registry.all()}
    for effect, _ in CASES.values():
        assert set(EXPECTED[effect]) == set(PRINCIPALS)


def _outcome(effect: str, outcome, target: str, m: Matrix, principal: str) -> str:
    if outcome.error is not None:
        if outcome.error.code == "not_found":
            return H
        return outcome.error.code
    body = json.dumps(outcome.output)
    if effect == "partner":
        status = outcome.output.get("status", "ok")
        return OK if status == "ok" else outcome.output.get("reason", status)
    if effect == "projects":
        # Project beta of enterprise A (the foreign key's own enterprise has a beta too: not A's).
        listed = {p["project"] for p in outcome.output["projects"] if not p.get("read_only")}
        return OK if "beta" in listed and principal != "foreign" else H
    if effect in ("read", "task_read"):
        return OK if target in body else H
    return OK


@pytest.mark.parametrize("name", sorted(CASES))
def test_each_principal_gets_what_the_policy_says(matrix, name):
    effect, arguments = CASES[name]
    got, wanted = {}, {}
    for principal in PRINCIPALS:
        word = f"Matrix{uuid.uuid4().hex[:8]}"
        target = _target(matrix, principal, word) if effect in ("read", "change") else ""
        if principal == "folder_out" and effect == "save":
            target = "out"
        task_id = str(matrix.task.pk) if name in TASK_TOOLS else None
        outcome = call(matrix.secrets[principal], name, arguments(matrix, target, word), task_id=task_id)
        got[principal] = _outcome(effect, outcome, target, matrix, principal)
        wanted[principal] = OVERRIDES.get((name, principal), EXPECTED[effect][principal])
    assert got == wanted


def test_memory_ask_about_a_task_needs_read_on_its_project(matrix):
    wanted = EXPECTED["task_read"]
    got = {}
    for principal in PRINCIPALS:
        outcome = call(
            matrix.secrets[principal],
            "memory.ask",
            {"purpose": "How has this task handled flaky checks?"},
            task_id=str(matrix.task.pk),
        )
        got[principal] = (
            OK if outcome.ok else (H if outcome.error.code == "not_found" else outcome.error.code)
        )
    assert got == wanted


def test_a_folder_bound_ask_is_not_widened_by_a_project_filter(matrix):
    a = matrix.world.a
    word = f"Matrix{uuid.uuid4().hex[:8]}"
    outside = _save(matrix.dana_key, f"{word} rollout decided for Zephyrix")
    for project_id in (str(a.project.pk), str(a.other_project.pk), None):
        arguments = {"purpose": f"What was decided about the {word} rollout?"}
        if project_id:
            arguments["projectId"] = project_id
        outcome = call(matrix.notes_key, "memory.ask", arguments)
        assert outcome.ok and outside not in json.dumps(outcome.output)


def test_the_sql_tool_keeps_a_folder_bound_key_to_its_folder(matrix):
    _save(matrix.dana_key, "a memory in the default folder")
    _save(matrix.notes_key, "a memory in the notes folder")
    rows = call(
        matrix.notes_key,
        "query_memories_with_sql",
        {"sql": "SELECT workspace, count(*) FROM agent.memories GROUP BY 1"},
    ).output["rows"]
    assert [r[0] for r in rows] == ["notes"]
    everything = call(
        matrix.dana_key,
        "query_memories_with_sql",
        {"sql": "SELECT DISTINCT workspace FROM agent.memories ORDER BY 1"},
    ).output["rows"]
    assert [r[0] for r in everything] == ["default", "notes"]


def test_a_regrant_is_seen_at_the_next_call_without_a_new_key(matrix):
    a = matrix.world.a
    word = f"Matrix{uuid.uuid4().hex[:8]}"
    assert (
        call(matrix.secrets["removed"], "remember", {"content": f"{word} one"}).error.code
        == "project_write_denied"
    )
    with tenant_context(enterprise_id=a.enterprise.pk, door="test"):
        frank = AccessKey.objects.get(digest=access_key_digest(matrix.secrets["removed"])).member
        project_grant(project=a.project, member=frank, permissions=["view", "write"])
    assert call(matrix.secrets["removed"], "remember", {"content": f"{word} two"}).ok


def test_run_start_and_train_need_a_grant_on_the_tasks_project(client, matrix):
    for principal, status in (("ungranted", 404), ("removed", 404), ("folder_in", 403), ("member", 201)):
        response = client.post(
            f"/v1/tasks/{matrix.task.pk}/runs",
            HTTP_AUTHORIZATION=f"Bearer {matrix.secrets[principal]}",
        )
        assert response.status_code == status, (principal, response.content)


def test_manage_is_for_owners_and_admins_only(matrix):
    a = matrix.world.a
    with tenant_context(enterprise_id=a.enterprise.pk, door="test"):
        members = {
            p: AccessKey.objects.get(digest=access_key_digest(matrix.secrets[p])).member
            for p in ("owner", "admin", "member", "ungranted", "auditor")
        }
        got = {p: access.project_may_manage(member=m, project=a.project) for p, m in members.items()}
        assert got == {"owner": True, "admin": True, "member": False, "ungranted": False, "auditor": False}
        project_grant(project=a.project, member=members["member"], permissions=["manage"])
        assert access.project_may_manage(member=members["member"], project=a.project)


def test_the_cli_refuses_a_project_the_member_cannot_write_and_a_bad_expiry(matrix):
    from django.core.management import CommandError, call_command

    a = matrix.world.a
    with pytest.raises(CommandError, match="may not use project 'beta'"):
        call_command(
            "accesskey", "create", "--enterprise", a.enterprise.slug, "--project", "beta", "--user", "dana"
        )
    for days in ("-1", "0", "1000000000"):
        with pytest.raises(CommandError, match="--expires-days must be between 1 and 36500"):
            call_command("accesskey", "create", "--enterprise", a.enterprise.slug, "--expires-days", days)
    # A read-only key for a project the member may read is fine; the auditor's too.
    call_command(
        "accesskey",
        "create",
        "--enterprise",
        a.enterprise.slug,
        "--project",
        "alpha",
        "--user",
        "dana",
        "--scopes",
        "memory:read",
    )
