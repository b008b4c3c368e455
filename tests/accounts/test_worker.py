"""A task's round trip through the real broker and a real worker process."""

from __future__ import annotations

import json
from datetime import timedelta

import pytest
from django.test import Client
from django.utils import timezone

from accounts.models import AccessKey
from accounts.tasks import access_key_touch_task, enqueue
from core.tenancy import TenantContextMissing, tenant_context
from tests.live import running_worker, wait_for

pytestmark = pytest.mark.live


@pytest.fixture
def live_db(django_db_blocker):
    with django_db_blocker.unblock():
        yield


def _last_used(world, key_id):
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        return AccessKey.objects.values_list("last_used_at", flat=True).get(pk=key_id)


def test_task_round_trip_through_broker_and_worker(committed_world, live_db):
    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    used_at = timezone.now().replace(microsecond=0)
    with running_worker():
        with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
            # Sent only when this transaction commits.
            enqueue(
                access_key_touch_task,
                enterprise_id=str(world.a.enterprise.pk),
                key_id=str(key.pk),
                used_at=used_at.isoformat(),
            )
        wait_for(lambda: _last_used(world, key.pk) == used_at, timeout=60, what="the worker's update")
        # A repeat, or an older use arriving late, changes nothing (idempotent).
        older = (used_at - timedelta(hours=1)).isoformat()
        for when in (used_at.isoformat(), older):
            access_key_touch_task.apply_async(
                kwargs={"enterprise_id": str(world.a.enterprise.pk), "key_id": str(key.pk), "used_at": when}
            )
        newer = used_at + timedelta(minutes=5)
        access_key_touch_task.apply_async(
            kwargs={
                "enterprise_id": str(world.a.enterprise.pk),
                "key_id": str(key.pk),
                "used_at": newer.isoformat(),
            }
        )
        wait_for(lambda: _last_used(world, key.pk) == newer, timeout=60, what="the newer use")


def test_a_task_refuses_to_run_without_an_enterprise(committed_world, live_db):
    key, _ = committed_world.alice.keys[committed_world.a.enterprise.slug]
    result = access_key_touch_task.apply(
        kwargs={"key_id": str(key.pk), "used_at": timezone.now().isoformat()}
    )
    assert result.failed()
    assert isinstance(result.result, TenantContextMissing)
    assert "needs an enterprise_id" in str(result.result)


def test_a_task_cannot_touch_another_tenants_key(committed_world, live_db):
    world = committed_world
    key_b, _ = world.bob.keys[world.b.enterprise.slug]
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        before = AccessKey.objects.values_list("last_used_at", flat=True).get(pk=key_b.pk)
    # Run in A's context with B's key id: the row is invisible, nothing changes.
    result = access_key_touch_task.apply(
        kwargs={
            "enterprise_id": str(world.a.enterprise.pk),
            "key_id": str(key_b.pk),
            "used_at": timezone.now().isoformat(),
        }
    )
    assert result.successful() and result.result is False
    with tenant_context(enterprise_id=world.b.enterprise.pk, door="test"):
        after = AccessKey.objects.values_list("last_used_at", flat=True).get(pk=key_b.pk)
    assert after == before


def test_healthz_is_green_with_a_worker_and_red_without(live_db):
    client = Client()
    with running_worker() as name:
        response = client.get("/healthz")
        body = json.loads(response.content)
        assert response.status_code == 200, body
        assert body["status"] == "ok"
        assert name in body["checks"]["worker"]["workers"]
        assert body["checks"]["database"]["ok"] and body["checks"]["broker"]["ok"]
    response = client.get("/healthz")
    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["status"] == "fail"
    assert body["checks"]["worker"] == {"ok": False, "detail": "no worker answered"}


def test_healthz_is_red_when_the_broker_is_down(live_db, monkeypatch):
    from config.celery import app

    for setting in ("broker_url", "broker_write_url", "broker_read_url"):
        monkeypatch.setattr(app.conf, setting, "redis://127.0.0.1:1/0")
    response = Client().get("/healthz")
    body = json.loads(response.content)
    assert response.status_code == 503
    assert body["checks"]["broker"]["ok"] is False
    assert body["checks"]["worker"]["ok"] is False


def test_the_worker_runs_below_the_web_server(settings):
    """MNEMOS_WORKER_NICE (default 10): the worker's pool processes yield the CPU to saves and searches;
    its main process, which answers the health ping, stays level."""
    import os
    from pathlib import Path

    from tests.live import worker_process

    assert settings.WORKER_NICE == 10
    mine = os.getpriority(os.PRIO_PROCESS, 0)
    with worker_process() as (_, process):
        pool = [
            int(p.name)
            for p in Path("/proc").iterdir()
            if p.name.isdigit()
            and (p / "stat").exists()
            and int((p / "stat").read_text().rsplit(")", 1)[1].split()[1]) == process.pid
        ]
        assert pool, "the worker has no pool process"
        for pid in pool:
            assert os.getpriority(os.PRIO_PROCESS, pid) == min(19, mine + 10)
        assert os.getpriority(os.PRIO_PROCESS, process.pid) == mine
