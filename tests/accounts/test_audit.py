"""Audit events: written with the change, in its transaction; append-only in the database."""

from __future__ import annotations

import base64
import re
from datetime import timedelta

import pytest
from django.db import connection, transaction
from django.db.utils import ProgrammingError
from django.test.utils import CaptureQueriesContext
from django.utils import timezone

from accounts.models import AuditEvent, Role
from accounts.services.enterprises import role_create
from accounts.services.keys import access_key_create
from accounts.services.workspaces import workspace_delete, workspace_get_or_create
from core.tenancy import tenant_context


def test_a_write_appends_its_audit_event_with_the_actor(world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, member=member, request_id="req-1", door="test"):
        role = role_create(enterprise=world.a.enterprise, slug="oncall", name="On call")
        event = AuditEvent.objects.get(action="role.create", target_id=str(role.pk))
    assert event.actor_member_id == member.pk
    assert event.request_id == "req-1"
    assert event.target_type == "accounts.role"
    assert event.details == {"slug": "oncall"}
    assert event.enterprise_id == world.a.enterprise.pk


def test_a_failed_write_leaves_neither_change_nor_audit(world):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        before = AuditEvent.objects.count()
        with pytest.raises(RuntimeError), transaction.atomic():
            role_create(enterprise=world.a.enterprise, slug="temp", name="Temp")
            raise RuntimeError("boom after the write")
        assert AuditEvent.objects.count() == before
        assert not Role.objects.filter(slug="temp").exists()


@pytest.mark.parametrize(
    "statement",
    [
        "UPDATE accounts_auditevent SET action = 'tampered'",
        "DELETE FROM accounts_auditevent",
        "TRUNCATE accounts_auditevent",
    ],
)
def test_the_app_role_cannot_change_or_remove_audit_rows(world, statement):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        with pytest.raises(ProgrammingError, match="permission denied"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(statement)
        assert not AuditEvent.objects.filter(action="tampered").exists()


def test_workspace_lifecycle_is_audited_and_names_never_return(world):
    from core.errors import Conflict

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        ws = workspace_get_or_create(project=world.a.project, name="drafts")
        assert workspace_get_or_create(project=world.a.project, name="drafts").pk == ws.pk
        workspace_delete(workspace=ws)
        with pytest.raises(Conflict) as excinfo:
            workspace_get_or_create(project=world.a.project, name="drafts")
        assert excinfo.value.message == "workspace 'drafts' was deleted and cannot be reused"
        # The same name in another project is another workspace.
        assert workspace_get_or_create(project=world.a.other_project, name="drafts").pk != ws.pk
        actions = list(
            AuditEvent.objects.filter(target_id=str(ws.pk)).order_by("id").values_list("action", flat=True)
        )
    assert actions == ["workspace.create", "workspace.delete"]


def test_workspace_of_another_project_is_forbidden(world):
    from accounts.services.workspaces import workspace_check_project
    from core.errors import Forbidden

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        ws = workspace_get_or_create(project=world.a.project, name="notes")
        with pytest.raises(Forbidden) as excinfo:
            workspace_check_project(workspace=ws, project=world.a.other_project)
    assert excinfo.value.message == "403 Forbidden: workspace access denied for project"


def test_empty_workspace_name_is_refused(world):
    from core.errors import InvalidInput

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        with pytest.raises(InvalidInput, match="workspace and scope must not be empty"):
            workspace_get_or_create(project=world.a.project, name="  ")


# The REST list: GET /v1/audit-events, a page at a time in one query.

LINK_NEXT = re.compile(r'^<(?P<url>[^>]+)>; rel="next"$')


def _next_url(link: str) -> str:
    match = LINK_NEXT.match(link)
    assert match is not None, link
    return match["url"]


def _add_events(world, count: int, *, action: str = "probe.page", at=None) -> list[int]:
    """``count`` events by alice with her key (each row names both), all at ``at`` when given."""
    member = world.alice.members[world.a.enterprise.slug]
    key, _ = world.alice.keys[world.a.enterprise.slug]
    now = at or timezone.now()
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        events = AuditEvent.objects.bulk_create(
            AuditEvent(
                enterprise_id=world.a.enterprise.pk,
                actor_member=member,
                access_key=key,
                door="rest",
                action=action,
                target_type="test.probe",
                target_id=str(i),
                created_at=now if at else now - timedelta(microseconds=count - i),
            )
            for i in range(count)
        )
    return [e.pk for e in events]


def _audit(client, secret: str, query: str = ""):
    return client.get(f"/v1/audit-events{query}", headers={"Authorization": f"Bearer {secret}"})


def _pages(client, secret: str, query: str) -> list[list[dict]]:
    pages, url = [], f"/v1/audit-events{query}"
    while url:
        response = client.get(url, headers={"Authorization": f"Bearer {secret}"})
        assert response.status_code == 200, response.content
        pages.append(response.json())
        link = response.headers.get("Link")
        url = _next_url(link) if link else ""
        assert not url or url.startswith("http://testserver/v1/audit-events?")
    return pages


def test_the_list_pages_newest_first_through_next_links(client, world):
    ids = _add_events(world, 7)
    _, secret = world.alice.keys[world.a.enterprise.slug]
    pages = _pages(client, secret, "?action=probe.page&limit=3")
    assert [len(p) for p in pages] == [3, 3, 1]
    assert [e["id"] for p in pages for e in p] == ids[::-1]
    event = pages[0][0]
    key, _ = world.alice.keys[world.a.enterprise.slug]
    assert event["actor_member"] == f"{world.alice.user.username} @ {world.a.enterprise.pk}"
    assert event["access_key"] == str(key)
    assert event["action"] == "probe.page" and event["door"] == "rest"


def test_events_of_one_instant_are_each_listed_once(client, world):
    ids = _add_events(world, 5, at=timezone.now())
    _, secret = world.alice.keys[world.a.enterprise.slug]
    pages = _pages(client, secret, "?action=probe.page&limit=2")
    assert [e["id"] for p in pages for e in p] == sorted(ids, reverse=True)


def test_the_default_page_is_50_and_the_largest_500(client, world):
    _add_events(world, 60)
    _, secret = world.alice.keys[world.a.enterprise.slug]
    first = _audit(client, secret, "?action=probe.page")
    assert len(first.json()) == 50
    assert "cursor=" in first.headers["Link"] and "action=probe.page" in first.headers["Link"]
    whole = _audit(client, secret, "?action=probe.page&limit=500")
    assert len(whole.json()) == 60
    assert "Link" not in whole.headers


def test_another_enterprise_following_the_link_sees_only_its_own(client, world):
    _add_events(world, 4)
    _, alice = world.alice.keys[world.a.enterprise.slug]
    link = _audit(client, alice, "?limit=1").headers["Link"]
    _, bob_b = world.bob.keys[world.b.enterprise.slug]
    response = client.get(_next_url(link), headers={"Authorization": f"Bearer {bob_b}"})
    assert response.status_code == 200
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        own = set(AuditEvent.objects.values_list("id", flat=True))
    assert {e["id"] for e in response.json()} <= own


def test_a_page_is_one_query_for_1_event_as_for_200(client, world):
    """The door's queries and one for the page (actor, user and key joined), however many rows."""
    _, secret = world.alice.keys[world.a.enterprise.slug]
    _add_events(world, 1)
    _audit(client, secret, "?action=probe.page&limit=500")  # warm the door's caches

    def queries() -> list[str]:
        with CaptureQueriesContext(connection) as captured:
            response = _audit(client, secret, "?action=probe.page&limit=500")
        assert response.status_code == 200
        return [q["sql"] for q in captured.captured_queries]

    one = queries()
    _add_events(world, 199)
    two_hundred = queries()
    assert len(_audit(client, secret, "?action=probe.page&limit=500").json()) == 200
    assert len(one) == len(two_hundred)
    reads = [sql for sql in two_hundred if '"accounts_auditevent"' in sql]
    assert len(reads) == 1
    assert (
        '"accounts_member"' in reads[0] and '"auth_user"' in reads[0] and '"accounts_accesskey"' in reads[0]
    )


@pytest.mark.parametrize("limit", ["0", "-5", "501", "99999999999999999999999", "ten", "1.5", ""])
def test_a_bad_limit_is_400_with_the_exact_text(client, world, limit):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    response = _audit(client, secret, f"?limit={limit}")
    assert response.status_code == 400
    assert response.json() == {"error": "limit must be an integer from 1 to 500", "code": "invalid_input"}


@pytest.mark.parametrize(
    "cursor",
    [
        "nope",
        "%21%21%21",
        base64.urlsafe_b64encode(b"2024-01-01T00:00:00|12").decode(),  # no time zone
        base64.urlsafe_b64encode(b"2024-01-01T00:00:00+00:00|-1").decode(),
        base64.urlsafe_b64encode(b"2024-01-01T00:00:00+00:00|99999999999999999999").decode(),
        base64.urlsafe_b64encode(b"\xff\xfe").decode(),
    ],
)
def test_a_cursor_the_list_did_not_hand_out_is_422(client, world, cursor):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    response = _audit(client, secret, f"?cursor={cursor}")
    assert response.status_code == 422
    assert response.json() == {
        "error": "cursor is not one this list handed out: follow the next link as it is",
        "code": "invalid_cursor",
    }


def test_an_action_with_a_nul_is_refused_and_an_id_past_bigint_is_not_found(client, world):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    refused = _audit(client, secret, "?action=%00")  # the REST door refuses it before the query
    assert refused.status_code == 422
    assert {"error", "code"} <= set(refused.json())
    missing = _audit(client, secret, "/99999999999999999999999")
    assert missing.status_code == 404
    assert missing.json() == {"error": "audit event 99999999999999999999999 not found", "code": "not_found"}


def test_a_key_without_the_admin_scope_may_not_list(client, world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        _, secret = access_key_create(member=member, project=world.a.project, scopes=["memory:read"])
    response = _audit(client, secret, "?limit=5")
    assert response.status_code == 403
    assert response.json()["code"] == "missing_scope"
