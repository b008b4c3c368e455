"""Start-up against a PostgreSQL without pgvector stops with one line that says how to fix it."""

from __future__ import annotations

import os
import subprocess
import sys

import pytest

from core.dbserver import MISSING_VECTOR
from tests.live import ROOT

# The machines' system PostgreSQL 15 (trust auth on 127.0.0.1) has no pgvector.
SYSTEM_POSTGRES = os.environ.get(
    "MNEMOS_TEST_PLAIN_POSTGRES_URL", "postgresql://postgres@127.0.0.1:5432/postgres"
)

pytestmark = pytest.mark.live


def test_a_server_without_pgvector_fails_start_up_with_one_line():
    env = {
        k: v
        for k, v in os.environ.items()
        if k not in {"MNEMOS_THROWAWAY_DB", "MNEMOS_PGDATA", "DATABASE_APP_URL"}
    }
    env.update(DATABASE_URL=SYSTEM_POSTGRES, DJANGO_SETTINGS_MODULE="config.settings")
    result = subprocess.run(
        [sys.executable, "manage.py", "db_bootstrap"],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert result.returncode == 1, result.stdout + result.stderr
    assert result.stderr.strip().splitlines() == [MISSING_VECTOR]


def test_the_app_role_must_differ_from_the_owner():
    from django.core.exceptions import ImproperlyConfigured

    from core.dbserver import database_settings

    saved = dict(os.environ)
    try:
        os.environ["DATABASE_URL"] = "postgresql://same:pw@127.0.0.1:5432/mnemos"
        os.environ["DATABASE_APP_URL"] = "postgresql://same:pw@127.0.0.1:5432/mnemos"
        with pytest.raises(ImproperlyConfigured, match="must name a role other than"):
            database_settings()
        del os.environ["DATABASE_APP_URL"]
        databases = database_settings()
        assert databases["owner"]["USER"] == "same"
        assert databases["default"]["USER"] == "mnemos_app"
        assert databases["default"]["PASSWORD"] and databases["default"]["PASSWORD"] != "pw"
    finally:
        os.environ.clear()
        os.environ.update(saved)


@pytest.mark.django_db(databases=["default", "owner"])
def test_connections_run_without_jit():
    """Both roles connect with JIT off: short OLTP statements never pay for plan compilation."""
    from django.db import connections

    for alias in ("default", "owner"):
        with connections[alias].cursor() as cursor:
            cursor.execute("SHOW jit")
            assert cursor.fetchone() == ("off",), alias


def test_the_pool_is_the_app_roles_only(monkeypatch):
    from core.dbserver import database_settings

    monkeypatch.setenv("MNEMOS_DB_POOL", "3")
    monkeypatch.setenv("DATABASE_URL", "postgres://mnemos_owner:pw@127.0.0.1:5432/mnemos")
    monkeypatch.delenv("DATABASE_APP_URL", raising=False)
    databases = database_settings()
    assert databases["default"]["OPTIONS"]["pool"]["max_size"] == 3
    assert "pool" not in databases["owner"]["OPTIONS"]


def test_a_urls_own_server_options_are_kept(monkeypatch):
    from core.dbserver import database_settings

    monkeypatch.setenv(
        "DATABASE_URL", "postgres://mnemos_owner:pw@127.0.0.1:5432/mnemos?options=-c%20search_path%3Dmnemos"
    )
    monkeypatch.delenv("DATABASE_APP_URL", raising=False)
    options = database_settings()["owner"]["OPTIONS"]["options"]
    assert "search_path=mnemos" in options and "jit=off" in options


@pytest.mark.django_db(databases=["default"])
def test_a_repeated_statement_is_prepared_on_its_connection():
    """Parameters are bound server-side, so a statement's text repeats and psycopg prepares it past the
    threshold: PostgreSQL then parses and rewrites it (row-level security included) once a connection."""
    from django.db import connection

    from accounts.models import Plan

    assert connection.settings_dict["OPTIONS"]["server_side_binding"] is True
    threshold = connection.settings_dict["OPTIONS"]["prepare_threshold"]
    assert threshold == 5
    for value in range(threshold + 2):  # a different value each time: one text, one prepared statement
        list(Plan.objects.filter(max_memories_per_project__gt=value).values_list("pk", flat=True))
    with connection.cursor() as cursor:
        cursor.execute(
            "SELECT statement FROM pg_prepared_statements WHERE statement LIKE %s",
            ['%FROM "accounts_plan"%max_memories_per_project" > $1%'],
        )
        assert len(cursor.fetchall()) == 1


def test_preparing_can_be_turned_off(monkeypatch):
    from core.dbserver import database_settings

    monkeypatch.setenv("MNEMOS_DB_PREPARE_THRESHOLD", "0")
    assert database_settings()["default"]["OPTIONS"]["prepare_threshold"] is None
    monkeypatch.setenv("MNEMOS_DB_PREPARE_THRESHOLD", "2")
    assert database_settings()["owner"]["OPTIONS"]["prepare_threshold"] == 2


@pytest.mark.django_db(databases=["default"])
def test_the_embedded_server_starts_with_mnemos_shared_buffers():
    """The test cluster was started through core/dbserver.py: it runs with Mnemos's settings,
    not initdb's 128 MB (a 100k-memory project's rows and vector index do not fit in those)."""
    from django.db import connection

    from core.dbserver import shared_buffers_mib

    if os.environ.get("DATABASE_URL", "").strip():
        pytest.skip("DATABASE_URL names a server Mnemos does not configure")
    with connection.cursor() as cursor:
        cursor.execute("SELECT setting::bigint * 8 / 1024 FROM pg_settings WHERE name = 'shared_buffers'")
        assert cursor.fetchone() == (shared_buffers_mib(),)


def test_the_server_conf_is_written_and_included_once(tmp_path, monkeypatch):
    from core.dbserver import SERVER_CONF, write_server_conf

    (tmp_path / "postgresql.conf").write_text("max_connections = 100\n", encoding="utf-8")
    monkeypatch.setenv("MNEMOS_PG_SHARED_BUFFERS_MB", "512")
    write_server_conf(tmp_path)
    monkeypatch.setenv("MNEMOS_PG_SHARED_BUFFERS_MB", "1024")
    write_server_conf(tmp_path)  # a later start rewrites the settings, and includes them still once
    main = (tmp_path / "postgresql.conf").read_text(encoding="utf-8")
    assert main.startswith("max_connections = 100\n")
    assert main.count(f"include_if_exists = '{SERVER_CONF}'") == 1
    assert (tmp_path / SERVER_CONF).read_text(encoding="utf-8") == "shared_buffers = '1024MB'\n"


def test_shared_buffers_default_to_a_quarter_of_memory_within_bounds(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from core import dbserver

    monkeypatch.delenv("MNEMOS_PG_SHARED_BUFFERS_MB", raising=False)
    for memory, expected in ((24 * 1024, 6 * 1024), (256, 128), (128 * 1024, 8192)):
        monkeypatch.setattr(dbserver, "_memory_mib", lambda memory=memory: memory)
        assert dbserver.shared_buffers_mib() == expected
    monkeypatch.setenv("MNEMOS_PG_SHARED_BUFFERS_MB", "8")
    with pytest.raises(ImproperlyConfigured, match="MNEMOS_PG_SHARED_BUFFERS_MB must be 16 or more"):
        dbserver.shared_buffers_mib()
