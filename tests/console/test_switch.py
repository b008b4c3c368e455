"""The click-to-switch page that a switch_link opens."""

from __future__ import annotations

import json

import pytest
from django.core import signing

from accounts.models import AccessKey, AuditEvent, Member
from accounts.services.keys import access_key_create
from accounts.services.targets import project_publish
from core.tenancy import tenant_context


def _links(client, secret):
    response = client.post(
        "/v1/tools/list_memory_projects",
        data="{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    return {
        p["project"]: p["switch_url"].split("http://127.0.0.1:8000", 1)[-1]
        for p in response.json()["projects"]
    }


def _member(world, person="alice"):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        return Member.objects.select_related("main_project").get(
            pk=getattr(world, person).members[world.a.enterprise.slug].pk
        )


@pytest.fixture
def alice_links(client, world):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    return _links(client, secret)


def test_sign_in_is_required(client, world, alice_links):
    response = client.get(alice_links["beta"])
    assert response.status_code == 302
    assert response.url.startswith("/console/login/?next=/console/switch/")


def test_the_page_shows_what_changes_and_the_click_switches_main(client, world, alice_links):
    client.force_login(world.alice.user)
    page = client.get(alice_links["beta"])
    assert page.status_code == 200
    text = page.content.decode()
    assert "Switch to Beta?" in text and "Main target" in text and "Switch to beta</button>" in text
    # Looking changes nothing.
    assert _member(world).main_project.slug == "alpha"
    done = client.post(alice_links["beta"])
    assert (
        done.status_code == 200 and "Your Main target is now <strong>beta</strong>" in done.content.decode()
    )
    member = _member(world)
    assert member.main_project.slug == "beta"
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        event = AuditEvent.objects.get(action="member.main_switch", target_id=str(member.pk))
    assert event.door == "console" and event.actor_member_id == member.pk
    assert event.details["to"] == str(world.a.other_project.pk)


def test_a_folder_bound_connection_is_retargeted(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        key, secret = access_key_create(member=member, project=world.a.project, workspace_name="notes")
    links = _links(client, secret)
    client.force_login(world.alice.user)
    assert "This folder-bound connection" in client.get(links["beta"]).content.decode()
    client.post(links["beta"])
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        key = AccessKey.objects.select_related("project", "workspace").get(pk=key.pk)
        assert (key.project.slug, key.workspace.name, key.workspace.project_id) == (
            "beta",
            "notes",
            world.a.other_project.pk,
        )
        assert AuditEvent.objects.filter(action="connection.switch", target_id=str(key.pk)).count() == 1
    assert _member(world).main_project.slug == "alpha"


def test_another_user_gets_not_found(client, world, alice_links):
    client.force_login(world.bob.user)  # bob is a member of A too, but the link is alice's
    response = client.get(alice_links["beta"])
    assert response.status_code == 404
    assert client.post(alice_links["beta"]).status_code == 404
    client.force_login(world.charlie.user)
    assert client.get(alice_links["beta"]).status_code == 404
    assert _member(world).main_project.slug == "alpha"


def test_a_tampered_link_is_not_found(client, world, alice_links):
    client.force_login(world.alice.user)
    assert client.get(alice_links["beta"][:-3] + "xyz").status_code == 404


def test_an_expired_link_says_so(client, world, alice_links, monkeypatch):
    client.force_login(world.alice.user)
    future = signing.time.time() + 2 * 24 * 3600
    monkeypatch.setattr(signing.time, "time", lambda: future)
    response = client.get(alice_links["beta"])
    assert response.status_code == 410
    assert "This switch link has expired" in response.content.decode()
    assert client.post(alice_links["beta"]).status_code == 410
    assert _member(world).main_project.slug == "alpha"


def test_an_auditor_cannot_switch_to_a_project(client, world):
    _, secret = world.bob.keys[world.a.enterprise.slug]
    links = _links(client, secret)
    client.force_login(world.bob.user)
    page = client.get(links["alpha"])
    assert (
        "may not save to it" in page.content.decode()
        and "Switch to alpha</button>" not in page.content.decode()
    )
    assert client.post(links["alpha"]).status_code == 403


def test_a_public_target_is_read_only(client, world):
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        project_publish(project=world.b.other_project)
    _, secret = world.alice.keys[world.a.enterprise.slug]
    response = client.post(
        "/v1/tools/list_memory_projects",
        data=json.dumps({}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    public = next(p for p in response.json()["projects"] if p.get("read_only"))
    client.force_login(world.alice.user)
    url = public["switch_url"].split("http://127.0.0.1:8000", 1)[-1]
    page = client.get(url)
    assert page.status_code == 200 and "is read-only" in page.content.decode()
    assert client.post(url).status_code == 403
    assert _member(world).main_project.slug == "alpha"


def test_the_tools_page_lists_the_registry(client, world):
    from django.utils.html import escape

    from core.registry import registry

    client.force_login(world.alice.user)
    page = client.get("/console/tools/")
    assert page.status_code == 200
    text = page.content.decode()
    for spec in registry.all():
        assert spec.name in text and escape(spec.summary) in text
    client.logout()
    assert client.get("/console/tools/").status_code == 302
    client.force_login(world.charlie.user)
    assert client.get("/console/tools/").status_code == 404


def test_switching_while_main_is_paused_turns_it_back_on(client, world, alice_links):
    client.force_login(world.alice.user)
    client.post("/console/main/", {"paused": "1"})
    page = client.get(alice_links["beta"]).content.decode()
    assert "alpha (paused)" in page and "(Main turned back on)" in page
    client.post(alice_links["beta"])
    member = _member(world)
    assert (member.main_project.slug, member.main_paused) == ("beta", False)


# role -> (status, queries beyond the door's): each opens their own link to alpha, the outsider alice's.
# A member costs the object-permission check (may it save?); an auditor never may, asked of no table.
SWITCH_PAGE = {"admin": (200, 4), "member": (200, 6), "auditor": (200, 4), "outsider": (404, 0)}


@pytest.mark.parametrize("role", list(SWITCH_PAGE))
def test_the_switch_page_query_counts(client, console, django_assert_num_queries, role):
    from tests.console.test_pages import _door_queries

    person = console.person(role)
    owner = console.world.alice if role == "outsider" else person
    url = _links(client, owner.keys[console.world.a.enterprise.slug][1])["alpha"]
    status, queries = SWITCH_PAGE[role]
    client.force_login(person.user)
    door = _door_queries(client)
    client.get(url)
    with django_assert_num_queries(door + queries):
        assert client.get(url).status_code == status
