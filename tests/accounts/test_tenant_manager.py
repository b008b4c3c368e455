"""TenantManager builds each (model, enterprise)'s filtered queryset once per thread and clones it: the
SQL is the one a fresh filter() gives, for every tenant model, and follows the context's enterprise."""

from __future__ import annotations

import threading
import uuid

import pytest
from django.db.models import QuerySet

from core.tenancy import TenantContextMissing, TenantQuerySet, tenant_context, tenant_models


def _fresh(model, enterprise_id) -> QuerySet:
    return TenantQuerySet(model).filter(**{model._tenant_field: enterprise_id})


@pytest.mark.parametrize("enterprise_id", [uuid.uuid4(), uuid.uuid4()])
def test_every_tenant_models_queryset_is_the_fresh_filters(db, enterprise_id):
    with tenant_context(enterprise_id=enterprise_id, door="test"):
        for model in tenant_models():
            for _ in range(2):  # built, then from the per-thread cache
                for qs, fresh in (
                    (model.objects.all(), _fresh(model, enterprise_id)),
                    (model.objects.filter(pk=1), _fresh(model, enterprise_id).filter(pk=1)),
                    (model._base_manager.order_by("pk"), _fresh(model, enterprise_id).order_by("pk")),
                ):
                    assert str(qs.query) == str(fresh.query), model
                    assert str(enterprise_id).replace("-", "") in str(qs.query).replace("-", ""), model


def test_clones_never_share_state_and_the_enterprise_follows_the_context(db, world):
    from accounts.models import Project

    a, b = world.a.enterprise.pk, world.b.enterprise.pk
    with tenant_context(enterprise_id=a, door="test"):
        first = Project.objects.filter(slug="alpha")
        second = Project.objects.all()
        assert "alpha" not in str(second.query)  # a filter on one clone is not on the next
        assert [p.enterprise_id for p in second] == [a, a] and first.get().enterprise_id == a
    with tenant_context(enterprise_id=b, door="test"):
        assert {p.enterprise_id for p in Project.objects.all()} == {b}
    with pytest.raises(TenantContextMissing):
        Project.objects.all()


def test_each_thread_builds_its_own(db):
    from accounts.models import Project

    enterprise_id = uuid.uuid4()
    seen: list[str] = []

    def other() -> None:
        with tenant_context(enterprise_id=enterprise_id, door="test"):
            seen.append(str(Project.objects.all().query))

    with tenant_context(enterprise_id=enterprise_id, door="test"):
        mine = str(Project.objects.all().query)
    thread = threading.Thread(target=other)
    thread.start()
    thread.join()
    assert seen == [mine]
