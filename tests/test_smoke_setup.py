from __future__ import annotations

from accounts.models import Project
from accounts.tenancy import tenant_context


def test_world_builds(world):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        assert sorted(Project.objects.values_list("slug", flat=True)) == ["alpha", "beta"]
