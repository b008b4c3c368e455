"""Read replicas (issue 22, core/dbrouting.py): a real streaming standby of the session's embedded primary,
made with ``pg_basebackup -R`` (core/replica.py), read through the router as the doors read it."""

from __future__ import annotations

import contextlib
import json
import os
import tempfile
import time
import urllib.error
import urllib.request
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured
from django.db import DEFAULT_DB_ALIAS, connections
from django.test import override_settings

from accounts.models import AccessKey, Enterprise, Project
from core import dbrouting
from core.dbserver import SUPERUSER, owned_embedded_postmaster, replica_settings
from core.replica import (
    Standby,
    create_standby,
    drop_standby,
    replay_pause,
    start_standby,
    stop_standby,
    wait_caught_up,
)
from core.tenancy import tenant_context, tenant_models
from memory.models import Memory
from tests.live import free_port, serve_node, tool_call, wait_for

ALIAS = "replica_1"


@pytest.fixture(scope="module")
def standby(django_db_setup: Any) -> Iterator[Standby]:
    primary = owned_embedded_postmaster()
    assert primary is not None, "the tests' embedded server"
    folder = Path(tempfile.mkdtemp(prefix="mnemos-standby-"))
    folder.chmod(0o755)
    made = create_standby(
        primary_socket_dir=primary.socket_dir,
        primary_port=primary.port,
        pgdata=folder / "pg",
        port=free_port(),
        slot=f"mnemos_test_{os.getpid()}",
        system_user=primary.system_user,
    )
    try:
        yield made
    finally:
        drop_standby(made, primary_socket_dir=primary.socket_dir, primary_port=primary.port)


def _caught_up(standby: Standby) -> None:
    primary = owned_embedded_postmaster()
    assert primary is not None
    wait_caught_up(standby, primary_socket_dir=primary.socket_dir, primary_port=primary.port)


@contextmanager
def _replica_alias(standby: Standby, monkeypatch: pytest.MonkeyPatch) -> Iterator[str]:
    """``DATABASE_REPLICA_URLS`` naming the standby, as settings would read it at start."""
    monkeypatch.setenv("DATABASE_REPLICA_URLS", standby.url(""))
    conf = replica_settings(settings.DATABASES[DEFAULT_DB_ALIAS])[ALIAS]
    connections.configure_settings({DEFAULT_DB_ALIAS: settings.DATABASES[DEFAULT_DB_ALIAS], ALIAS: conf})
    settings.DATABASES[ALIAS] = conf
    dbrouting.reset_states()
    try:
        yield ALIAS
    finally:
        connections[ALIAS].close()
        with contextlib.suppress(AttributeError):
            del connections[ALIAS]
        del settings.DATABASES[ALIAS]
        dbrouting.reset_states()


def _raw(alias: str, sql: str, params: list[Any] | None = None) -> list[tuple[Any, ...]]:
    with connections[alias].cursor() as cursor:
        cursor.execute(sql, params or [])
        return list(cursor.fetchall())


def test_replica_urls_must_name_the_application_role(monkeypatch):
    app = settings.DATABASES[DEFAULT_DB_ALIAS]
    monkeypatch.setenv("DATABASE_REPLICA_URLS", "postgresql://mnemos_owner@db2/mnemos")
    with pytest.raises(ImproperlyConfigured, match="replicas are read as the application role"):
        replica_settings(app)
    monkeypatch.setenv(
        "DATABASE_REPLICA_URLS", " postgresql://@db2:5433/mnemos , postgresql://mnemos_app:pw@db3/mnemos"
    )
    made = replica_settings(app)
    assert list(made) == ["replica_1", "replica_2"]
    assert (made["replica_1"]["HOST"], made["replica_1"]["PORT"], made["replica_1"]["USER"]) == (
        "db2",
        5433,
        app["USER"],
    )
    assert made["replica_2"]["PASSWORD"] == "pw"
    assert made["replica_1"]["TEST"] == {"MIRROR": "default"}


def test_read_your_writes_must_outlast_the_worst_lag_a_replica_is_used_with():
    assert dbrouting.settings_problem(window=10, max_lag=5, check=1) is None
    problem = dbrouting.settings_problem(window=5, max_lag=5, check=1)
    assert problem is not None and problem.startswith("MNEMOS_READ_YOUR_WRITES_SECONDS (5) must be at least")


def test_row_level_security_holds_on_the_replica(committed_world, django_db_blocker, standby, monkeypatch):
    """The cross-tenant checks, against the replica: nothing without a tenant, one tenant's rows with it."""
    world = committed_world
    a = str(world.a.enterprise.pk)
    with django_db_blocker.unblock(), _replica_alias(standby, monkeypatch) as alias:
        _caught_up(standby)
        assert _raw(alias, "SELECT pg_is_in_recovery(), current_user") == [(True, "mnemos_app")]
        tables = [m._meta.db_table for m in tenant_models()]
        for table in tables:  # no tenant context: row-level security shows nothing
            assert _raw(alias, f'SELECT count(*) FROM "{table}"') == [(0,)], table
        with tenant_context(enterprise_id=a, door="test", read_alias=alias):
            assert dbrouting.current_read_alias() == alias
            assert dbrouting.read_connection().alias == alias
            for model in tenant_models():
                if model is Enterprise:
                    continue
                seen = {
                    row[0]
                    for row in _raw(
                        alias, f'SELECT DISTINCT enterprise_id::text FROM "{model._meta.db_table}"'
                    )
                }
                assert seen <= {a}, model._meta.db_table
            assert _raw(alias, "SELECT count(*) FROM accounts_enterprise") == [(1,)]
            # The ORM reads there too, and its rows are the primary's.
            projects = Project.objects.order_by("slug")
            assert projects.db == alias
            assert {p.pk for p in projects} == {world.a.project.pk, world.a.other_project.pk}
        with tenant_context(enterprise_id=a, door="test"):
            primary_ids = set(Memory.objects.values_list("pk", flat=True))
        with tenant_context(enterprise_id=a, door="test", read_alias=alias):
            assert set(Memory.objects.values_list("pk", flat=True)) == primary_ids
        # Another tenant's context on the replica sees none of A's rows.
        with tenant_context(enterprise_id=world.b.enterprise.pk, door="test", read_alias=alias):
            assert not Memory.objects.filter(pk__in=primary_ids).exists()
            assert not Project.objects.filter(enterprise_id=a).exists()


def test_inside_a_routed_context_writes_go_to_the_primary(
    committed_world, django_db_blocker, standby, monkeypatch
):
    world = committed_world
    with django_db_blocker.unblock(), _replica_alias(standby, monkeypatch) as alias:
        _caught_up(standby)
        with tenant_context(enterprise_id=world.a.enterprise.pk, door="test", read_alias=alias):
            key = AccessKey.objects.get(pk=world.alice.keys[world.a.enterprise.slug][0].pk)
            assert key._state.db == alias
            label = key.label
            key.label = "renamed on the primary"
            key.save(update_fields=["label"])  # an object read on the replica is saved on the primary
            assert AccessKey.objects.select_for_update().filter(pk=key.pk).db == DEFAULT_DB_ALIAS
            with connections[DEFAULT_DB_ALIAS].cursor() as cursor:
                cursor.execute("SELECT label FROM accounts_accesskey WHERE id = %s", [key.pk])
                assert cursor.fetchone() == ("renamed on the primary",)
            key.label = label
            key.save(update_fields=["label"])
        # Outside the context nothing is routed.
        assert dbrouting.current_read_alias() == DEFAULT_DB_ALIAS


def test_a_replica_that_lags_is_skipped_and_used_again_once_caught_up(
    committed_world, django_db_blocker, standby, monkeypatch
):
    with django_db_blocker.unblock(), _replica_alias(standby, monkeypatch) as alias:
        _caught_up(standby)
        with override_settings(REPLICA_MAX_LAG_SECONDS=0.5, REPLICA_CHECK_SECONDS=0):
            assert dbrouting.replica_for_reads() == alias
            replay_pause(standby, paused=True)
            try:
                with tenant_context(enterprise_id=committed_world.a.enterprise.pk, door="test"):
                    AccessKey.objects.filter(
                        pk=committed_world.alice.keys[committed_world.a.enterprise.slug][0].pk
                    ).update(last_used_at=None)
                time.sleep(1.2)
                assert dbrouting.replica_for_reads() is None
                state = dbrouting.check_replica(alias)
                assert (
                    state.detail == "lags beyond 0.5 s"
                    and state.lag_seconds is not None
                    and state.lag_seconds > 0.5
                )
            finally:
                replay_pause(standby, paused=False)
            _caught_up(standby)
            assert dbrouting.replica_for_reads() == alias


def test_a_replica_that_is_down_sends_reads_to_the_primary_without_an_error(
    committed_world, django_db_blocker, standby, monkeypatch
):
    world = committed_world
    with django_db_blocker.unblock(), _replica_alias(standby, monkeypatch) as alias:
        _caught_up(standby)
        assert dbrouting.replica_for_reads() == alias
        stop_standby(standby)
        try:
            # Chosen before it went down (its last check is still fresh): the first statement fails,
            # and the call reads the primary.
            with tenant_context(enterprise_id=world.a.enterprise.pk, door="test", read_alias=alias):
                assert dbrouting.current_read_alias() == DEFAULT_DB_ALIAS
                assert Project.objects.filter(pk=world.a.project.pk).exists()
            assert dbrouting.replica_for_reads() is None  # marked down until its next check
            with override_settings(REPLICA_CHECK_SECONDS=0):
                assert dbrouting.replica_for_reads() is None
                assert dbrouting.check_replica(alias).detail.startswith("down (")
        finally:
            start_standby(standby)
        with override_settings(REPLICA_CHECK_SECONDS=0):
            wait_for(lambda: dbrouting.replica_for_reads() == alias, timeout=60, what="the replica back")


def _superuser(standby: Standby) -> psycopg.Connection[Any]:
    return psycopg.connect(
        host=standby.socket_dir, port=standby.port, user=SUPERUSER, dbname="mnemos", autocommit=True
    )


def _found(base: str, secret: str, memory_id: str, words: str) -> bool:
    hits = tool_call(base, secret, "search_memory", {"query": words})["hits"]
    return any(hit["event_id"] == memory_id for hit in hits)


def _health(base: str) -> dict[str, Any]:
    try:
        with urllib.request.urlopen(f"{base}/healthz", timeout=10) as response:
            return dict(json.load(response))
    except urllib.error.HTTPError as failed:  # no worker runs here: 503, the report in its body
        return dict(json.load(failed))


@pytest.mark.live
def test_a_web_node_reads_on_the_replica_and_a_writer_reads_its_own_writes(
    committed_world, django_db_blocker, standby, tmp_path
):
    """Through a web node with DATABASE_REPLICA_URLS: a reader's search comes from the replica (a save it
    has not replayed yet is not there, and its connections are in the replica's pg_stat_activity), the
    writer's own next search comes from the primary and finds its save; a replica stopped sends every
    read to the primary without an error, and /healthz says so."""
    world = committed_world
    slug = world.a.enterprise.slug
    _, writer = world.alice.keys[slug]
    _, reader = world.bob.keys[slug]  # an auditor of A: reads, writes nothing
    port = free_port()
    env = {
        "DATABASE_REPLICA_URLS": standby.url(""),
        "MNEMOS_REPLICA_MAX_LAG_SECONDS": "60",
        "MNEMOS_REPLICA_CHECK_SECONDS": "0.2",
        "MNEMOS_READ_YOUR_WRITES_SECONDS": "70",
    }
    words = f"replica canary {os.getpid()} lighthouse"
    with (
        django_db_blocker.unblock(),
        serve_node(tmp_path, "web", "--role", "web", "--port", str(port), ready="as a web node", env=env),
    ):
        base = f"http://127.0.0.1:{port}"
        _caught_up(standby)
        report = _health(base)
        assert report["replicas"]["replica_1"]["ok"] is True, report
        assert not _found(base, reader, "none", words)
        with _superuser(standby) as su:
            names = {row[0] for row in su.execute("SELECT application_name FROM pg_stat_activity").fetchall()}
        assert f"mnemos web-{port}" in names, names

        replay_pause(standby, paused=True)
        try:
            memory_id = str(
                tool_call(base, writer, "remember", {"content": f"The {words} was moved to pier 4."})["id"]
            )
            assert not _found(base, reader, memory_id, words)  # the replica has not replayed the save
            assert _found(base, writer, memory_id, words)  # the writer reads the primary for a while
        finally:
            replay_pause(standby, paused=False)
        _caught_up(standby)
        assert _found(base, reader, memory_id, words)

        stop_standby(standby)
        try:
            for _ in range(5):  # every call answers, from the primary
                assert _found(base, reader, memory_id, words)
            report = _health(base)
            assert report["replicas"]["replica_1"]["ok"] is False
            assert report["replicas"]["replica_1"]["detail"].startswith("down (")
        finally:
            start_standby(standby)
        wait_for(lambda: _health(base)["replicas"]["replica_1"]["ok"], timeout=60, what="the replica back")


READ_TOOLS = {
    "search_memory": lambda words: {"query": words},
    "search": lambda words: {"query": words},
    "memory.ask": lambda words: {"purpose": f"What happened to the {words}?", "limit": 50},
    "list_memory_timeline": lambda words: {"limit": 200},
    "find_memory_connections": lambda words: {"sentence": f"The {words} was repainted"},
    "query_memory_graph": lambda words: {"query": "START a = events(k: 200) RETURN a LIMIT 200"},
    "query_memories_with_sql": lambda words: {"sql": "SELECT id FROM agent.memories"},
    "describe_memory_schema": lambda words: {},
}


def _ids_in(output: Any) -> str:
    return json.dumps(output)


def test_every_read_tool_answers_from_the_replica(committed_world, django_db_blocker, standby, monkeypatch):
    """With the replica's replay paused after a save, each read-only tool called by a key that wrote nothing
    answers without an error and without the save (it read the replica), and the writer's own call sees it."""
    from core.dispatch import tool_dispatch
    from core.registry import registry

    world = committed_world
    slug = world.a.enterprise.slug
    _, writer = world.alice.keys[slug]
    _, reader = world.bob.keys[slug]
    words = f"gantry {uuid.uuid4().hex[:8]}"
    assert all(registry.get(name).read_only for name in READ_TOOLS)
    with django_db_blocker.unblock(), _replica_alias(standby, monkeypatch):
        _caught_up(standby)
        replay_pause(standby, paused=True)
        try:
            saved = tool_dispatch(
                secret=writer,
                name="remember",
                arguments={"content": f"The {words} was repainted."},
                surface="rest",
            )
            assert saved.ok, saved.error
            memory_id = saved.output["id"]
            for name, arguments in READ_TOOLS.items():
                outcome = tool_dispatch(secret=reader, name=name, arguments=arguments(words), surface="rest")
                assert outcome.ok, (name, outcome.error)
                assert memory_id not in _ids_in(outcome.output), name
            mine = tool_dispatch(
                secret=writer,
                name="query_memories_with_sql",
                arguments=READ_TOOLS["query_memories_with_sql"](words),
                surface="rest",
            )
            assert mine.ok and memory_id in _ids_in(mine.output)
        finally:
            replay_pause(standby, paused=False)
        _caught_up(standby)
        seen = tool_dispatch(
            secret=reader,
            name="query_memories_with_sql",
            arguments={"sql": "SELECT id FROM agent.memories"},
            surface="rest",
        )
        assert seen.ok and memory_id in _ids_in(seen.output)


def test_the_router_relates_replica_rows_to_the_primary_and_never_migrates_a_replica(monkeypatch):
    router = dbrouting.ReplicaRouter()
    monkeypatch.setattr(dbrouting, "replica_aliases", lambda: ["replica_1"])
    assert router.allow_migrate("replica_1", "memory") is False
    assert router.allow_migrate(DEFAULT_DB_ALIAS, "memory") is None
    read, primary, owner = Project(), Project(), Project()
    read._state.db, primary._state.db, owner._state.db = "replica_1", DEFAULT_DB_ALIAS, "owner"
    assert router.allow_relation(read, primary) is True
    assert router.allow_relation(primary, primary) is None  # Django's own rule
    assert router.allow_relation(read, owner) is None
    assert router.db_for_write(Project, instance=read) == DEFAULT_DB_ALIAS
    assert router.db_for_write(Project, instance=owner) is None  # outside a routed context: Django's choice
    assert router.db_for_read(Project) is None


def test_console_pages_read_the_replica_and_a_session_that_wrote_reads_the_primary(
    committed_world, django_db_blocker, standby, monkeypatch
):
    """A console page reads the replica (a save it has not replayed is not listed); after the session's
    own POST (a forget), its pages read the primary: the forgotten memory is gone and the save is there."""
    from django.test import Client

    from core.dispatch import tool_dispatch

    world = committed_world
    _, writer = world.alice.keys[world.a.enterprise.slug]
    words = f"lantern{uuid.uuid4().hex[:8]}"
    client = Client()
    with django_db_blocker.unblock(), _replica_alias(standby, monkeypatch):
        client.force_login(world.alice.user)

        def remember(text: str) -> str:
            outcome = tool_dispatch(
                secret=writer, name="remember", arguments={"content": text}, surface="rest"
            )
            assert outcome.ok and outcome.output is not None, outcome.error
            return str(outcome.output["id"])

        def listed() -> str:
            page = client.get("/console/memories/", {"q": words})
            assert page.status_code == 200
            return page.content.decode()

        older = remember(f"The {words} on the pier was lit at dusk.")
        _caught_up(standby)
        replay_pause(standby, paused=True)
        try:
            newer = remember(f"The {words} in the tower was repaired.")
            shown = listed()
            assert older in shown and newer not in shown  # the replica, which has not replayed the save
            forgotten = client.post(f"/console/memories/{older}/forget/", {"reason": "replica test"})
            assert forgotten.status_code == 200 and "Forgotten" in forgotten.content.decode()
            shown = listed()
            assert older not in shown and newer in shown  # this session wrote: the primary
        finally:
            replay_pause(standby, paused=False)
