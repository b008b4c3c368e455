"""``manage.py cluster`` (``make cluster``) on loopback, driven as an operator and its agents would: a
primary with a streaming replica, PgBouncer, two web nodes and two workers (issue 22, docs/scaling.md).

One test, in phases, because the cluster takes a while to start:

1. read-your-writes for every write tool (remember, save_memory, save_memories, update_memory,
   memory.train, forget): with the replica's replay paused, each write through one
   node is seen by the writer's next read through the other node (the primary), and not yet by another
   key's read (the replica: proof that reads go there); both nodes' connections are in the replica's
   pg_stat_activity;
2. mixed traffic while web node 1, then the archivist worker while it holds a job, are SIGKILLed: a
   save that fails on one node is retried on the other with the same idempotency key, every
   acknowledged save is on the primary exactly once, and every one of them is embedded in the end (the
   killed worker's job is sent again by the sweeper and done by the worker started in its place);
3. the replica stopped: reads through both nodes answer, from the primary;
4. no node returns another tenant's memory; Ctrl-C stops everything cleanly.
"""

from __future__ import annotations

import json
import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
import uuid
from pathlib import Path
from typing import Any

import psutil
import psycopg
import pytest
from celery import Celery

from config.celery import app
from core.dbserver import SUPERUSER, owned_embedded_postmaster
from core.replica import Standby, replay_pause, start_standby, stop_standby, wait_caught_up
from core.tenancy import tenant_context
from memory.models import Memory
from tests.live import ROOT, free_port, post_json, stop_process, tool_call, wait_for

FAST_SWEEP = {
    "MNEMOS_JOBS_SWEEP_SECONDS": "2",
    "MNEMOS_JOBS_STALE_SECONDS": "4",
    # The replica is paused on purpose for a while: it stays in use, and writers read the primary.
    "MNEMOS_REPLICA_MAX_LAG_SECONDS": "120",
    "MNEMOS_REPLICA_CHECK_SECONDS": "0.2",
    "MNEMOS_READ_YOUR_WRITES_SECONDS": "130",
}


def _hits(base: str, secret: str, words: str) -> dict[str, dict[str, Any]]:
    return {
        hit["event_id"]: hit
        for hit in tool_call(base, secret, "search_memory", {"query": words, "top_k": 50})["hits"]
    }


def _serve_process(match: list[str]) -> psutil.Process:
    """The ``manage.py serve`` whose command line holds every word of ``match``."""
    for process in psutil.process_iter(["cmdline"]):
        cmdline = process.info["cmdline"] or []
        if "serve" in cmdline and all(word in cmdline for word in match):
            return process
    raise AssertionError(f"no serve process with {match}")


def _listening(base: str) -> bool:
    """Whether a web node answers HTTP at all (``/healthz``: any status, an error one included)."""
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=10):
            return True
    except urllib.error.HTTPError:
        return True
    except (urllib.error.URLError, ConnectionError, TimeoutError, OSError):
        return False


def _get(base: str, secret: str, path: str, query: dict[str, str]) -> dict[str, Any]:
    request = urllib.request.Request(
        f"{base}{path}?{urllib.parse.urlencode(query)}", headers={"Authorization": f"Bearer {secret}"}
    )
    with urllib.request.urlopen(request, timeout=30) as response:
        return dict(json.load(response))


def _kill_tree(process: psutil.Process) -> None:
    """SIGKILL a serve process and everything below it (uvicorn and its workers, Celery and its pool)."""
    tree = [process, *process.children(recursive=True)]
    for each in tree:
        each.kill()
    psutil.wait_procs(tree, timeout=10)


def _holds_a_job(broker: str, node: str) -> bool:
    """Whether the Celery worker ``node`` runs a task now (remote control, on the cluster's broker).

    A probe app of its own, not made the current app (``set_as_current=False``: otherwise every job the
    later tests send, ``core.jobs``, would go to its default queue, which no worker consumes). The
    project's app would not do: its control commands are published through its producer pool, on its
    own broker, whatever connection is passed in; under a plain ``make test`` (no CELERY_BROKER_URL)
    that is the filesystem broker, not the cluster's Redis, and no worker ever heard the question."""
    probe = Celery("cluster-probe", broker=broker, set_as_current=False)
    probe.conf.control_exchange = app.conf.control_exchange
    try:
        answer = probe.control.inspect(destination=[node], timeout=0.5).active() or {}
    finally:
        probe.close()
    return bool(answer.get(node))


@pytest.mark.live
def test_the_cluster_keeps_reads_writes_and_jobs_right_through_failures(committed_world, django_db_blocker):
    world = committed_world
    slug = world.a.enterprise.slug
    _, writer = world.alice.keys[slug]
    _, reader = world.bob.keys[slug]  # an auditor of A: reads only
    _, other_tenant = world.bob.keys[world.b.enterprise.slug]
    primary = owned_embedded_postmaster()
    assert primary is not None
    var = Path(tempfile.mkdtemp(prefix="mnemos-cluster-"))
    var.chmod(0o755)
    web = [free_port(), free_port()]
    replica_port, bouncer_port = free_port(), free_port()
    log = var / "cluster.log"
    with log.open("wb") as out:
        cluster = subprocess.Popen(
            [
                sys.executable,
                "manage.py",
                "cluster",
                "--no-demo",
                "--web-ports",
                f"{web[0]},{web[1]}",
                "--pgbouncer-port",
                str(bouncer_port),
                "--replica-port",
                str(replica_port),
            ],
            cwd=ROOT,
            env={
                **os.environ,
                **FAST_SWEEP,
                "PYTHONUNBUFFERED": "1",
                "MNEMOS_VAR_DIR": str(var / "var"),
                # Queues of its own: nothing other tests left on a shared broker runs in it.
                "MNEMOS_CELERY_QUEUE": f"cluster-{uuid.uuid4().hex[:8]}",
            },
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    standby = Standby(
        pgdata=var / "var" / "cluster" / "replica",
        socket_dir=str(var / "var" / "cluster" / "replica"),
        port=replica_port,
        slot="mnemos_cluster_replica",
        system_user=primary.system_user,
    )
    nodes = [f"http://127.0.0.1:{port}" for port in web]
    words = f"harbour crane {uuid.uuid4().hex[:8]}"
    try:
        wait_for(
            lambda: cluster.poll() is not None or "Cluster ready" in log.read_text(),
            timeout=300,
            what="the cluster",
        )
        assert cluster.poll() is None, log.read_text()[-4000:]
        assert (
            f"pgbouncer:   postgresql://mnemos_app@127.0.0.1:{bouncer_port}/mnemos  (transaction mode)"
            in (log.read_text())
        )
        with django_db_blocker.unblock():
            _read_your_writes(nodes, writer, reader, standby, primary, words, str(world.a.project.pk))
            broker = re.search(r"^  broker: +(\S+)$", log.read_text(), re.MULTILINE)
            assert broker is not None
            acked = _mixed_traffic_with_kills(nodes, writer, web[0], words, broker.group(1))
            with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
                stored = list(Memory.objects.filter(pk__in=acked).values_list("pk", flat=True))
            assert sorted(map(str, stored)) == sorted(acked)  # each acknowledged save, once

            def embedded() -> bool:
                with tenant_context(enterprise_id=world.a.enterprise.pk, door="test"):
                    return not Memory.objects.filter(pk__in=acked, embedding__isnull=True).exists()

            wait_for(embedded, timeout=240, interval=1, what="every acknowledged save embedded")
            # The supervisor restarts the killed web node after its back-off; on a slow machine its
            # Django may still be starting when the saves are all embedded. Reads are asked of a node
            # that serves again (the restart itself is what this waits for, with the log if it never comes).
            for base in nodes:
                try:
                    wait_for(lambda base=base: _listening(base), timeout=120, interval=0.5, what=base)
                except AssertionError as exc:
                    raise AssertionError(f"{exc}: not serving again\n{log.read_text()[-4000:]}") from exc

            stop_standby(standby)
            try:
                for base in nodes * 3:  # every read answers, from the primary
                    assert _hits(base, reader, words)
            finally:
                start_standby(standby)
            for base in nodes:
                foreign = _hits(base, other_tenant, words)
                assert not set(foreign) & set(acked)
    finally:
        code = stop_process(cluster, sig=signal.SIGINT, timeout=180)
    text = log.read_text()
    assert code == 0, text[-4000:]
    assert "Cluster stopped." in text
    assert not standby.pgdata.exists()  # the replica's data and slot are dropped
    with psycopg.connect(
        host=primary.socket_dir, port=primary.port, user=SUPERUSER, dbname="postgres"
    ) as conn:
        assert conn.execute(
            "SELECT count(*) FROM pg_replication_slots WHERE slot_name = %s", [standby.slot]
        ).fetchone() == (0,)


def _read_your_writes(
    nodes: list[str], writer: str, reader: str, standby: Standby, primary: Any, words: str, project_id: str
) -> None:
    one, two = nodes
    wait_caught_up(standby, primary_socket_dir=primary.socket_dir, primary_port=primary.port)
    for base in nodes:  # the reader's connections on the replica, from both nodes
        _hits(base, reader, words)
    with psycopg.connect(host=standby.socket_dir, port=standby.port, user=SUPERUSER, dbname="mnemos") as conn:
        names = {row[0] for row in conn.execute("SELECT application_name FROM pg_stat_activity").fetchall()}
    assert {
        f"mnemos web-{nodes[0].rsplit(':', 1)[1]}",
        f"mnemos web-{nodes[1].rsplit(':', 1)[1]}",
    } <= names, names

    # An idempotent retry that lands on the other node gets the first node's answer.
    retry_key = uuid.uuid4().hex
    once = tool_call(one, writer, "remember", {"content": f"The {words} zero."}, idempotency_key=retry_key)
    again = tool_call(two, writer, "remember", {"content": f"The {words} zero."}, idempotency_key=retry_key)
    assert again == once
    task = post_json(
        one, writer, "/v1/tasks", {"project_id": project_id, "name": f"cluster {words}", "goal": ""}
    )["id"]
    replay_pause(standby, paused=True)
    try:
        first = tool_call(one, writer, "remember", {"content": f"The {words} one was serviced."})["id"]
        assert first in _hits(two, writer, words)
        assert first not in _hits(two, reader, words)  # the replica has not replayed it: reads go there

        saved = tool_call(
            one,
            writer,
            "save_memory",
            {"summary": f"{words} two", "content": f"The {words} two moved.", "entities": []},
        )
        assert saved["event_id"] in _hits(two, writer, words)

        batch = tool_call(
            two, writer, "save_memories", {"items": [{"content": f"The {words} three was painted."}]}
        )
        third = batch["results"][0]["id"]
        assert third in _hits(one, writer, words)

        tool_call(two, writer, "update_memory", {"event_id": first, "add_tags": ["cluster/checked"]})
        assert "cluster/checked" in _hits(one, writer, words)[first]["tags"]

        trained = post_json(
            two,
            writer,
            f"/v1/tasks/{task}/memory/train",
            {
                "body": f"The {words} needs oil every week.",
                "source": {"eventId": f"evt_{first}", "revision": "1"},
            },
        )
        assert trained["status"] == "accepted", trained
        asked = _get(
            one, writer, f"/v1/tasks/{task}/memory/ask", {"purpose": f"How often does the {words} need oil?"}
        )
        assert trained["entry"]["id"] in json.dumps(asked)

        tool_call(one, writer, "forget", {"id": third, "reason": "cluster test"})
        assert third not in _hits(two, writer, words)
        assert third not in _hits(two, reader, words)  # never replayed: the reader never saw it
    finally:
        replay_pause(standby, paused=False)
    wait_caught_up(standby, primary_socket_dir=primary.socket_dir, primary_port=primary.port)
    seen = _hits(two, reader, words)
    assert first in seen and "cluster/checked" in seen[first]["tags"] and third not in seen


def _mixed_traffic_with_kills(
    nodes: list[str], writer: str, web_one: int, words: str, broker: str
) -> list[str]:
    """Saves through both nodes in turn while node 1 and the archivist worker are killed; returns the ids acknowledged."""
    acked: list[str] = []
    failures: list[str] = []
    done = threading.Event()

    def save_all() -> None:
        n = 0
        while not done.is_set() or n < 40:
            n += 1
            key = uuid.uuid4().hex
            for attempt in range(60):
                base = nodes[(n + attempt) % 2]  # a failure is retried on the other node
                try:
                    answer = tool_call(
                        base,
                        writer,
                        "remember",
                        {"content": f"The {words} log {n}."},
                        idempotency_key=key,
                        timeout=15,
                    )
                except (urllib.error.URLError, ConnectionError, TimeoutError, OSError) as exc:
                    failures.append(f"{base}: {exc}")
                    time.sleep(0.2)
                    continue
                acked.append(str(answer["id"]))
                break
            else:
                raise AssertionError(f"save {n} never acknowledged")

    thread = threading.Thread(target=save_all)
    thread.start()
    try:
        wait_for(lambda: len(acked) >= 8, timeout=60, what="the first saves")
        _kill_tree(_serve_process(["--role", "web", "--port", str(web_one)]))
        wait_for(lambda: len(acked) >= 20, timeout=90, what="saves after web node 1 died")
        archivist = _serve_process(["--role", "worker", "--kinds", "archivist"])
        node = f"mnemos-{archivist.pid}@{socket.gethostname()}"  # serve names its worker so
        wait_for(lambda: _holds_a_job(broker, node), timeout=120, interval=0.1, what="the archivist in a job")
        _kill_tree(archivist)  # mid-task: its job's row outlives it, and the sweeper sends it again
    finally:
        done.set()
        thread.join(timeout=300)
    assert not thread.is_alive()
    assert any(failure.startswith(nodes[0]) for failure in failures)  # node 1's death was met, and retried
    assert len(set(acked)) == len(acked)  # a retry with the same key was answered with the first id
    return acked
