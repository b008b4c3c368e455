"""Retention on the real database: policies (who may, bad input, audited), the dry run (shows, changes
nothing), apply in batches (forget and erase, held memories skipped, audited per batch, idempotent), the sweep
enqueuing one job per enterprise, and a real worker running it."""

from __future__ import annotations

import uuid
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import AuditEvent, Job, OrgRole
from core.errors import Forbidden, InvalidInput, NotFound
from core.tenancy import tenant_context
from memory.models import Memory, RetentionPolicy
from memory.services.holds import hold_create
from memory.services.retention import (
    retention_apply,
    retention_plan,
    retention_policy_create,
    retention_policy_delete,
    retention_policy_disable,
    retention_policy_update,
    retention_run_request,
)
from memory.tasks import retention_sweep
from tests.conftest import add_person
from tests.live import running_worker, wait_for
from tests.memory.helpers import ctx, save_event

# No module-wide django_db mark: the live test's writes must commit for the worker (the others get the
# test transaction through ``world``).


def _alice(world):
    return world.alice.members[world.a.enterprise.slug]


def _age(ids, days):
    Memory.objects.filter(pk__in=ids).update(created_at=timezone.now() - timedelta(days=days))


@pytest.fixture
def aged(client, world, alice):
    """Seven task-layer events of alice's 40 days old, two fresh ones, and one old project-layer event."""
    old = [save_event(client, alice, f"Task step {i}", f"Step {i} of the migration task.") for i in range(7)]
    fresh = [save_event(client, alice, f"Fresh step {i}", f"Step {i}, today.") for i in range(2)]
    project = save_event(client, alice, "Project decision", "We keep Postgres.")
    with ctx(world):
        Memory.objects.filter(pk__in=old + fresh).update(layer="task")
        _age([*old, project], 40)
    return {"old": old, "fresh": fresh, "project": project}


def test_the_dry_run_shows_what_would_go_and_changes_nothing(client, world, aged):
    with ctx(world):
        policy = retention_policy_create(
            member=_alice(world), name="task layer after 30 days", layer="task", max_age_days=30
        )
        audits = AuditEvent.objects.count()
        (plan,) = retention_plan().policies
        assert plan.policy_id == str(policy.pk) and plan.would_go == 7 and plan.held == 0
        assert len(plan.sample) == 7 and {s["id"] for s in plan.sample} == set(aged["old"])
        assert plan.sample[0]["summary"].startswith("Task step")
        assert not Memory.objects.filter(forgotten_at__isnull=False).exists()
        assert AuditEvent.objects.count() == audits
        # One policy's plan, and a plan of a disabled policy, on request.
        retention_policy_disable(member=_alice(world), policy_id=policy.pk)
        assert retention_plan().policies == []
        assert retention_plan(policy_id=policy.pk).policies[0].would_go == 7


def test_apply_forgets_in_batches_audits_each_and_is_idempotent(client, world, aged):
    with ctx(world):
        policy = retention_policy_create(
            member=_alice(world), name="task layer after 30 days", layer="task", max_age_days=30
        )
        run = timezone.now()
        batches = [retention_apply(batch_size=3, run_started=run) for _ in range(3)]
        assert [b.total for b in batches] == [3, 3, 1] and [b.more for b in batches] == [True, True, False]
        forgotten = set(Memory.objects.filter(forgotten_at__isnull=False).values_list("pk", flat=True))
        assert {str(i) for i in forgotten} == set(aged["old"])
        assert Memory.objects.filter(pk__in=aged["old"], status="forgotten").count() == 7
        events = list(AuditEvent.objects.filter(action="retention.forget").order_by("id"))
        assert [e.details["forgotten"] for e in events] == [3, 3, 1]
        assert events[0].details["policy"]["name"] == "task layer after 30 days" and events[
            0
        ].target_id == str(policy.pk)
        policy.refresh_from_db()
        assert policy.last_run_at == run and policy.last_run_count == 7
        # A repeat finds nothing to do and audits nothing.
        again = retention_apply()
        assert again.total == 0 and not again.more
        assert AuditEvent.objects.filter(action="retention.forget").count() == 3
        # The fresh ones and the project layer were never in reach.
        assert (
            Memory.objects.filter(pk__in=[*aged["fresh"], aged["project"]], forgotten_at__isnull=True).count()
            == 3
        )


def test_an_erase_policy_removes_rows_and_its_audit_is_the_tombstone(client, world, alice, aged):
    with ctx(world):
        policy = retention_policy_create(
            member=_alice(world),
            name="old project notes",
            layer="project",
            max_age_days=30,
            action="erase",
            project_ref="alpha",
        )
        batch = retention_apply()
        assert batch.applied == {str(policy.pk): 1}
        assert not Memory.objects.filter(pk=aged["project"]).exists()
        (event,) = AuditEvent.objects.filter(action="retention.erase")
        assert event.details["memory_ids"] == [aged["project"]] and event.details["counts"]["memories"] == 1
        assert len(event.details["content_hash"]) == 64 and "Postgres" not in str(event.details)


def test_erase_flags_the_summaries_of_what_it_erased(client, world, alice, aged):
    from tests.memory.test_erasure import _remember

    derived = _remember(client, alice, "The migration task had seven steps.", derived_from=[aged["old"][0]])
    with ctx(world):
        retention_policy_create(
            member=_alice(world), name="erase old tasks", layer="task", max_age_days=30, action="erase"
        )
        assert retention_apply().total == 7
        kept = Memory.objects.get(pk=derived)
        assert kept.source_forgotten is True and kept.forgotten_at is None


def test_a_project_policy_stays_in_its_project(client, world, aged):
    with ctx(world):
        retention_policy_create(member=_alice(world), name="beta only", max_age_days=30, project_ref="beta")
        assert retention_plan().policies[0].would_go == 0
        assert retention_apply().total == 0


def test_held_memories_are_skipped_and_counted(client, world, aged):
    with ctx(world):
        retention_policy_create(
            member=_alice(world), name="task layer after 30 days", layer="task", max_age_days=30
        )
        hold_create(member=_alice(world), target="project", ref="alpha", name="Litigation 2026")
        (plan,) = retention_plan().policies
        assert plan.would_go == 0 and plan.held == 7
        batch = retention_apply()
        assert batch.total == 0 and list(batch.held.values()) == [7]
        assert not Memory.objects.filter(forgotten_at__isnull=False).exists()


def test_policies_who_may_bad_input_and_audit(client, world):
    dave = add_person("dave", [(world.a, OrgRole.MEMBER)]).members[world.a.enterprise.slug]
    bob_auditor = world.bob.members[world.a.enterprise.slug]
    with ctx(world):
        for member in (dave, bob_auditor):
            with pytest.raises(Forbidden) as refused:
                retention_policy_create(member=member, name="x", max_age_days=30)
            assert refused.value.message == "only an owner or an admin may change retention policies"
        cases = [
            (
                {"name": "", "max_age_days": 30},
                InvalidInput,
                "a retention policy needs a name (1 to 200 characters)",
            ),
            (
                {"name": "x", "max_age_days": 0},
                InvalidInput,
                "max_age_days must be a whole number of days from 1 to 36500",
            ),
            (
                {"name": "x", "max_age_days": 30, "action": "shred"},
                InvalidInput,
                "action must be one of: forget, erase",
            ),
            (
                {"name": "x", "max_age_days": 30, "layer": "galaxy"},
                InvalidInput,
                "layer must be one of: task, member, role, team, project, enterprise (or empty for any layer)",
            ),
            (
                {"name": "x", "max_age_days": 30, "kind": "rumour"},
                InvalidInput,
                "kind must be one of: fact, inference, preference, correction (or empty for any kind)",
            ),
            (
                {"name": "x", "max_age_days": 30, "project_ref": "gamma"},
                NotFound,
                "no project 'gamma' in this enterprise",
            ),
        ]
        for arguments, error, text in cases:
            with pytest.raises(error) as bad:
                retention_policy_create(member=_alice(world), **arguments)
            assert bad.value.message == text
        policy = retention_policy_create(member=_alice(world), name="events after a year", max_age_days=365)
        retention_policy_update(member=_alice(world), policy_id=policy.pk, max_age_days=400, kind="fact")
        policy.refresh_from_db()
        assert policy.max_age_days == 400 and policy.kind == "fact" and policy.project is None
        with pytest.raises(NotFound) as missing:
            retention_policy_update(member=_alice(world), policy_id=uuid.uuid4(), name="y")
        assert missing.value.message == "retention policy not found"
        retention_policy_delete(member=_alice(world), policy_id=policy.pk)
        assert not RetentionPolicy.objects.exists()
        actions = list(
            AuditEvent.objects.filter(action__startswith="retention.")
            .order_by("id")
            .values_list("action", flat=True)
        )
        assert actions == ["retention.policy_create", "retention.policy_update", "retention.policy_delete"]
        update = AuditEvent.objects.get(action="retention.policy_update")
        assert update.details["old"]["max_age_days"] == 365 and update.details["new"]["max_age_days"] == 400
    with ctx(world, "b"), pytest.raises(NotFound):
        retention_policy_delete(member=world.bob.members[world.b.enterprise.slug], policy_id=policy.pk)


def test_the_sweep_enqueues_one_job_per_enterprise_with_an_enabled_policy(client, world):
    with ctx(world):
        retention_policy_create(member=_alice(world), name="a", max_age_days=30)
    with ctx(world, "b"):
        policy_b = retention_policy_create(
            member=world.bob.members[world.b.enterprise.slug], name="b", max_age_days=30
        )
        retention_policy_disable(member=world.bob.members[world.b.enterprise.slug], policy_id=policy_b.pk)
    assert retention_sweep() == 1
    with tenant_context(enterprise_id=None, all_tenants=True, door="test"):
        jobs = list(Job.objects.filter(task="memory.retention_apply").values_list("enterprise_id", flat=True))
    assert jobs == [world.a.enterprise.pk]
    # A run pending already is not started twice.
    assert retention_sweep() == 0
    with ctx(world):
        assert retention_run_request(member=_alice(world)) is False


# -- a real worker ------------------------------------------------------------------------------------


@pytest.fixture
def live_db(django_db_blocker):
    with django_db_blocker.unblock():
        yield


@pytest.mark.live
def test_a_real_worker_runs_a_chain_of_batches_and_the_sweep(committed_world, live_db):
    """A run requested with batches of two: the worker applies batch after batch (each job records the next).
    Then the sweep, sent as beat sends it, starts the enterprise's run for a second policy."""
    from config.celery import app
    from core.dispatch import tool_dispatch

    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    member = world.alice.members[world.a.enterprise.slug]
    enterprise = world.a.enterprise.pk
    workspace = f"retention-{uuid.uuid4().hex[:6]}"
    policies: list[RetentionPolicy] = []

    def forgotten(which):
        with tenant_context(enterprise_id=enterprise, door="test"):
            return Memory.objects.filter(pk__in=which, forgotten_at__isnull=False).count() == len(which)

    try:
        with running_worker():
            ids = []
            for i in range(8):
                outcome = tool_dispatch(
                    secret=secret,
                    name="remember",
                    arguments={"content": f"Retention live step {i}.", "workspace": workspace},
                    surface="rest",
                )
                assert outcome.ok, outcome.error
                ids.append(outcome.output["id"])
            with tenant_context(enterprise_id=enterprise, door="test"):
                old = timezone.now() - timedelta(days=400)
                Memory.objects.filter(pk__in=ids[:5]).update(created_at=old, kind="preference")
                Memory.objects.filter(pk__in=ids[5:]).update(created_at=old, kind="inference")
                first = retention_policy_create(
                    member=member, name="live preferences", kind="preference", max_age_days=365
                )
                policies.append(first)
                assert retention_run_request(member=member, batch_size=2) is True
            wait_for(lambda: forgotten(ids[:5]), timeout=120, what="the retention chain")
            with tenant_context(enterprise_id=enterprise, door="test"):
                events = list(AuditEvent.objects.filter(action="retention.forget", target_id=str(first.pk)))
                assert sorted(e.details["forgotten"] for e in events) == [1, 2, 2]
                assert {e.door for e in events} == {"celery"}
                policies.append(
                    retention_policy_create(
                        member=member, name="live inferences", kind="inference", max_age_days=365
                    )
                )
            app.send_task("memory.retention_sweep", queue=app.conf.task_default_queue)
            wait_for(lambda: forgotten(ids[5:]), timeout=120, what="the sweep's run")
        with tenant_context(enterprise_id=enterprise, door="test"):
            assert not Job.objects.filter(task="memory.retention_apply").exists()
            # Each policy says what its latest run did: the sweep's run found nothing left for the first.
            first, second = (RetentionPolicy.objects.get(pk=p.pk) for p in policies)
            assert first.last_run_count == 0 and second.last_run_count == 3
            assert second.last_run_at is not None and first.last_run_at == second.last_run_at
    finally:
        with tenant_context(enterprise_id=enterprise, door="test"):
            for policy in policies:
                retention_policy_delete(member=member, policy_id=policy.pk)


@pytest.mark.live
def test_a_killed_worker_leaves_the_run_to_resume_with_nothing_twice(committed_world, live_db):
    """The fault: the worker is killed (SIGKILL) in the middle of a run of batches of two; the next
    batch's outbox row is still pending, and a new worker (with beat's sweeper) finishes the run:
    every memory forgotten once, the batches' audited counts adding up to exactly the memories."""
    import os
    import signal

    from core.dispatch import tool_dispatch
    from tests.live import worker_process

    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    member = world.alice.members[world.a.enterprise.slug]
    enterprise = world.a.enterprise.pk
    workspace = f"retention-kill-{uuid.uuid4().hex[:6]}"
    policies: list[RetentionPolicy] = []
    env = {"MNEMOS_JOBS_SWEEP_SECONDS": "1", "MNEMOS_JOBS_STALE_SECONDS": "1"}

    def gone(ids: list[str]) -> int:
        with tenant_context(enterprise_id=enterprise, door="test"):
            return Memory.objects.filter(pk__in=ids, forgotten_at__isnull=False).count()

    try:
        ids = []
        for i in range(120):
            outcome = tool_dispatch(
                secret=secret,
                name="remember",
                arguments={"content": f"Retention fault step {i}.", "workspace": workspace},
                surface="rest",
            )
            assert outcome.ok, outcome.error
            ids.append(outcome.output["id"])
        with tenant_context(enterprise_id=enterprise, door="test"):
            Memory.objects.filter(pk__in=ids).update(
                created_at=timezone.now() - timedelta(days=400), kind="preference"
            )
            policy = retention_policy_create(
                member=member, name="fault preferences", kind="preference", max_age_days=365
            )
            policies.append(policy)
            assert retention_run_request(member=member, batch_size=2) is True
        with worker_process(env=env) as (_, process):
            wait_for(lambda: gone(ids) >= 4, timeout=120, interval=0.002, what="the first batches")
            os.killpg(process.pid, signal.SIGKILL)
            process.wait()
        killed_at = gone(ids)
        assert killed_at < len(ids), "the run finished before the worker could be killed"
        with tenant_context(enterprise_id=enterprise, door="test"):
            assert Job.objects.filter(task="memory.retention_apply").exists()  # the next batch waits
        with worker_process(env=env, beat=True):
            wait_for(lambda: gone(ids) == len(ids), timeout=180, interval=0.2, what="the run to resume")
            wait_for(lambda: not _retention_jobs(enterprise), timeout=60, what="the run's last job to finish")
        with tenant_context(enterprise_id=enterprise, door="test"):
            events = AuditEvent.objects.filter(action="retention.forget", target_id=str(policy.pk))
            assert sum(e.details["forgotten"] for e in events) == len(ids)
    finally:
        with tenant_context(enterprise_id=enterprise, door="test"):
            for policy in policies:
                retention_policy_delete(member=member, policy_id=policy.pk)


def _retention_jobs(enterprise) -> bool:
    with tenant_context(enterprise_id=enterprise, door="test"):
        return Job.objects.filter(task="memory.retention_apply").exists()
