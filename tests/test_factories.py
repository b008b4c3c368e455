"""tests/factories.py: each factory alone makes a valid object through its service, audited, in its tenant."""

from __future__ import annotations

from accounts.models import AuditEvent, OrgRole
from core.tenancy import tenant_context
from tests.factories import AccessKeyFactory, MemberFactory, ProjectFactory, TeamFactory


def _actions(enterprise_id) -> set[str]:
    with tenant_context(enterprise_id=enterprise_id, door="test"):
        return set(AuditEvent.objects.values_list("action", flat=True))


def test_a_key_by_default_is_an_admins_to_a_new_project_of_a_new_enterprise(db):
    key, secret = AccessKeyFactory.create()
    assert key.member.org_role == OrgRole.ADMIN and secret
    assert key.project.enterprise_id == key.member.enterprise_id == key.enterprise_id
    assert _actions(key.enterprise_id) >= {"enterprise.create", "project.create", "access_key.create"}


def test_the_factories_share_an_enterprise_they_are_given(db):
    team = TeamFactory.create()
    project = ProjectFactory.create(enterprise=team.enterprise, team=team)
    member = MemberFactory.create(enterprise=team.enterprise, teams=[team], main_project=project)
    assert member.org_role == OrgRole.MEMBER and member.main_project == project
    with tenant_context(enterprise_id=team.enterprise_id, door="test"):
        assert list(member.teams.all()) == [team]
    assert _actions(team.enterprise_id) >= {
        "enterprise.create",
        "team.create",
        "project.create",
        "member.add",
    }
