"""Liveness of the three things Mnemos needs: the database, the broker, a worker.

The report comes within ``HEALTH_DEADLINE_SECONDS`` whatever is down: the three checks run at once, each in
a thread of its own with its own short timeout, and a check still running at the deadline is reported
down ("no answer within ..."). The database check opens a connection of its own (1 s to connect, 1 s per
statement), so it never waits behind the connection pool that requests share; under uvicorn the
report is served in front of Django (``health_endpoint``), so it never waits behind the threads that
serve requests either.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Any

import psycopg
from celery import current_app as app
from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import JSONResponse

# The whole report's bound: under the 2 s a load balancer's probe usually allows, with room for the answer.
HEALTH_DEADLINE_SECONDS = 1.5
# libpq counts whole seconds, and psycopg waits 2 s at least: the deadline above is the real bound.
CONNECT_TIMEOUT_SECONDS = 1
STATEMENT_TIMEOUT_MS = 1000
BROKER_TIMEOUT_SECONDS = 1.0

Check = Callable[[], dict[str, Any]]


def _database_params() -> dict[str, Any]:
    """The app role's connection settings (``DATABASES["default"]``), outside the pool, with short timeouts."""
    params = connections[DEFAULT_DB_ALIAS].get_connection_params()
    options = f"{params.get('options', '')} -c statement_timeout={STATEMENT_TIMEOUT_MS}".strip()
    return {**params, "connect_timeout": CONNECT_TIMEOUT_SECONDS, "options": options, "autocommit": True}


def check_database() -> dict[str, Any]:
    try:
        with psycopg.connect(**_database_params()) as conn:
            row = conn.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'").fetchone()
        if row is None:
            return {"ok": False, "detail": "pgvector extension missing"}
        return {"ok": True, "detail": f"pgvector {row[0]}"}
    except Exception as exc:  # noqa: BLE001 - a health check reports, it does not raise
        return {"ok": False, "detail": type(exc).__name__}


def check_broker() -> dict[str, Any]:
    try:
        with app.connection_for_write() as conn:
            # One attempt, no retry: a broker that does not answer within the timeout is down.
            conn.ensure_connection(max_retries=0, timeout=BROKER_TIMEOUT_SECONDS)
            transport = conn.transport_cls
        return {"ok": True, "detail": str(transport)}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "detail": type(exc).__name__}


def check_worker() -> dict[str, Any]:
    try:
        # The first answer is enough: without a limit the ping waits out its whole timeout for more,
        # and every green /healthz took a second.
        # On a connection of its own: kombu remembers per connection which queues it declared, and a
        # ping from a thread with a reused ident has the reply queue of a finished one (deleted with
        # it): on a shared connection it was not declared again, the reply found no queue, and a
        # healthy worker read "no worker answered" (the embedded broker, bench/chaos).
        with app.connection_for_write() as connection:
            replies = app.control.ping(timeout=settings.HEALTH_WORKER_TIMEOUT, limit=1, connection=connection)
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "detail": type(exc).__name__}
    if not replies:
        return {"ok": False, "detail": "no worker answered"}
    return {
        "ok": True,
        "detail": f"{len(replies)} worker(s)",
        "workers": sorted(k for r in replies for k in r),
    }


def _within(checks: dict[str, Check], deadline: float) -> dict[str, dict[str, Any]]:
    """Every check at once, each in a daemon thread; one still running at the deadline is reported down
    (its thread ends on its own timeout)."""
    results: dict[str, dict[str, Any]] = {}

    def run(name: str, check: Check) -> None:
        results[name] = check()

    threads = [
        threading.Thread(target=run, args=(name, check), name=f"health-{name}", daemon=True)
        for name, check in checks.items()
    ]
    end = time.monotonic() + deadline
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(max(0.0, end - time.monotonic()))
    late = {"ok": False, "detail": f"no answer within {deadline:g} s"}
    return {name: results.get(name, late) for name in checks}


def health_report(deadline: float = HEALTH_DEADLINE_SECONDS) -> tuple[bool, dict[str, Any]]:
    checks = _within({"database": check_database, "broker": check_broker, "worker": check_worker}, deadline)
    if not checks["broker"]["ok"]:  # the ping went nowhere: say why
        checks["worker"] = {"ok": False, "detail": "broker down"}
    healthy = all(c["ok"] for c in checks.values())
    return healthy, {"status": "ok" if healthy else "fail", "checks": checks}


NO_STORE = {"Cache-Control": "max-age=0, no-cache, no-store, must-revalidate, private"}


async def health_endpoint(request: Request) -> JSONResponse:
    """``GET /healthz`` under uvicorn (core/mcp_http.py routes it before Django): the report in a thread
    of its own, never queued behind the threads that serve Django's requests."""
    healthy, report = await run_in_threadpool(health_report)
    return JSONResponse(report, status_code=200 if healthy else 503, headers=NO_STORE)
