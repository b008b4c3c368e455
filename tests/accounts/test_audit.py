"""Audit events: written with the change, in its transaction; append-only in the database."""

from __future__ import annotations

import pytest
from django.db import connection, transaction
from django.db.utils import ProgrammingError

from accounts.models import AuditEvent, Role
from accounts.services.enterprises import role_create
from accounts.services.workspaces import workspace_delete, workspace_get_or_create
from accounts.tenancy import tenant_context


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
    from accounts.errors import Conflict

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
    from accounts.errors import Forbidden
    from accounts.services.workspaces import workspace_check_project

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        ws = workspace_get_or_create(project=world.a.project, name="notes")
        with pytest.raises(Forbidden) as excinfo:
            workspace_check_project(workspace=ws, project=world.a.other_project)
    assert excinfo.value.message == "403 Forbidden: workspace access denied for project"


def test_empty_workspace_name_is_refused(world):
    from accounts.errors import InvalidInput

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        with pytest.raises(InvalidInput, match="workspace and scope must not be empty"):
            workspace_get_or_create(project=world.a.project, name="  ")
