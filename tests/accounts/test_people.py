"""People administration (accounts.services.people, manage.py member, the REST routes): invite, sign up,
org role, teams, grants, job roles, deactivate; teams; tasks created and versioned over REST.

alice: admin of A. bob: auditor of A, admin of B. charlie: nobody's. dave (here): member of A."""

from __future__ import annotations

import io
import json
from datetime import timedelta

import pytest
from django.contrib.auth.models import User
from django.core.management import CommandError, call_command
from django.utils import timezone

from accounts import access
from accounts.models import AuditEvent, Invitation, Member, OrgRole, Role, Team, TeamMembership
from accounts.services.keys import access_key_create
from accounts.services.people import (
    INVITATION_EXPIRED,
    INVITATION_INVALID,
    INVITATION_USED,
    invitation_accept,
    invitation_token_read,
    member_deactivate,
    member_grant_project,
    member_invite,
    member_reactivate,
    member_revoke_project,
    member_set_job_roles,
    member_set_org_role,
    member_set_teams,
    team_add,
    team_delete,
    team_rename,
)
from core.dispatch import tool_dispatch
from core.errors import Conflict, Forbidden, NotFound
from core.tenancy import tenant_context
from memory.models import Task, TaskVersion
from tests.conftest import add_person
from tests.memory.helpers import ctx, tool

pytestmark = pytest.mark.django_db


def _actor(world, person="alice", slug="a"):
    return getattr(world, person).members[getattr(world, slug).enterprise.slug]


def _as(world, member):
    return tenant_context(enterprise_id=member.enterprise_id, member=member, door="test")


def _token(url: str) -> str:
    return url.rsplit("/", 1)[1]


def _rest(client, method, path, secret, body=None):
    kwargs = {"HTTP_AUTHORIZATION": f"Bearer {secret}"}
    if body is not None:
        kwargs.update(data=json.dumps(body), content_type="application/json")
    return getattr(client, method)(path, **kwargs)


@pytest.fixture
def dave(world):
    return add_person("dave", [(world.a, OrgRole.MEMBER)])


def _secret(person, world, slug="a"):
    return person.keys[getattr(world, slug).enterprise.slug][1]


# -- invitations -------------------------------------------------------------------------------------


def test_an_invitation_signs_up_once_with_its_role_and_teams(world, settings):
    settings.PUBLIC_URL = "https://mnemos.example"
    alice = _actor(world)
    with _as(world, alice):
        made = member_invite(
            actor=alice, enterprise=world.a.enterprise, org_role="auditor", teams=[world.a.team]
        )
    assert made.url.startswith("https://mnemos.example/console/join/")
    token = invitation_token_read(_token(made.url))
    with ctx(world):
        member = invitation_accept(token=token, username="erin", password="a long enough pass phrase")
        assert member.org_role == OrgRole.AUDITOR and list(member.teams.all()) == [world.a.team]
        assert member.user.groups.filter(pk=world.a.team.group_id).exists()
        invitation = Invitation.objects.get(pk=made.invitation.pk)
        assert invitation.accepted_member == member
        assert {"member.invite", "member.invitation_accept", "member.add"} <= set(
            AuditEvent.objects.values_list("action", flat=True)
        )
        with pytest.raises(Conflict, match=INVITATION_USED):
            invitation_accept(token=token, username="erin2", password="a long enough pass phrase")
    assert User.objects.filter(username="erin").exists()


def test_an_expired_or_forged_invitation_signs_no_one_up(world):
    alice = _actor(world)
    with _as(world, alice):
        made = member_invite(actor=alice, enterprise=world.a.enterprise)
        Invitation.objects.filter(pk=made.invitation.pk).update(
            expires_at=timezone.now() - timedelta(seconds=1)
        )
        with pytest.raises(Conflict, match="has expired"):
            invitation_accept(
                token=invitation_token_read(_token(made.url)), username="x", password="long pass phrase x"
            )
    assert "has expired" in INVITATION_EXPIRED
    with pytest.raises(NotFound, match=INVITATION_INVALID):
        invitation_token_read(_token(made.url)[:-2] + "xx")


def test_only_owners_and_admins_invite_and_only_owners_invite_owners(world, dave):
    bob_in_a = _actor(world, "bob")
    with _as(world, bob_in_a), pytest.raises(Forbidden) as refused:
        member_invite(actor=bob_in_a, enterprise=world.a.enterprise)
    assert refused.value.code == "people_manage_denied"
    alice = _actor(world)
    with _as(world, alice), pytest.raises(Forbidden) as refused:
        member_invite(actor=alice, enterprise=world.a.enterprise, org_role="owner")
    assert refused.value.code == "owner_only"


# -- changes -----------------------------------------------------------------------------------------


def test_org_role_teams_grants_and_job_roles(world, dave):
    alice, member = _actor(world), dave.members[world.a.enterprise.slug]
    with _as(world, alice):
        member_set_org_role(actor=alice, member=member, org_role="admin")
        assert Member.objects.get(pk=member.pk).org_role == "admin"
        member_set_org_role(actor=alice, member=member, org_role="member")
        assert access.project_may_write(member=member, project=world.a.project)  # through Platform
        member_set_teams(actor=alice, member=member, teams=[])
        assert not TeamMembership.objects.filter(member=member).exists()
        assert not access.project_may_write(member=member, project=world.a.project)
        member_grant_project(actor=alice, member=member, project=world.a.other_project, permissions=["view"])
        assert access.project_may_read(member=member, project=world.a.other_project)
        assert not access.project_may_write(member=member, project=world.a.other_project)
        member_revoke_project(actor=alice, member=member, project=world.a.other_project, permissions=["view"])
        assert not access.project_may_read(member=member, project=world.a.other_project)
        role = Role.objects.create(enterprise=world.a.enterprise, slug="oncall", name="On call")
        member_set_job_roles(actor=alice, member=member, roles=[role])
        assert list(member.roles.all()) == [role]
        actions = list(AuditEvent.objects.filter(target_id=str(member.pk)).values_list("action", flat=True))
    assert {"member.org_role", "member.teams", "member.job_roles"} <= set(actions)


def test_a_non_admin_is_refused(world, dave):
    bob_in_a, member = _actor(world, "bob"), dave.members[world.a.enterprise.slug]
    with _as(world, bob_in_a):
        for change in (
            lambda: member_set_org_role(actor=bob_in_a, member=member, org_role="admin"),
            lambda: member_set_teams(actor=bob_in_a, member=member, teams=[]),
            lambda: member_deactivate(actor=bob_in_a, member=member),
            lambda: team_add(actor=bob_in_a, enterprise=world.a.enterprise, slug="x", name="X"),
        ):
            with pytest.raises(Forbidden, match="only the enterprise's owners and admins manage people"):
                change()


def test_the_last_owner_is_protected_and_no_one_escalates_themselves(world, dave):
    alice, member = _actor(world), dave.members[world.a.enterprise.slug]
    with ctx(world):
        owner = Member.objects.get(pk=member.pk)
        owner.org_role = OrgRole.OWNER
        owner.save(update_fields=["org_role"])
    with _as(world, owner):
        with pytest.raises(Forbidden, match=access.LAST_OWNER):
            member_set_org_role(actor=owner, member=owner, org_role="admin")
        with pytest.raises(Forbidden, match=access.NO_SELF_DEACTIVATION):
            member_deactivate(actor=owner, member=owner)
        member_set_org_role(actor=owner, member=alice, org_role="owner")  # now two owners
        member_set_org_role(actor=owner, member=owner, org_role="admin")  # the other stays
    with _as(world, alice):
        assert Member.objects.get(pk=alice.pk).org_role == "owner"
    with _as(world, owner):
        with pytest.raises(Forbidden, match=access.OWNERS_ONLY):
            member_set_org_role(actor=owner, member=owner, org_role="owner")
    with ctx(world), pytest.raises(Forbidden, match=access.LAST_OWNER):
        member_deactivate(actor=None, member=Member.objects.get(pk=alice.pk))


def test_teams_are_created_renamed_and_deleted(world, dave):
    alice = _actor(world)
    with _as(world, alice):
        team = team_add(actor=alice, enterprise=world.a.enterprise, slug="data", name="Data")
        with pytest.raises(Conflict):
            team_add(actor=alice, enterprise=world.a.enterprise, slug="data", name="Again")
        team_rename(actor=alice, team=team, name="Data science")
        assert Team.objects.get(pk=team.pk).name == "Data science"
        member_set_teams(actor=alice, member=dave.members[world.a.enterprise.slug], teams=[team])
        team_delete(actor=alice, team=team)
        assert not Team.objects.filter(pk=team.pk).exists()
        assert not TeamMembership.objects.filter(team_id=team.pk).exists()


# -- deactivation: at once, on every door ------------------------------------------------------------


def test_a_deactivated_members_keys_stop_at_once(client, world, dave):
    alice, member = _actor(world), dave.members[world.a.enterprise.slug]
    secret = _secret(dave, world)
    client.force_login(dave.user)
    assert _rest(client, "get", "/v1/whoami", secret).status_code == 200
    assert tool(client, secret, "list_memory_projects").status_code == 200
    assert client.get("/console/keys/").status_code == 200
    with _as(world, alice):
        member_deactivate(actor=alice, member=member)
    refused = _rest(client, "get", "/v1/whoami", secret)
    assert refused.status_code == 401
    assert refused.json() == {
        "error": "this access key's member was deactivated in this organization",
        "code": "member_deactivated",
    }
    over_rest = tool(client, secret, "list_memory_projects")
    assert over_rest.status_code == 403 and over_rest.json()["code"] == "membership_inactive"
    assert tool(client, secret, "remember", {"content": "n"}).json()["error"] == (
        "membership may not write in this organization"
    )
    over_mcp = tool_dispatch(secret=secret, name="list_memory_projects", arguments={}, surface="mcp")
    assert over_mcp.error is not None and over_mcp.error.code == "membership_inactive"
    page = client.get("/console/keys/")  # the session's door reads the membership on every request
    assert page.status_code == 404 and b"There is nothing here for this account." in page.content
    with _as(world, alice):
        member_reactivate(actor=alice, member=member)
    assert _rest(client, "get", "/v1/whoami", secret).status_code == 200


# -- the command -------------------------------------------------------------------------------------


def _command(*args):
    out = io.StringIO()
    call_command("member", *args, stdout=out)
    return out.getvalue()


def test_the_command(world, dave, settings):
    settings.PUBLIC_URL = "https://mnemos.example"
    slug = world.a.enterprise.slug
    added = _command("add", "--enterprise", slug, "frank", "--role", "member", "--teams", "platform")
    assert added.startswith(f"added frank to {slug} as member\npassword (shown once): ")
    invited = _command("invite", "--enterprise", slug, "--role", "auditor", "--email", "g@example.com")
    assert invited.splitlines()[0].startswith(f"invited g@example.com to {slug} as auditor, until ")
    assert invited.splitlines()[1].startswith("https://mnemos.example/console/join/")
    assert _command("role", "--enterprise", slug, "dave", "admin") == "dave: org role member -> admin\n"
    assert _command("teams", "--enterprise", slug, "dave", "") == "dave: teams (none)\n"
    assert _command("teams", "--enterprise", slug, "dave", "platform") == "dave: teams platform\n"
    assert _command(
        "grant", "--enterprise", slug, "dave", "--project", "beta", "--permissions", "view,write"
    ) == ("dave: granted view, write on beta\n")
    assert _command(
        "revoke", "--enterprise", slug, "dave", "--project", "beta", "--permissions", "write"
    ) == ("dave: revoked write on beta\n")
    assert _command("deactivate", "--enterprise", slug, "dave") == (
        f"deactivated dave in {slug}: its access keys and sessions are refused\n"
    )
    assert _command("reactivate", "--enterprise", slug, "dave") == f"reactivated dave in {slug}\n"
    with pytest.raises(CommandError, match="no member 'charlie'"):
        _command("deactivate", "--enterprise", slug, "charlie")
    with pytest.raises(CommandError, match="no enterprise"):
        _command("deactivate", "--enterprise", "nope", "dave")
    _command("role", "--enterprise", slug, "dave", "owner")
    with pytest.raises(CommandError, match="last active owner"):
        _command("deactivate", "--enterprise", slug, "dave")


# -- REST --------------------------------------------------------------------------------------------


def test_rest_members_invite_and_change(client, world, dave):
    secret = _secret(world.alice, world)
    listed = _rest(client, "get", "/v1/members", secret)
    assert listed.status_code == 200
    assert [m["username"] for m in listed.json()] == ["alice", "bob", "dave"]
    invited = _rest(client, "post", "/v1/members", secret, {"org_role": "member", "teams": [world.a.team.pk]})
    assert invited.status_code == 201 and "/console/join/" in invited.json()["url"]
    assert _rest(client, "post", "/v1/members", secret, {"teams": [world.b.team.pk]}).status_code == 404
    member_id = dave.members[world.a.enterprise.slug].pk
    changed = _rest(client, "patch", f"/v1/members/{member_id}", secret, {"org_role": "auditor", "teams": []})
    assert changed.status_code == 200
    assert changed.json()["org_role"] == "auditor" and changed.json()["teams"] == []
    off = _rest(client, "patch", f"/v1/members/{member_id}", secret, {"active": False})
    assert off.json()["active"] is False
    assert _rest(client, "get", "/v1/whoami", _secret(dave, world)).status_code == 401
    grants = _rest(
        client,
        "post",
        f"/v1/projects/{world.a.other_project.pk}/grants",
        secret,
        {"member": member_id, "permissions": ["view"]},
    )
    assert grants.status_code == 200
    assert grants.json() == [{"kind": "member", "id": member_id, "name": "dave", "permissions": ["view"]}]
    teams = _rest(client, "post", "/v1/teams", secret, {"slug": "data", "name": "Data"})
    assert teams.status_code == 201
    team_id = teams.json()["id"]
    assert _rest(client, "patch", f"/v1/teams/{team_id}", secret, {"name": "Data2"}).json()["name"] == "Data2"
    assert _rest(client, "post", "/v1/teams", secret, {"slug": "data", "name": "X"}).status_code == 409
    assert _rest(client, "delete", f"/v1/teams/{team_id}", secret).status_code == 204


def test_rest_another_enterprise_gets_not_found_and_a_non_admin_is_refused(client, world, dave):
    member_id = dave.members[world.a.enterprise.slug].pk
    bob_in_b = _secret(world.bob, world, "b")
    assert (
        _rest(client, "patch", f"/v1/members/{member_id}", bob_in_b, {"org_role": "admin"}).status_code == 404
    )
    assert _rest(client, "get", f"/v1/members/{member_id}", bob_in_b).status_code == 404
    assert _rest(client, "delete", f"/v1/teams/{world.a.team.pk}", bob_in_b).status_code == 404
    bob_in_a = _secret(world.bob, world)  # an auditor: reads people, changes none
    assert _rest(client, "get", "/v1/members", bob_in_a).status_code == 200
    refused = _rest(client, "patch", f"/v1/members/{member_id}", bob_in_a, {"org_role": "admin"})
    assert refused.status_code == 403
    assert refused.json()["error"] == "only the enterprise's owners and admins manage people and teams"
    dave_secret = _secret(dave, world)
    assert _rest(client, "get", "/v1/members", dave_secret).status_code == 403
    alice = _actor(world)
    with _as(world, alice):
        _, narrow = access_key_create(member=alice, project=world.a.project, scopes=["memory:read"])
    no_scope = _rest(client, "get", "/v1/members", narrow)
    assert no_scope.status_code == 403 and no_scope.json()["code"] == "missing_scope"
    bad = _rest(
        client, "patch", f"/v1/members/{member_id}", _secret(world.alice, world), {"org_role": "king"}
    )
    assert bad.status_code == 400


def test_rest_tasks_created_and_versioned(client, world, dave):
    secret = _secret(world.alice, world)
    created = _rest(
        client,
        "post",
        "/v1/tasks",
        secret,
        {"project_id": str(world.a.project.pk), "name": "Release check", "goal": "check releases"},
    )
    assert created.status_code == 201, created.content
    task = created.json()
    assert task["version"] == 1 and task["team"] == "platform" and task["versions"][0]["grants"] == []
    edited = _rest(
        client,
        "patch",
        f"/v1/tasks/{task['id']}",
        secret,
        {"goal": "check every release", "grants": [{"layer": "team", "prefix": "ci-"}]},
    )
    assert edited.status_code == 200
    assert edited.json()["version"] == 2 and edited.json()["goal"] == "check every release"
    assert edited.json()["versions"][0]["grants"] == [{"layer": "team", "prefix": "ci-"}]
    again = _rest(client, "patch", f"/v1/tasks/{task['id']}", secret, {"name": "Release gate"})
    assert again.json()["version"] == 3 and again.json()["versions"][0]["grants"] == [
        {"layer": "team", "prefix": "ci-"}
    ]
    reserved = _rest(
        client,
        "patch",
        f"/v1/tasks/{task['id']}",
        secret,
        {"grants": [{"layer": "team", "prefix": "team:x"}]},
    )
    assert reserved.status_code == 422
    assert reserved.json()["error"] == "team: and gate: event ids are reserved and cannot be granted"
    assert [t["id"] for t in _rest(client, "get", "/v1/tasks", secret).json()] == [task["id"]]
    # dave writes alpha through Platform but does not manage it: he reads the task, may not change it.
    dave_secret = _secret(dave, world)
    assert _rest(client, "get", f"/v1/tasks/{task['id']}", dave_secret).status_code == 200
    refused = _rest(client, "patch", f"/v1/tasks/{task['id']}", dave_secret, {"name": "mine"})
    assert refused.status_code == 403 and refused.json()["code"] == "task_change_denied"
    bob_in_b = _secret(world.bob, world, "b")
    assert _rest(client, "get", f"/v1/tasks/{task['id']}", bob_in_b).status_code == 404
    assert _rest(client, "patch", f"/v1/tasks/{task['id']}", bob_in_b, {"name": "x"}).status_code == 404
    foreign = _rest(
        client, "post", "/v1/tasks", bob_in_b, {"project_id": str(world.a.project.pk), "name": "x"}
    )
    assert foreign.status_code == 404
    with ctx(world):
        assert TaskVersion.objects.filter(task_id=task["id"]).count() == 3
        assert Task.objects.get(pk=task["id"]).name == "Release gate"
        assert AuditEvent.objects.filter(action="task.version", target_id=task["id"]).count() == 2
