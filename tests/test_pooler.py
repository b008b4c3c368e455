"""PgBouncer in transaction mode in front of the primary (issue 22, core/pooler.py): a tenant's settings end
with its transaction on a server connection the next client gets, and Django's connection settings for a
pooler (``MNEMOS_DB_POOLER``) keep working where psycopg's prepared statements would not.

`make test-pgbouncer` runs the tenancy suites with every app-role connection through PgBouncer."""

from __future__ import annotations

import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import psycopg
import pytest
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS

from core.dbserver import owned_embedded_postmaster, through_pooler
from core.pooler import PgBouncer, config_text
from tests.live import free_port


@pytest.fixture(scope="module")
def bouncer(django_db_setup: Any) -> Iterator[PgBouncer]:
    """One server connection for every client: whatever one client leaves on it, the next one sees."""
    primary = owned_embedded_postmaster()
    assert primary is not None
    made = PgBouncer(
        server_host=primary.socket_dir,
        server_port=primary.port,
        dbname=settings.DATABASES[DEFAULT_DB_ALIAS]["NAME"],
        users=[settings.DATABASES[DEFAULT_DB_ALIAS]["USER"]],
        folder=Path(tempfile.mkdtemp(prefix="mnemos-pgbouncer-test-")),
        listen_port=free_port(),
        system_user=primary.system_user,
        pool_size=1,
    )
    made.start()
    try:
        yield made
    finally:
        made.stop()


def _client(bouncer: PgBouncer, **options: Any) -> psycopg.Connection[Any]:
    return psycopg.connect(bouncer.url(settings.DATABASES[DEFAULT_DB_ALIAS]["USER"]), **options)


def test_the_configuration_pools_by_transaction():
    text = config_text(
        server_host="/run/pg", server_port=5433, dbname="mnemos", listen_port=6432, folder=Path("/x")
    )
    assert "pool_mode = transaction" in text
    assert "mnemos = host=/run/pg port=5433 dbname=mnemos" in text


def test_a_tenant_context_ends_with_its_transaction_on_a_shared_server_connection(committed_world, bouncer):
    a = str(committed_world.a.enterprise.pk)
    with _client(bouncer) as first, _client(bouncer, autocommit=True) as second:
        with first.transaction():
            first.execute("SELECT set_config('app.enterprise_id', %s, true)", [a])
            (pid_first,) = first.execute("SELECT pg_backend_pid()").fetchone()  # type: ignore[misc]
            (projects,) = first.execute("SELECT count(*) FROM accounts_project").fetchone()  # type: ignore[misc]
        assert projects == 2
        (pid_second,) = second.execute("SELECT pg_backend_pid()").fetchone()  # type: ignore[misc]
        assert pid_second == pid_first  # the very server connection the first client used
        (setting,) = second.execute("SELECT current_setting('app.enterprise_id', true)").fetchone()  # type: ignore[misc]
        assert setting in ("", None)
        (seen,) = second.execute("SELECT count(*) FROM accounts_project").fetchone()  # type: ignore[misc]
        assert seen == 0


def test_prepared_statements_are_why_the_pooler_settings_exist(committed_world, bouncer):
    """psycopg's named prepared statements break on a shared server connection; with the pooler's
    settings (no prepared statements) the same alternation works."""
    query = "SELECT count(*) FROM accounts_plan WHERE id > %s"
    with _client(bouncer, prepare_threshold=0) as first, _client(bouncer, prepare_threshold=0) as second:
        first.execute(query, [0]).fetchone()
        first.commit()
        with pytest.raises(psycopg.errors.DuplicatePreparedStatement):
            second.execute(query, [0]).fetchone()
    conf = {"OPTIONS": {"prepare_threshold": 0, "options": "-c jit=off", "server_side_binding": True}}
    through_pooler(conf)
    assert conf["OPTIONS"] == {"prepare_threshold": None, "server_side_binding": True}
    assert conf["DISABLE_SERVER_SIDE_CURSORS"] is True
    with (
        _client(bouncer, prepare_threshold=None) as first,
        _client(bouncer, prepare_threshold=None) as second,
    ):
        for _ in range(10):
            for client in (first, second):
                client.execute(query, [0]).fetchone()
                client.commit()
