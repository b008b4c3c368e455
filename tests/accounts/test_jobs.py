"""The outbox: every background job is a row written with the change that needs it, gone only with its
work; the sweeper sends again what a lost message, a killed worker or an outage left behind."""

from __future__ import annotations

import threading
from datetime import timedelta

import pytest
from django.utils import timezone

from accounts.models import AccessKey, AuditEvent, Job, JobState
from accounts.selectors.jobs import jobs_list, jobs_overview
from accounts.services.jobs import job_rerun, job_wait, jobs_due
from accounts.tasks import access_key_touch_task, enqueue
from config.celery import app
from core.dispatch import tool_dispatch
from core.errors import Conflict
from core.tenancy import TenantContextMissing, tenant_context
from memory.models import Memory
from tests.live import running_worker, wait_for

pytestmark = pytest.mark.live


@pytest.fixture
def live_db(django_db_blocker):
    with django_db_blocker.unblock():
        yield


def _in(world, slug="a"):
    return tenant_context(enterprise_id=getattr(world, slug).enterprise.pk, door="test")


def _jobs(world, slug="a"):
    with _in(world, slug):
        return list(Job.objects.order_by("created_at"))


def _touch(world, key, used_at):
    enqueue(
        access_key_touch_task,
        enterprise_id=str(world.a.enterprise.pk),
        key_id=str(key.pk),
        used_at=used_at.isoformat(),
    )


def _last_used(world, key):
    with _in(world):
        return AccessKey.objects.values_list("last_used_at", flat=True).get(pk=key.pk)


def _purge_broker() -> None:
    """What a broker restarted without persistence does: every waiting message is gone."""
    app.control.purge()


def test_a_job_is_a_row_of_its_change_and_leaves_with_its_work(committed_world, live_db):
    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    used_at = timezone.now().replace(microsecond=0)
    with pytest.raises(RuntimeError), _in(world):
        _touch(world, key, used_at)
        raise RuntimeError("the change rolls back")
    assert _jobs(world) == []  # nothing recorded, nothing sent
    with _in(world):
        _touch(world, key, used_at)
    (job,) = _jobs(world)
    assert (job.task, job.state, job.sends, job.attempts) == ("accounts.access_key_touch", "pending", 1, 0)
    assert job.kwargs == {"key_id": str(key.pk), "used_at": used_at.isoformat()}
    assert job.due_at - job.sent_at == job_wait(sends=1)
    with running_worker():
        wait_for(lambda: _last_used(world, key) == used_at, timeout=60, what="the job's work")
        wait_for(lambda: _jobs(world) == [], timeout=30, what="the row to go with the work")


def test_a_job_is_recorded_only_in_its_enterprises_context(committed_world, live_db):
    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    with (
        pytest.raises(TenantContextMissing, match="only in that enterprise's tenant context"),
        _in(world, "b"),
    ):
        _touch(world, key, timezone.now())
    assert _jobs(world) == [] and _jobs(world, "b") == []


def test_a_message_for_a_done_or_failed_job_changes_nothing(committed_world, live_db):
    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    before = _last_used(world, key)
    with _in(world):
        _touch(world, key, timezone.now())
    (job,) = _jobs(world)
    kwargs = {**job.kwargs, "enterprise_id": str(world.a.enterprise.pk), "job_id": str(job.pk)}
    with _in(world):
        Job.objects.filter(pk=job.pk).update(state=JobState.FAILED)
    assert access_key_touch_task.apply(kwargs=kwargs).result is None  # failed: waits for a person
    with _in(world):
        Job.objects.filter(pk=job.pk).delete()
    assert access_key_touch_task.apply(kwargs=kwargs).result is None  # gone: done already
    assert _last_used(world, key) == before


def test_a_job_that_fails_for_good_is_kept_shown_and_run_again(committed_world, live_db):
    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    with _in(world):
        enqueue(
            access_key_touch_task,
            enterprise_id=str(world.a.enterprise.pk),
            key_id=str(key.pk),
            used_at="yesterday",
        )
    (job,) = _jobs(world)
    result = access_key_touch_task.apply(
        kwargs={**job.kwargs, "enterprise_id": str(world.a.enterprise.pk), "job_id": str(job.pk)}
    )
    assert result.failed()
    (failed,) = _jobs(world)
    assert failed.state == "failed" and failed.attempts == 1 and failed.failed_at is not None
    assert failed.last_error == "ValueError: Invalid isoformat string: 'yesterday'"
    with _in(world):
        overview = jobs_overview()
        assert (overview.pending, overview.failed) == (0, 1)
        assert [j.pk for j in jobs_list(state="failed")] == [job.pk]
        assert AuditEvent.objects.filter(action="job.failed", target_id=str(job.pk)).count() == 1
        # The sweeper never sends a failed job again: only a person does.
    with tenant_context(enterprise_id=None, all_tenants=True, door="test"):
        assert job.pk not in {j.pk for j in jobs_due(limit=1000, now=timezone.now() + timedelta(days=1))}
    with _in(world):
        rerun = job_rerun(job_id=job.pk)
        assert (rerun.state, rerun.sends, rerun.failed_at) == ("pending", 2, None)
        assert AuditEvent.objects.filter(action="job.rerun", target_id=str(job.pk)).count() == 1
        with pytest.raises(Conflict, match="only a failed job can be run again"):
            job_rerun(job_id=job.pk)
        Job.objects.filter(pk=job.pk).delete()


def test_the_sweeper_sends_the_due_jobs_and_skips_the_held_ones(committed_world, live_db):
    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    with _in(world):
        for _ in range(3):
            _touch(world, key, timezone.now())
    early, held, later = _jobs(world)
    now = timezone.now()
    with _in(world):
        Job.objects.filter(pk__in=[early.pk, held.pk]).update(due_at=now - timedelta(seconds=1))
    holding, release = threading.Event(), threading.Event()

    def hold() -> None:  # a worker running the job: its transaction holds the row
        with _in(world):
            Job.objects.select_for_update().get(pk=held.pk)
            holding.set()
            release.wait(30)

    holder = threading.Thread(target=hold)
    holder.start()
    try:
        assert holding.wait(30)
        with tenant_context(enterprise_id=None, all_tenants=True, door="test"):
            due = jobs_due(limit=1000, now=now)
        assert early.pk in {j.pk for j in due} and not {held.pk, later.pk} & {j.pk for j in due}
    finally:
        release.set()
        holder.join()
    swept = {j.pk: j for j in _jobs(world)}[early.pk]
    assert swept.sends == 2 and swept.due_at == now + job_wait(sends=2)
    assert job_wait(sends=2) == 2 * job_wait(sends=1) and job_wait(sends=99) == timedelta(minutes=10)
    with _in(world):
        Job.objects.filter(pk__in=[early.pk, held.pk, later.pk]).delete()


def test_a_lost_message_is_healed_by_the_sweeper_without_traffic(committed_world, live_db, settings):
    """The broker loses the archivist's jobs (a restart without persistence): the worker's sweeper
    sends them again, and every memory gets its vector and its archivist pass, with no new save."""
    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    settings.JOBS_STALE_SECONDS = 1  # the rows this process records are due a second after their send
    ids = []
    for n in range(3):
        outcome = tool_dispatch(
            secret=secret,
            name="remember",
            arguments={
                "content": f"Sweeper check {n}: the nightly backup runs at 0{n}:00.",
                "workspace": "sweep",
            },
            surface="rest",
        )
        assert outcome.ok, outcome.error
        ids.append(outcome.output["id"])
    assert _jobs(world)  # the drain is in the outbox
    _purge_broker()

    def healed() -> bool:
        with _in(world):
            rows = Memory.objects.filter(pk__in=ids)
            done = rows.filter(embedding__isnull=False, archivist_waiting=False).count() == len(ids)
            return done and not Job.objects.exists()

    assert not healed()
    fast = {"MNEMOS_JOBS_SWEEP_SECONDS": "1", "MNEMOS_JOBS_STALE_SECONDS": "1"}
    with running_worker(beat=True, env=fast):
        wait_for(healed, timeout=90, what="the sweeper to heal the lost jobs")


def test_the_jobs_command_lists_reruns_and_sweeps(committed_world, live_db):
    from io import StringIO

    from django.core.management import CommandError, call_command

    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    with _in(world):
        _touch(world, key, timezone.now())
        enqueue(
            access_key_touch_task, enterprise_id=str(world.a.enterprise.pk), key_id=str(key.pk), used_at="x"
        )
    bad = next(j for j in _jobs(world) if j.kwargs["used_at"] == "x")
    access_key_touch_task.apply(
        kwargs={**bad.kwargs, "enterprise_id": str(world.a.enterprise.pk), "job_id": str(bad.pk)}
    )
    out = StringIO()
    call_command("jobs", "list", "--failed", stdout=out)
    line = next(row for row in out.getvalue().splitlines() if row.startswith(f"{world.a.enterprise.slug}:"))
    assert line.startswith(f"{world.a.enterprise.slug}: 1 waiting, oldest since ") and line.endswith(
        ", 1 failed"
    )
    assert f"  {bad.pk}  accounts.access_key_touch  " in out.getvalue()
    out = StringIO()
    call_command("jobs", "rerun", "--enterprise", world.a.enterprise.slug, stdout=out)
    assert out.getvalue() == "running 1 job(s) again\n"
    assert {j.state for j in _jobs(world)} == {"pending"}
    with pytest.raises(CommandError, match="only a failed job can be run again"):
        call_command("jobs", "rerun", "--enterprise", world.a.enterprise.slug, str(bad.pk))
    with pytest.raises(CommandError, match="no enterprise with slug 'nope'"):
        call_command("jobs", "rerun", "--enterprise", "nope")
    with _in(world):
        Job.objects.update(due_at=timezone.now() - timedelta(seconds=1))
    out = StringIO()
    call_command("jobs", "sweep", stdout=out)
    assert out.getvalue().startswith("sent ") and {j.sends for j in _jobs(world)} == {2, 3}
    with _in(world):
        Job.objects.all().delete()


def test_a_database_outage_is_retried_with_back_off_and_nothing_fails(committed_world, live_db):
    """The worker's database goes away (the connection refused, on the wire) while its job waits:
    the job is retried with back-off, stays pending meanwhile, and runs once the database is back."""
    import time

    from django.conf import settings as django_settings

    from tests.faults import FaultProxy

    world = committed_world
    key, _ = world.alice.keys[world.a.enterprise.slug]
    database = django_settings.DATABASES["default"]
    with FaultProxy(f"{database['HOST']}/.s.PGSQL.{database['PORT']}") as proxy:
        url = f"127.0.0.1:{proxy.port}/{database['NAME']}"
        through_proxy = {
            "DATABASE_URL": f"postgres://{django_settings.DATABASES['owner']['USER']}@{url}",
            "DATABASE_APP_URL": f"postgres://{database['USER']}@{url}",
        }
        proxy.cut()
        with running_worker(env=through_proxy):
            used_at = timezone.now().replace(microsecond=0)
            with _in(world):
                _touch(world, key, used_at)
            time.sleep(4)  # attempts at 0, 1 and 3 s have met a refused connection (the worker's log says so)
            (job,) = _jobs(world)
            assert job.state == "pending" and job.failed_at is None
            assert _last_used(world, key) != used_at
            proxy.restore()
            wait_for(lambda: _last_used(world, key) == used_at, timeout=90, what="the retried job's work")
            wait_for(lambda: _jobs(world) == [], timeout=30, what="the row to go with the work")
