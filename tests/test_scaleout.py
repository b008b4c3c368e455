"""Scale-out pieces (issue 22, docs/scaling.md): one queue a kind of work, and ``serve --role web`` and
``--role worker`` nodes that share one database, each started as an operator would start it."""

from __future__ import annotations

import re
import time
import urllib.error
import urllib.request
import uuid

import pytest
from django.conf import settings
from django.core.management import CommandError, call_command

from accounts.models import Job, JobState
from config.celery import app
from core.dispatch import tool_dispatch
from core.jobs import job_message_kwargs
from core.queues import UNKNOWN_KIND, all_kinds, queue_name, task_routes, worker_queues
from core.tenancy import tenant_context
from memory.models import EntityCooccurrence, Memory
from memory.services.archivist import ARCHIVIST_BATCH
from tests.live import free_port, serve_node, tool_call, wait_for, worker_process

BASE = settings.CELERY_TASK_DEFAULT_QUEUE
DEFAULT_QUEUE_TASKS = {"accounts.access_key_touch", "accounts.jobs_sweep", "memory.retention_sweep"}


def test_every_kind_names_real_tasks_and_the_broker_routes_them_to_its_queue():
    app.loader.import_default_modules()
    for kind, tasks in settings.WORK_KINDS.items():
        for task in tasks:
            assert task in app.tasks, f"{task} (kind {kind}) is no task: renamed?"
            assert app.amqp.router.route({}, task)["queue"].name == f"{BASE}.{kind}"
    # Everything else stays on the default queue: light and short. A new task is placed on purpose.
    named = {task for tasks in settings.WORK_KINDS.values() for task in tasks}
    ours = {name for name in app.tasks if name.split(".")[0] in {"accounts", "memory", "events", "partners"}}
    assert ours - named == DEFAULT_QUEUE_TASKS
    for task in DEFAULT_QUEUE_TASKS:
        assert app.amqp.router.route({}, task)["queue"].name == BASE


def test_a_worker_takes_every_queue_or_the_kinds_it_is_given():
    kinds = settings.WORK_KINDS
    assert worker_queues(BASE, kinds) == [queue_name(BASE, k) for k in all_kinds(kinds)]
    assert worker_queues(BASE, kinds, ["archivist", " io", "archivist"]) == [
        f"{BASE}.archivist",
        f"{BASE}.io",
    ]
    with pytest.raises(ValueError) as refused:
        worker_queues(BASE, kinds, ["embedding"])
    assert str(refused.value) == UNKNOWN_KIND.format(
        kind="embedding", kinds="default, archivist, guard, io, webhooks"
    )
    with pytest.raises(ValueError, match="named by two kinds"):
        task_routes(BASE, {"a": ("x.y",), "b": ("x.y",)})


def test_fleet_roles_are_refused_where_they_would_start_or_migrate_a_database(django_db_setup):
    # This test process started the session's embedded server: a fleet node may not own one.
    with pytest.raises(CommandError, match="start no database: set DATABASE_URL"):
        call_command("serve", role="web", port=free_port())
    with pytest.raises(CommandError, match="are for --role worker"):
        call_command("serve", role="web", kinds="archivist")
    with pytest.raises(CommandError, match="unknown kind of work 'gpu'"):
        call_command("serve", role="worker", kinds="gpu")


def _embedded(world, memory_id: str) -> bool:
    with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
        return Memory.objects.filter(pk=memory_id, embedding__isnull=False).exists()


def _value(exposition: str, sample: str) -> float:
    """A label-less sample's value in a scrape (0 when the process never wrote it)."""
    found = re.search(rf"^{re.escape(sample)} (\S+)$", exposition, re.MULTILINE)
    return float(found.group(1)) if found else 0.0


def _scrape(url: str) -> str:
    with urllib.request.urlopen(url, timeout=10) as response:
        return response.read().decode()


@pytest.mark.live
def test_a_web_node_and_workers_by_kind_share_the_work(committed_world, django_db_blocker, tmp_path):
    """A save through a web node waits for a worker of its kind: one on the webhooks queue leaves the
    archivist's job alone; one started for the archivist embeds it, and its own /metrics counts it."""
    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    web_port, metrics_port = free_port(), free_port()
    with django_db_blocker.unblock():
        with (
            serve_node(
                tmp_path, "web", "--role", "web", "--port", str(web_port), ready="as a web node"
            ) as web_log,
            serve_node(
                tmp_path, "hooks", "--role", "worker", "--kinds", "webhooks", ready="Press Ctrl-C"
            ) as hooks,
        ):
            assert f"Mnemos worker running on {BASE}.webhooks\n" in hooks.read_text()
            assert "Login" not in web_log.read_text()  # no demo data from a fleet node
            base = f"http://127.0.0.1:{web_port}"
            memory_id = tool_call(
                base,
                secret,
                "remember",
                {"content": "The staging database moved to the new cluster on Monday."},
            )["id"]
            time.sleep(3)  # the job's message sits on the archivist's queue: no worker of that kind yet
            assert not _embedded(world, memory_id)
            with serve_node(
                tmp_path,
                "archivist",
                "--role",
                "worker",
                "--kinds",
                "archivist",
                "--metrics-port",
                str(metrics_port),
                ready="Press Ctrl-C",
            ) as archivist:
                assert f"metrics at http://127.0.0.1:{metrics_port}/metrics" in archivist.read_text()
                wait_for(lambda: _embedded(world, memory_id), timeout=120, interval=0.5, what="the embedding")
                # This one at least: the drain hands the archivist every memory of the project still
                # without a vector (the test world's own too).
                counted = _scrape(f"http://127.0.0.1:{metrics_port}/metrics")
                assert _value(counted, "mnemos_embeddings_total") >= 1, counted
                with pytest.raises(urllib.error.HTTPError) as elsewhere:
                    _scrape(f"http://127.0.0.1:{metrics_port}/other")
                assert elsewhere.value.code == 404
            # The web node served the save; its own scrape has the request, not the worker's embedding.
            web_counted = _scrape(f"{base}/metrics")
            assert 'mnemos_tool_calls_total{status="ok",surface="rest",tool="remember"} 1.0' in web_counted
            assert _value(web_counted, "mnemos_embeddings_total") == 0


@pytest.mark.live
def test_two_workers_racing_on_every_job_sent_twice_change_things_once(committed_world, django_db_blocker):
    """Every archivist job of a batch of saves goes to the broker twice, and two workers of two pool
    processes each take them at once: every memory is embedded, what the archivist counts (the
    co-occurrence of the two people each memory names) is counted once a memory, and no job row is left.

    The workers and the jobs use a queue name of this test's own (``MNEMOS_CELERY_QUEUE``), so that nothing
    other tests left on a shared broker runs among them."""
    world = committed_world
    _, secret = world.alice.keys[world.a.enterprise.slug]
    enterprise_id = str(world.a.enterprise.pk)
    base = f"race-{uuid.uuid4().hex[:8]}"
    queues = worker_queues(base, settings.WORK_KINDS, ["default", "archivist"])
    people = [f"Dana {uuid.uuid4().hex[:6]}", f"Lee {uuid.uuid4().hex[:6]}"]
    with django_db_blocker.unblock():
        ids = []
        for n in range(3 * ARCHIVIST_BATCH):
            outcome = tool_dispatch(
                secret=secret,
                name="save_memory",
                arguments={
                    "summary": f"{people[0]} and {people[1]} reviewed release {n}.",
                    "content": f"{people[0]} and {people[1]} reviewed release {n} and signed it off.",
                    "entities": [{"name": name, "type": "person"} for name in people],
                    "tags": [],
                },
                surface="rest",
            )
            assert outcome.ok, outcome.error
            ids.append(outcome.output["event_id"])

        def embedded() -> int:
            with tenant_context(enterprise_id=enterprise_id, door="test"):
                return Memory.objects.filter(pk__in=ids, embedding__isnull=False).count()

        def counted() -> int:
            with tenant_context(enterprise_id=enterprise_id, door="test"):
                pairs = EntityCooccurrence.objects.filter(a__name__in=people, b__name__in=people)
                return sum(pairs.values_list("count", flat=True))

        with tenant_context(enterprise_id=enterprise_id, door="test"):
            pending = list(
                Job.objects.filter(state=JobState.PENDING, task__startswith="memory.archivist").values_list(
                    "pk", "task", "kwargs"
                )
            )
        assert pending
        for job_id, task, kwargs in pending:  # each job twice, on the race's own queue of its kind
            ours = {k: v for k, v in kwargs.items() if k not in ("enterprise_id", "job_id")}
            for _ in range(2):
                app.send_task(
                    task,
                    kwargs=job_message_kwargs(job_id=str(job_id), enterprise_id=enterprise_id, kwargs=ours),
                    task_id=str(job_id),
                    queue=f"{base}.archivist",
                )
        env = {
            "MNEMOS_CELERY_QUEUE": base
        }  # what the racers send on (the drain's process jobs) goes there too
        with (
            worker_process(prefix="racer-a", queues=queues, concurrency=2, env=env),
            worker_process(prefix="racer-b", queues=queues, concurrency=2, env=env),
        ):
            wait_for(
                lambda: embedded() == len(ids) and counted() == len(ids),
                timeout=240,
                interval=0.5,
                what=f"{len(ids)} memories embedded and counted",
            )
            time.sleep(3)  # the duplicates still in flight land, and change nothing
            assert counted() == len(ids)
            with tenant_context(enterprise_id=enterprise_id, door="test"):
                assert not Job.objects.filter(
                    task__startswith="memory.archivist", pk__in=[p[0] for p in pending]
                ).exists()
