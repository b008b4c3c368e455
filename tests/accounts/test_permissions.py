"""Per-project object permissions (django-guardian), granted to members or teams."""

from __future__ import annotations

from guardian.core import ObjectPermissionChecker

from accounts.models import ProjectTeamPermission, ProjectUserPermission
from accounts.services.enterprises import project_grant
from core.tenancy import tenant_context


def test_team_grant_reaches_its_members(world):
    # Projects owned by a team grant view and write to it on creation.
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        checker = ObjectPermissionChecker(world.alice.user)
        assert checker.has_perm("view_project", world.a.project)
        assert checker.has_perm("write_project", world.a.project)
        assert not checker.has_perm("manage_project", world.a.project)
        assert not ObjectPermissionChecker(world.alice.user).has_perm("view_project", world.a.other_project)


def test_member_grant_and_tenant_rows(world):
    member = world.alice.members[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        project_grant(project=world.a.other_project, member=member, permissions=["view", "manage"])
        checker = ObjectPermissionChecker(world.alice.user)
        assert checker.has_perm("manage_project", world.a.other_project)
        assert not checker.has_perm("write_project", world.a.other_project)
        assert {p.enterprise_id for p in ProjectUserPermission.objects.all()} == {world.a.enterprise.pk}
    # B sees none of A's grants.
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        assert not ProjectUserPermission.objects.filter(content_object=world.a.other_project).exists()
        assert not ProjectTeamPermission.objects.filter(content_object=world.a.project).exists()


def test_charlie_holds_no_permission(world):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        checker = ObjectPermissionChecker(world.charlie.user)
        assert not checker.has_perm("view_project", world.a.project)
