"""Access-key authentication on the REST door, and the accesskey command."""

from __future__ import annotations

import io
from datetime import timedelta

import pytest
from django.core.management import call_command
from django.db import connection
from django.utils import timezone

from accounts.models import AccessKey, AuditEvent
from accounts.services.keys import access_key_create, access_key_digest, access_key_revoke
from core.errors import InvalidInput
from core.tenancy import tenant_context


def _get(client, path, secret=None, **headers):
    if secret is not None:
        headers["HTTP_AUTHORIZATION"] = f"Bearer {secret}"
    return client.get(path, **headers)


def test_a_valid_key_is_its_member_in_its_enterprise(client, world):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    response = _get(client, "/v1/whoami", secret)
    assert response.status_code == 200
    body = response.json()
    assert body["enterprise"] == world.a.enterprise.slug
    assert body["member"] == world.alice.user.username
    assert body["project"] == "alpha"
    assert body["tenant_id"] == str(world.a.enterprise.pk)


@pytest.mark.parametrize(
    "header, code, text",
    [
        ({}, "missing_key", "missing access key: send it as 'Authorization: Bearer <key>'"),
        (
            {"HTTP_AUTHORIZATION": "Basic abc"},
            "missing_key",
            "missing access key: send it as 'Authorization: Bearer <key>'",
        ),
        ({"HTTP_AUTHORIZATION": "Bearer mnm_00000000_not-a-key"}, "invalid_key", "invalid access key"),
    ],
)
def test_missing_or_unknown_key_is_401(client, world, header, code, text):
    response = client.get("/v1/whoami", **header)
    assert response.status_code == 401
    assert response.json() == {"error": text, "code": code}


def test_revoked_key_is_401(client, world):
    key, secret = world.alice.keys[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        access_key_revoke(key=key)
        assert AuditEvent.objects.filter(action="access_key.revoke", target_id=str(key.pk)).exists()
    response = _get(client, "/v1/whoami", secret)
    assert response.status_code == 401
    assert response.json() == {"error": "access key was revoked", "code": "key_revoked"}


def test_expired_key_is_401(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(
            member=member, project=world.a.project, expires_at=timezone.now() - timedelta(seconds=1)
        )
    response = _get(client, "/v1/whoami", secret)
    assert response.status_code == 401
    assert response.json() == {"error": "access key has expired", "code": "key_expired"}


def test_key_without_the_scope_is_403(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(member=member, project=world.a.project, scopes=["memory:read"])
    assert _get(client, "/v1/whoami", secret).status_code == 200
    response = _get(client, "/v1/audit-events", secret)
    assert response.status_code == 403
    assert response.json() == {
        "error": "this access key lacks the 'admin' scope",
        "code": "missing_scope",
        "scope": "admin",
    }


def test_another_tenants_object_is_not_found_like_a_missing_one(client, world):
    _, secret_a = world.alice.keys[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        foreign_id = AuditEvent.objects.order_by("id").values_list("id", flat=True).first()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        own_id = AuditEvent.objects.order_by("id").values_list("id", flat=True).first()
    assert _get(client, f"/v1/audit-events/{own_id}", secret_a).status_code == 200
    foreign = _get(client, f"/v1/audit-events/{foreign_id}", secret_a)
    missing = _get(client, "/v1/audit-events/999999999", secret_a)
    assert foreign.status_code == missing.status_code == 404
    assert foreign.json()["code"] == missing.json()["code"] == "not_found"
    assert foreign.json()["error"] == f"audit event {foreign_id} not found"


def test_audit_list_is_only_this_enterprise(client, world):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    response = _get(client, "/v1/audit-events?limit=500", secret)
    assert response.status_code == 200
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        expected = set(AuditEvent.objects.values_list("id", flat=True))
    assert {e["id"] for e in response.json()} == expected


def test_secret_is_stored_only_as_digest(world):
    key, secret = world.alice.keys[world.a.enterprise.slug]
    assert key.digest == access_key_digest(secret)
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"), connection.cursor() as cursor:
        cursor.execute("SELECT row_to_json(k)::text FROM accounts_accesskey k")
        rows = " ".join(r[0] for r in cursor.fetchall())
    assert secret not in rows
    # the random part whole: token_urlsafe may hold "_" itself, and its last piece after one (a letter or two, or
    # nothing when it ends in "_") stood in any row
    random_part = secret.split("_", 2)[-1]
    assert len(random_part) >= 40
    assert random_part not in rows


def test_unknown_scope_and_toolset_are_refused(world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        with pytest.raises(InvalidInput, match="unknown scope"):
            access_key_create(member=member, project=world.a.project, scopes=["memory:delete"])
        with pytest.raises(InvalidInput, match="unknown toolset"):
            access_key_create(member=member, project=world.a.project, toolsets=["shell"])


def test_folder_bound_key_reports_its_workspace(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        key, secret = access_key_create(member=member, project=world.a.project, workspace_name="notes")
    assert key.workspace.name == "notes"
    assert _get(client, "/v1/whoami", secret).json()["workspace"] == "notes"


def test_accesskey_command_prints_the_key_alone_on_its_last_line(world):
    out = io.StringIO()
    call_command("accesskey", "create", "--enterprise", world.a.enterprise.slug, stdout=out)
    secret = out.getvalue().strip().splitlines()[-1]
    assert secret.startswith("mnm_") and " " not in secret
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        key = AccessKey.objects.select_related("project", "member__user").get(
            digest=access_key_digest(secret)
        )
    # Defaults: the enterprise's first project, all scopes, the first owner or admin.
    assert key.project.slug == "alpha"
    assert sorted(key.scopes) == sorted(
        ["memory:read", "memory:write", "tasks:read", "tasks:write", "partners:read", "admin"]
    )
    assert key.member.user == world.alice.user


def test_accesskey_command_with_options(world):
    out = io.StringIO()
    call_command(
        "accesskey",
        "create",
        "--enterprise",
        world.a.enterprise.slug,
        "--project",
        "beta",
        "--scopes",
        "memory:read,tasks:read",
        "--workspace",
        "inbox",
        stdout=out,
    )
    secret = out.getvalue().strip().splitlines()[-1]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        key = AccessKey.objects.select_related("project", "workspace").get(digest=access_key_digest(secret))
    assert (key.project.slug, key.workspace.name, key.scopes) == (
        "beta",
        "inbox",
        ["memory:read", "tasks:read"],
    )


def test_accesskey_command_rejects_unknown_enterprise(world):
    from django.core.management.base import CommandError

    with pytest.raises(CommandError, match="no enterprise with slug 'nope'"):
        call_command("accesskey", "create", "--enterprise", "nope")


def test_whoami_and_the_cli_say_where_a_keys_saves_go_and_why(client, world):
    a = world.a
    member = world.alice.members[a.enterprise.slug]  # Main project: alpha
    with tenant_context(enterprise_id=a.enterprise.pk, member=member, door="test"):
        _, on_beta = access_key_create(member=member, project=a.other_project)
        _, in_folder = access_key_create(member=member, project=a.other_project, workspace_name="infra-notes")
    expected = {
        on_beta: {
            "project": "alpha",
            "project_id": str(a.project.pk),
            "folder": None,
            "rule": "main",
            "reason": "this key is not bound to a folder, so its saves go to the member's Main project 'alpha', "
            "not to 'beta' (bind the key to a folder of 'beta' to save there)",
        },
        in_folder: {
            "project": "beta",
            "project_id": str(a.other_project.pk),
            "folder": "infra-notes",
            "rule": "folder",
            "reason": "this key is bound to folder 'infra-notes' of project 'beta': every save goes there",
        },
    }
    for secret, target in expected.items():
        assert _get(client, "/v1/whoami", secret).json()["save_target"] == target
    # Main paused: the key's own project.
    with tenant_context(enterprise_id=a.enterprise.pk, door="test"):
        type(member).objects.filter(pk=member.pk).update(main_paused=True)
    assert _get(client, "/v1/whoami", on_beta).json()["save_target"] == {
        "project": "beta",
        "project_id": str(a.other_project.pk),
        "folder": None,
        "rule": "key_project",
        "reason": "this key is not bound to a folder and its member has no active Main project, so its saves go "
        "to the key's project 'beta'",
    }
    out = io.StringIO()
    call_command(
        "accesskey",
        "create",
        "--enterprise",
        a.enterprise.slug,
        "--project",
        "beta",
        "--user",
        member.user.username,
        stdout=out,
    )
    lines = out.getvalue().splitlines()
    assert lines[1] == (
        "saves go to beta: this key is not bound to a folder and its member has no active Main project, so its "
        "saves go to the key's project 'beta'"
    )
    assert lines[-1].startswith("mnm_")  # the secret, alone on the last line
