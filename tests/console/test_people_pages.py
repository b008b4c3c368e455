"""The console's people pages: members (invite, the link once, change, deactivate), sign-up, teams, tasks.

alice: admin of A. dave: member of A (in Platform). bob: auditor of A, admin of B. charlie: nobody's."""

from __future__ import annotations

import re

import pytest

from accounts.models import Member, Team
from console.decorators import SESSION_ENTERPRISE
from memory.models import Task, TaskVersion
from tests.memory.helpers import ctx

pytestmark = pytest.mark.django_db


def _dave_id(console) -> int:
    return console.dave.members[console.world.a.enterprise.slug].pk


def _invite(client, console, **fields) -> str:
    client.force_login(console.world.alice.user)
    response = client.post("/console/members/", {"org_role": "member", "days": 7, **fields})
    assert response.status_code == 200
    text = response.content.decode()
    assert "Invitation created: copy the link now" in text
    match = re.search(r'id="invite-link">([^<]+)<', text)
    assert match is not None
    return match.group(1).split("/console/join/", 1)[1]


def test_invite_sign_up_once_and_land_with_the_role(client, console):
    token = _invite(client, console, org_role="auditor", teams=[str(console.world.a.team.pk)])
    assert "Invitation created" not in client.get("/console/members/").content.decode()  # shown once
    client.logout()
    page = client.get(f"/console/join/{token}")
    assert page.status_code == 200 and "You are invited as <strong>auditor</strong>" in page.content.decode()
    differ = client.post(
        f"/console/join/{token}", {"username": "erin", "password": "pw-long-enough-1", "password_again": "x"}
    )
    assert differ.status_code == 400 and "The two passwords differ." in differ.content.decode()
    joined = client.post(
        f"/console/join/{token}",
        {"username": "erin", "password": "pw-long-enough-1", "password_again": "pw-long-enough-1"},
    )
    assert joined.status_code == 302 and joined.url == "/console/"
    home = client.get("/console/")
    assert home.status_code == 200 and "erin" in home.content.decode() and "Auditor" in home.content.decode()
    assert client.session[SESSION_ENTERPRISE] == str(console.world.a.enterprise.pk)
    with ctx(console.world):
        erin = Member.objects.get(user__username="erin")
        assert erin.org_role == "auditor" and list(erin.teams.all()) == [console.world.a.team]
    client.logout()
    used = client.get(f"/console/join/{token}")
    assert used.status_code == 409
    assert "This invitation link has already been used." in used.content.decode()
    forged = client.get(f"/console/join/{token[:-3]}abc")
    assert forged.status_code == 404 and "This invitation link is not valid." in forged.content.decode()


def test_change_and_deactivate_a_member(client, console):
    client.force_login(console.world.alice.user)
    url = f"/console/members/{_dave_id(console)}/"
    changed = client.post(url, {"action": "change", "org_role": "auditor", "teams": []})
    assert changed.status_code == 302
    deactivated = client.post(url, {"action": "deactivate"})
    assert deactivated.status_code == 302
    page = client.get(url).content.decode()
    assert "deactivated" in page and "Reactivate dave" in page
    with ctx(console.world):
        dave = Member.objects.get(pk=_dave_id(console))
        assert (dave.org_role, dave.is_active, dave.teams.count()) == ("auditor", False, 0)
    alice_id = console.world.alice.members[console.world.a.enterprise.slug].pk
    refused = client.post(f"/console/members/{alice_id}/", {"action": "deactivate"})
    assert refused.status_code == 403 and "a member may not deactivate themselves" in refused.content.decode()


def test_who_may_see_and_change_people(client, console):
    url = f"/console/members/{_dave_id(console)}/"
    client.force_login(console.dave.user)
    assert client.post("/console/members/", {"org_role": "admin", "days": 7}).status_code == 403
    client.force_login(console.world.bob.user)  # an auditor: sees, changes nothing
    assert client.get(url).status_code == 200
    assert client.post(url, {"action": "deactivate"}).status_code == 403
    session = client.session
    session[SESSION_ENTERPRISE] = str(console.world.b.enterprise.pk)
    session.save()
    assert client.get(url).status_code == 404  # bob, in B: A's member is not there


def test_teams_page_creates_renames_and_deletes(client, console):
    client.force_login(console.world.alice.user)
    assert (
        client.post("/console/teams/", {"action": "create", "slug": "data", "name": "Data"}).status_code
        == 302
    )
    taken = client.post("/console/teams/", {"action": "create", "slug": "data", "name": "Data"})
    assert taken.status_code == 409 and "a team with this slug already exists" in taken.content.decode()
    with ctx(console.world):
        team = Team.objects.get(slug="data")
    assert (
        client.post("/console/teams/", {"action": "rename", "team": team.pk, "name": "Data sci"}).status_code
        == 302
    )
    assert "Data sci" in client.get("/console/teams/").content.decode()
    assert client.post("/console/teams/", {"action": "delete", "team": team.pk}).status_code == 302
    with ctx(console.world):
        assert not Team.objects.filter(slug="data").exists()


def test_tasks_page_creates_and_versions(client, console):
    client.force_login(console.world.alice.user)
    created = client.post(
        "/console/tasks/",
        {
            "project": str(console.world.a.project.pk),
            "name": "Release check",
            "goal": "",
            "grants": "team ci-",
        },
    )
    assert created.status_code == 302
    with ctx(console.world):
        task = Task.objects.get(name="Release check")
    edited = client.post(
        f"/console/tasks/{task.pk}/", {"name": "Release gate", "goal": "gate", "grants": "enterprise rel-"}
    )
    assert edited.status_code == 302
    page = client.get(f"/console/tasks/{task.pk}/").content.decode()
    assert "Release gate" in page and "enterprise: rel-" in page and "team: ci-" in page
    reserved = client.post(f"/console/tasks/{task.pk}/", {"name": "x", "grants": "team team:x"})
    assert reserved.status_code == 422
    assert "team: and gate: event ids are reserved and cannot be granted" in reserved.content.decode()
    with ctx(console.world):
        assert TaskVersion.objects.filter(task=task).count() == 2
    client.force_login(console.dave.user)  # writes alpha through Platform, does not manage it
    assert client.get(f"/console/tasks/{task.pk}/").status_code == 200
    refused = client.post(f"/console/tasks/{task.pk}/", {"name": "mine"})
    assert refused.status_code == 403
