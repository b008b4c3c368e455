"""The auditors' admin: read-only, on the server, and scoped to the auditor's enterprise."""

from __future__ import annotations

import pytest
from django.contrib.auth.models import User

from accounts.models import AuditEvent, Project
from core.tenancy import tenant_context

MODELS = [
    "enterprise",
    "team",
    "role",
    "project",
    "workspace",
    "member",
    "accesskey",
    "auditevent",
    "jobrun",
    "plan",
]


@pytest.fixture
def bob_client(client, world):
    client.force_login(world.bob.user)
    return client


def test_auditor_sees_only_their_enterprise(bob_client, world):
    page = bob_client.get("/admin/accounts/enterprise/")
    assert page.status_code == 200
    text = page.content.decode()
    assert world.a.enterprise.slug in text
    assert world.b.enterprise.slug not in text
    projects = bob_client.get("/admin/accounts/project/").content.decode()
    assert f"/admin/accounts/project/{world.a.project.pk}/change/" in projects
    assert str(world.b.project.pk) not in projects


@pytest.mark.parametrize("model", MODELS)
def test_every_model_lists_for_the_auditor(bob_client, model):
    assert bob_client.get(f"/admin/accounts/{model}/").status_code == 200


def test_auditor_sees_audit_events_of_their_enterprise_only(bob_client, world):
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        foreign = AuditEvent.objects.order_by("id").first()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        own = AuditEvent.objects.order_by("id").first()
    assert bob_client.get(f"/admin/accounts/auditevent/{own.pk}/change/").status_code == 200
    # Another enterprise's row is "not there" (the admin redirects with "doesn't exist").
    response = bob_client.get(f"/admin/accounts/auditevent/{foreign.pk}/change/")
    assert response.status_code == 302
    assert response.url == "/admin/"


def test_admin_never_shows_key_digests(bob_client, world):
    key, _ = world.alice.keys[world.a.enterprise.slug]
    page = bob_client.get(f"/admin/accounts/accesskey/{key.pk}/change/").content.decode()
    assert key.prefix in page
    assert key.digest not in page


def test_nothing_can_be_added_changed_deleted_or_acted_on(bob_client, world):
    pk = world.a.project.pk
    assert bob_client.get("/admin/accounts/project/add/").status_code == 403
    assert bob_client.post("/admin/accounts/project/add/", {"slug": "x", "name": "x"}).status_code == 403
    assert (
        bob_client.post(
            f"/admin/accounts/project/{pk}/change/", {"slug": "hacked", "name": "hacked"}
        ).status_code
        == 403
    )
    assert bob_client.get(f"/admin/accounts/project/{pk}/delete/").status_code == 403
    assert bob_client.post(f"/admin/accounts/project/{pk}/delete/", {"post": "yes"}).status_code == 403
    changelist = bob_client.post(
        "/admin/accounts/project/", {"action": "delete_selected", "_selected_action": [str(pk)]}
    )
    assert changelist.status_code in (200, 302)
    assert 'name="action"' not in bob_client.get("/admin/accounts/project/").content.decode()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        project = Project.objects.get(pk=pk)
    assert project.slug == "alpha"


def test_superuser_sees_every_enterprise(client, world):
    admin = User.objects.create_superuser("root", "root@example.com", "pw")
    client.force_login(admin)
    text = client.get("/admin/accounts/enterprise/").content.decode()
    assert world.a.enterprise.slug in text and world.b.enterprise.slug in text
    assert client.get("/admin/accounts/project/add/").status_code == 403
    keys = client.get("/admin/accounts/accesskey/").content.decode()
    key_a, _ = world.alice.keys[world.a.enterprise.slug]
    key_b, _ = world.bob.keys[world.b.enterprise.slug]
    assert f"/admin/accounts/accesskey/{key_a.pk}/change/" in keys
    assert f"/admin/accounts/accesskey/{key_b.pk}/change/" in keys


@pytest.mark.parametrize("person", ["alice", "charlie"])
def test_non_auditors_are_sent_to_sign_in(client, world, person):
    client.force_login(getattr(world, person).user)
    response = client.get("/admin/accounts/project/")
    assert response.status_code == 302
    assert response.url.startswith("/admin/login/")


def test_anonymous_is_sent_to_sign_in(client, world):
    response = client.get("/admin/")
    assert response.status_code == 302 and response.url.startswith("/admin/login/")


def test_auditor_can_sign_in_with_a_password(client, world):
    response = client.post(
        "/admin/login/?next=/admin/",
        {"username": world.bob.user.username, "password": world.bob.password, "next": "/admin/"},
    )
    assert response.status_code == 302 and response.url == "/admin/"
    assert client.get("/admin/").status_code == 200


def test_a_non_auditor_cannot_sign_in(client, world):
    response = client.post(
        "/admin/login/", {"username": world.alice.user.username, "password": world.alice.password}
    )
    assert response.status_code == 200
    assert "This sign-in is for auditors" in response.content.decode()
