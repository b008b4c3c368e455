"""Tenancy meta-tests: forgetting the tenant must be a red build."""

from __future__ import annotations

import pytest
from django.apps import apps
from django.db import connection

from accounts.models import AuditEvent, Enterprise, Project
from core.tenancy import TenantContextMissing, tenant_context, tenant_models

# Models that are not tenant-owned, each with the reason.
GLOBAL_MODELS_ALLOWLIST = {
    # Django's users are people; one person may belong to several enterprises.
    "auth.user",
    # Global permission and group catalogue; team groups are named per enterprise.
    "auth.group",
    "auth.permission",
    "contenttypes.contenttype",
    "sessions.session",
    # Admin change log: the auditor admin is read-only, so nothing is ever written here.
    "admin.logentry",
    # Guardian's generic tables; projects use the tenant-owned direct-FK tables instead.
    "guardian.userobjectpermission",
    "guardian.groupobjectpermission",
    # The platform's plan catalogue, shared by all enterprises.
    "accounts.plan",
    # The catalogue of projects their owners published for every account to read.
    "accounts.publictarget",
    # Which enterprise slugs sign in through an IdP (slug, id, on): the sign-in page's lookup (docs/sso.md).
    "accounts.ssodirectory",
}


def test_every_model_is_tenant_owned_or_allowlisted():
    tenant = {m._meta.label_lower for m in tenant_models()}
    everything = {m._meta.label_lower for m in apps.get_models()}
    assert everything - tenant - GLOBAL_MODELS_ALLOWLIST == set()
    # The allowlist holds no stale names.
    assert everything >= GLOBAL_MODELS_ALLOWLIST


@pytest.mark.django_db
def test_every_tenant_table_has_rls_forced():
    tables = [m._meta.db_table for m in tenant_models()]
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT relname, relrowsecurity, relforcerowsecurity FROM pg_class WHERE relname = ANY(%s)",
            [tables],
        )
        rows = {name: (rls, forced) for name, rls, forced in cursor.fetchall()}
    assert set(rows) == set(tables)
    assert {t for t, flags in rows.items() if flags != (True, True)} == set()


@pytest.mark.django_db
def test_app_role_owns_nothing_and_cannot_bypass_rls():
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT current_user, rolsuper, rolbypassrls FROM pg_roles WHERE rolname = current_user"
        )
        user, is_super, bypass = cursor.fetchone()
        cursor.execute(
            "SELECT count(*) FROM pg_tables WHERE schemaname = 'public' AND tableowner = current_user"
        )
        (owned,) = cursor.fetchone()
    assert user == "mnemos_app"
    assert (is_super, bypass, owned) == (False, False, 0)


def _raw_count(table: str) -> int:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT count(*) FROM "{table}"')
        return cursor.fetchone()[0]


def _raw_enterprises(table: str) -> set[str]:
    with connection.cursor() as cursor:
        cursor.execute(f'SELECT DISTINCT enterprise_id::text FROM "{table}"')
        return {row[0] for row in cursor.fetchall()}


def test_raw_select_without_setting_sees_nothing(world):
    for model in tenant_models():
        assert _raw_count(model._meta.db_table) == 0, model._meta.db_table


def test_raw_select_with_a_setting_sees_only_that_tenant(world):
    a = str(world.a.enterprise.pk)
    with tenant_context(enterprise_id=a, door="test"):
        for model in tenant_models():
            if model is Enterprise:
                continue
            assert _raw_enterprises(model._meta.db_table) <= {a}, model._meta.db_table
        assert _raw_count("accounts_project") == 2
        assert _raw_count("accounts_enterprise") == 1
        assert _raw_enterprises("accounts_auditevent") == {a}


def test_manager_refuses_without_context(world):
    with pytest.raises(TenantContextMissing):
        list(Project.objects.all())
    with pytest.raises(TenantContextMissing):
        AuditEvent.objects.count()


def test_manager_filters_by_context(world):
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        assert {p.enterprise_id for p in Project.objects.all()} == {world.b.enterprise.pk}
        # Asking for A's project by id inside B is simply "not there".
        assert not Project.objects.filter(pk=world.a.project.pk).exists()


def test_rls_blocks_writes_into_another_tenant(world):
    from django.db import transaction
    from django.db.utils import ProgrammingError

    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        with pytest.raises(ProgrammingError, match="row-level security"), transaction.atomic():
            with connection.cursor() as cursor:
                cursor.execute(
                    "INSERT INTO accounts_role (enterprise_id, slug, name) VALUES (%s, 'x', 'x')",
                    [str(world.b.enterprise.pk)],
                )


def test_nested_context_hands_the_outer_tenant_back(world):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
            assert _raw_enterprises("accounts_project") == {str(world.b.enterprise.pk)}
        assert _raw_enterprises("accounts_project") == {str(world.a.enterprise.pk)}
    assert _raw_count("accounts_project") == 0


def test_an_outermost_context_leaves_nothing_behind_its_commit(committed_world, django_db_blocker):
    """Outermost, the doors skip the reset statements: the COMMIT itself ends set_config(..., true)."""
    from accounts.selectors.keys import access_key_identify

    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    with django_db_blocker.unblock():
        assert not connection.in_atomic_block
        access_key_identify(secret=secret)
        with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
            assert _raw_enterprises("accounts_project") == {str(world.a.enterprise.pk)}
        with connection.cursor() as cursor:
            cursor.execute(
                "SELECT coalesce(current_setting('app.enterprise_id', true), ''),"
                " coalesce(current_setting('app.access_key_digest', true), '')"
            )
            assert cursor.fetchone() == ("", "")
        assert _raw_count("accounts_project") == 0
