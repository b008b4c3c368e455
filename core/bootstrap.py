"""Create the database, the pgvector extension and the two roles; idempotent."""

from __future__ import annotations

import logging
from typing import Any

import psycopg
from django.conf import settings
from psycopg import sql

from core.dbserver import AGENT_SQL_ROLE, MISSING_VECTOR, OWNER_ROLE, superuser_settings

logger = logging.getLogger(__name__)


class BootstrapError(SystemExit):
    """Start-up cannot go on; the message is one line for a person to act on."""


LEAKPROOF_TEXT_MATCH = "ALTER FUNCTION pg_catalog.ts_match_vq(tsvector, tsquery) LEAKPROOF"


def _connect(conf: dict[str, Any], *, dbname: str | None = None) -> psycopg.Connection[Any]:
    return psycopg.connect(
        dbname=dbname or conf["NAME"],
        user=conf["USER"],
        password=conf.get("PASSWORD") or None,
        host=conf.get("HOST") or None,
        port=conf.get("PORT") or None,
        autocommit=True,
        connect_timeout=10,
    )


def _role_exists(cur: psycopg.Cursor[Any], role: str) -> bool:
    cur.execute("SELECT 1 FROM pg_roles WHERE rolname = %s", [role])
    return cur.fetchone() is not None


def bootstrap_database() -> None:
    databases = settings.DATABASES
    owner, app = databases["owner"], databases["default"]
    superuser = superuser_settings(databases)
    if superuser is not None:
        # Embedded: the superuser makes the owner role, the database and the extension.
        with _connect(superuser, dbname="postgres") as conn, conn.cursor() as cur:
            if not _role_exists(cur, OWNER_ROLE):
                cur.execute(
                    sql.SQL("CREATE ROLE {} LOGIN CREATEROLE NOSUPERUSER NOBYPASSRLS").format(
                        sql.Identifier(OWNER_ROLE)
                    )
                )
            cur.execute("SELECT 1 FROM pg_database WHERE datname = %s", [owner["NAME"]])
            if cur.fetchone() is None:
                cur.execute(
                    sql.SQL("CREATE DATABASE {} OWNER {} ENCODING 'UTF8'").format(
                        sql.Identifier(owner["NAME"]), sql.Identifier(OWNER_ROLE)
                    )
                )
        with _connect(superuser) as conn, conn.cursor() as cur:
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
            # Under row-level security PostgreSQL may use an index for a condition only when its function
            # is LEAKPROOF, and full-text matching (tsvector @@ tsquery) is not marked so: without this the
            # BM25 channel's candidates come from a scan of the whole tenant (95 ms at 100k memories)
            # instead of the GIN index. ts_match_vq only answers true or false for two values it was given.
            cur.execute(LEAKPROOF_TEXT_MATCH)
    with _connect(owner) as conn, conn.cursor() as cur:
        cur.execute("SELECT 1 FROM pg_available_extensions WHERE name = 'vector'")
        if cur.fetchone() is None:
            raise BootstrapError(MISSING_VECTOR)
        try:
            cur.execute("CREATE EXTENSION IF NOT EXISTS vector")
        except psycopg.Error as exc:
            raise BootstrapError(
                f"Could not create the pgvector extension as {owner['USER']}: {exc}".strip()
                + " Ask a superuser to run CREATE EXTENSION vector in this database."
            ) from exc
        cur.execute(
            "SELECT proleakproof FROM pg_proc WHERE oid = 'pg_catalog.ts_match_vq(tsvector, tsquery)'::regprocedure"
        )
        leakproof = cur.fetchone()
        if not (leakproof and leakproof[0]):
            logger.warning(
                "full-text search cannot use its index under row-level security until a superuser runs: %s",
                LEAKPROOF_TEXT_MATCH,
            )
        app_role = app["USER"]
        if not _role_exists(cur, app_role):
            cur.execute(
                sql.SQL(
                    "CREATE ROLE {} LOGIN NOSUPERUSER NOBYPASSRLS NOCREATEDB NOCREATEROLE PASSWORD {}"
                ).format(sql.Identifier(app_role), sql.Literal(app.get("PASSWORD") or None))
            )
        cur.execute(
            sql.SQL("GRANT CONNECT ON DATABASE {} TO {}").format(
                sql.Identifier(owner["NAME"]), sql.Identifier(app_role)
            )
        )
        cur.execute(sql.SQL("GRANT USAGE ON SCHEMA public TO {}").format(sql.Identifier(app_role)))
        if not _role_exists(cur, AGENT_SQL_ROLE):
            try:
                cur.execute(
                    sql.SQL("CREATE ROLE {} NOLOGIN NOSUPERUSER NOBYPASSRLS NOINHERIT").format(
                        sql.Identifier(AGENT_SQL_ROLE)
                    )
                )
            except psycopg.Error as exc:
                raise BootstrapError(
                    f"Could not create the role {AGENT_SQL_ROLE} (the SQL tool runs as it): {exc}".strip()
                    + f" Ask an administrator to run CREATE ROLE {AGENT_SQL_ROLE} NOLOGIN."
                ) from exc
        cur.execute(
            sql.SQL("GRANT {} TO {}").format(sql.Identifier(AGENT_SQL_ROLE), sql.Identifier(app_role))
        )
        try:
            # JIT off for the app role on the server too: through PgBouncer (MNEMOS_DB_POOLER) the
            # connection's own "-c jit=off" cannot be sent (core/dbserver.py's _options says why it is off).
            cur.execute(
                sql.SQL("ALTER ROLE {} IN DATABASE {} SET jit = off").format(
                    sql.Identifier(app_role), sql.Identifier(owner["NAME"])
                )
            )
        except psycopg.Error as exc:
            logger.warning("could not set jit off for %s (ask an administrator): %s", app_role, exc)
        cur.execute("SELECT rolsuper, rolbypassrls FROM pg_roles WHERE rolname = %s", [app_role])
        row = cur.fetchone()
        if row is None or row[0] or row[1]:
            raise BootstrapError(
                f"The application role {app_role} must be NOSUPERUSER NOBYPASSRLS, "
                "or row-level security does not protect tenants."
            )
