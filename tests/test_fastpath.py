"""core/fastpath.py, the one seam for hand-rolled query paths: each gives what the plain ORM gives, and
the seam is pinned to the Django it was verified on."""

from __future__ import annotations

import threading
import uuid

import django
import pytest
from django.core.exceptions import ImproperlyConfigured
from django.db import connection
from django.db.models import Model, QuerySet
from django.test.utils import CaptureQueriesContext

from accounts.models import AccessKey, Member, Project
from accounts.selectors.keys import access_key_load
from core.fastpath import VERIFIED_DJANGO, CompiledQuery, tenant_queryset
from core.tenancy import TenantQuerySet, tenant_context
from memory.models import TaskRun
from memory.services.runs import task_run_start
from memory.services.tasks import task_create

RELATED = ("member", "member.user", "project", "project.team", "workspace", "enterprise", "enterprise.plan")


def test_the_seam_runs_on_the_django_it_was_verified_on():
    # A Django upgrade fails here first: re-verify core/fastpath.py's internals against it (these tests),
    # re-measure each path paired (bench/RESULTS.md), then move VERIFIED_DJANGO.
    assert django.VERSION[:2] == VERIFIED_DJANGO


def _field_values(obj: Model | None) -> dict[str, object] | None:
    if obj is None:
        return None
    return {f.attname: getattr(obj, f.attname) for f in obj._meta.concrete_fields}


def _follow(obj: object, path: str) -> Model | None:
    for name in path.split("."):
        obj = getattr(obj, name)
    return obj  # type: ignore[return-value]


@pytest.mark.parametrize("run_key", [False, True], ids=["plain key", "run key"])
def test_the_door_key_is_the_querysets_key_in_one_statement(world, run_key):
    alice_key, _ = world.alice.keys[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, member=alice_key.member, door="test"):
        if run_key:
            task = task_create(project=world.a.project, name="check", goal="check")
            alice_key = task_run_start(task=task, member=alice_key.member, key=alice_key).run.run_key
        reference = AccessKey.objects.select_related(
            "member__user", "project__team", "workspace", "enterprise__plan"
        ).get(pk=alice_key.pk)
        reference_run = TaskRun.objects.filter(run_key=reference).first()
        with CaptureQueriesContext(connection) as captured:
            key = access_key_load(key_id=reference.pk)
            related = {path: _follow(key, path) for path in RELATED}
            bound = key.bound_run
        assert len(captured.captured_queries) == 1  # every related object came with the key, its run too
    assert _field_values(bound) == _field_values(reference_run) and (bound is None) is not run_key
    assert _field_values(key) == _field_values(reference)
    for path, obj in related.items():
        assert _field_values(obj) == _field_values(_follow(reference, path)), path
    assert isinstance(key.scopes, list) and key.scopes == reference.scopes


def test_another_tenants_key_is_not_found(world):
    alice_key, _ = world.alice.keys[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        with pytest.raises(AccessKey.DoesNotExist):
            access_key_load(key_id=alice_key.pk)


def _projects(enterprise_id: uuid.UUID, slug: str) -> QuerySet[Project]:
    return QuerySet(model=Project).select_related("team").filter(enterprise_id=enterprise_id, slug=slug)


def test_a_compiled_query_binds_new_values_in_each_thread(world):
    compiled = CompiledQuery(_projects, enterprise_id=uuid.UUID(int=1), slug="\x00slug")
    enterprise = world.a.enterprise.pk
    with tenant_context(enterprise_id=enterprise, door="test"):
        assert [p.pk for p in compiled.all(enterprise_id=enterprise, slug=world.a.project.slug)] == [
            world.a.project.pk
        ]
        assert compiled.first(enterprise_id=enterprise, slug="no-such-project") is None
        found = compiled.first(enterprise_id=enterprise, slug=world.a.project.slug)
        assert found is not None and found.team == world.a.project.team
        with pytest.raises(TypeError, match="expected values"):
            compiled.all(enterprise_id=enterprise)

    # Another thread compiles its own copy (compiler state is never shared between threads).
    seen: list[object] = []
    thread = threading.Thread(target=lambda: seen.append(compiled._compiled()))
    with tenant_context(enterprise_id=enterprise, door="test"):
        mine = compiled._compiled()
    thread.start()
    thread.join()
    assert seen and seen[0] is not mine


def test_a_placeholder_must_appear_exactly_once():
    compiled = CompiledQuery(lambda slug: QuerySet(model=Project).filter(slug=slug, name=slug), slug="x")
    with pytest.raises(ImproperlyConfigured, match="appears 2 times"):
        compiled.all(slug="y")


def test_a_tenant_queryset_is_the_plain_filter_and_a_fresh_clone_each_time(world):
    enterprise = world.a.enterprise.pk
    with tenant_context(enterprise_id=enterprise, door="test"):
        plain = TenantQuerySet(Member).filter(enterprise_id=enterprise)
        first = tenant_queryset(TenantQuerySet, Member, None, "enterprise_id", enterprise)
        assert str(first.query) == str(plain.query)
        assert sorted(m.pk for m in first) == sorted(m.pk for m in plain) != []
        # Evaluating (or filtering) one clone leaves the next untouched: the template is never handed out.
        second = tenant_queryset(TenantQuerySet, Member, None, "enterprise_id", enterprise)
        assert second is not first and second._result_cache is None
        assert list(second.filter(pk=-1)) == [] and second.count() == plain.count()
        other = tenant_queryset(TenantQuerySet, Member, None, "enterprise_id", world.b.enterprise.pk)
        assert str(world.b.enterprise.pk).replace("-", "") in str(other.query).replace("-", "")
    # The manager hands them out: under a context, the tenant's filter.
    with tenant_context(enterprise_id=enterprise, door="test"):
        assert str(Member.objects.all().query) == str(plain.query)
