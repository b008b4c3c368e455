"""A run's key is its TaskRun.run_key (a one-to-one): what the key is bound to, how the door loads it,
and what a finish writes through when the run's key is gone."""

from __future__ import annotations

import pytest
from django.db import connection
from django.test.utils import CaptureQueriesContext

from accounts import access
from accounts.models import AccessKey
from accounts.selectors.console import access_keys_list
from accounts.selectors.keys import access_key_load
from accounts.services.keys import access_key_digest
from core.errors import Conflict
from core.tenancy import tenant_context
from memory.models import Memory, TaskRun
from memory.services.runs import task_run_finish, task_run_start
from memory.services.tasks import task_create


@pytest.fixture
def started(world):
    key, _ = world.alice.keys[world.a.enterprise.slug]
    with tenant_context(enterprise_id=world.a.enterprise.pk, member=key.member, access_key=key, door="test"):
        task = task_create(project=world.a.project, name="release check", goal="check releases")
        start = task_run_start(task=task, member=key.member, key=key)
        run_key = AccessKey.objects.get(digest=access_key_digest(start.run_key))
    return key, task, start.run, run_key


def _in_a(world, key):
    return tenant_context(enterprise_id=world.a.enterprise.pk, member=key.member, access_key=key, door="test")


def test_the_door_loads_a_run_key_with_its_run_in_one_statement(world, started):
    key, task, run, run_key = started
    with _in_a(world, key):
        with CaptureQueriesContext(connection) as captured:
            loaded = access_key_load(key_id=run_key.pk)
            bound = (loaded.bound_run, loaded.bound_task_id)
        assert len(captured.captured_queries) == 1
        with CaptureQueriesContext(connection) as captured:
            plain = access_key_load(key_id=key.pk)
            unbound = (plain.bound_run, plain.bound_task_id)
        assert len(captured.captured_queries) == 1
        assert TaskRun.objects.get(pk=run.pk).run_key_id == run_key.pk
    assert bound[0] is not None and bound[0].pk == run.pk and bound[1] == task.pk
    assert unbound == (None, None)


def test_a_run_key_reaches_only_its_task_and_is_not_a_connection(world, started):
    key, task, _, run_key = started
    with _in_a(world, key):
        other = task_create(project=world.a.project, name="other check")
        loaded = access_key_load(key_id=run_key.pk)
        assert access.task_may_read(member=key.member, key=loaded, task=task)
        assert not access.task_may_read(member=key.member, key=loaded, task=other)
        assert not access.task_may_run(member=key.member, key=loaded, task=other)
        # The console lists connection keys, not a run's.
        listed = set(access_keys_list(member=key.member, everyone=True).values_list("pk", flat=True))
        assert key.pk in listed and run_key.pk not in listed


def test_a_finish_without_the_runs_key_writes_through_the_finishing_key(world, started):
    key, _, run, _ = started
    with _in_a(world, key):
        TaskRun.objects.filter(pk=run.pk).update(run_key=None)  # as a deleted key leaves it (SET NULL)
        keyless = TaskRun.objects.select_related("task__project", "run_key").get(pk=run.pk)
        with pytest.raises(Conflict) as refused:
            task_run_finish(run=keyless, outcome="It passed.", member=key.member, key=None)
        assert refused.value.code == "run_key_missing"
        finished = task_run_finish(run=keyless, outcome="It passed.", member=key.member, key=key)
        learned = Memory.objects.get(pk=finished.learned_id)
    assert finished.state == "finished" and learned.access_key_id == key.pk


def test_a_deleted_task_takes_its_runs_keys_along(world, started):
    key, task, run, run_key = started
    with _in_a(world, key):
        task.delete()  # the cascade reaches the run; its key must not outlive it as a plain project key
        assert not TaskRun.objects.filter(pk=run.pk).exists()
        assert not AccessKey.objects.filter(pk=run_key.pk).exists()
        assert AccessKey.objects.filter(pk=key.pk).exists()
