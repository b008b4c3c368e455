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


def _database_params(alias: str = DEFAULT_DB_ALIAS) -> dict[str, Any]:
    """The app role's connection settings (``DATABASES[alias]``), outside the pool, with short timeouts."""
    params = connections[alias].get_connection_params()
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


def check_replica(alias: str) -> dict[str, Any]:
    """One read replica's state and lag, on a connection of its own, judged as core/dbrouting.py judges it."""
    from core.dbrouting import LAG_SQL, down_detail, replica_verdict

    try:
        with psycopg.connect(**_database_params(alias)) as conn:
            row = conn.execute(LAG_SQL).fetchone()
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "lag_seconds": None, "detail": down_detail(exc)}
    assert row is not None
    ok, lag, detail = replica_verdict(bool(row[0]), float(row[1]))
    if lag is not None and not ok:
        detail += ": reads go to the primary"
    return {"ok": ok, "lag_seconds": None if lag is None else round(lag, 3), "detail": detail}


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
    """The three checks decide the status; each read replica is reported beside them (a replica down or
    lagging only sends reads to the primary, so it never fails the node)."""
    from core.dbrouting import replica_aliases

    replicas = replica_aliases()
    everything: dict[str, Check] = {
        "database": check_database,
        "broker": check_broker,
        "worker": check_worker,
    }
    for alias in replicas:
        everything[alias] = lambda alias=alias: check_replica(alias)  # type: ignore[misc]
    results = _within(everything, deadline)
    checks = {name: results[name] for name in ("database", "broker", "worker")}
    if not checks["broker"]["ok"]:  # the ping went nowhere: say why
        checks["worker"] = {"ok": False, "detail": "broker down"}
    healthy = all(c["ok"] for c in checks.values())
    report: dict[str, Any] = {"status": "ok" if healthy else "fail", "checks": checks}
    if replicas:
        report["replicas"] = {alias: results[alias] for alias in replicas}
    return healthy, report


NO_STORE = {"Cache-Control": "max-age=0, no-cache, no-store, must-revalidate, private"}


async def health_endpoint(request: Request) -> JSONResponse:
    """``GET /healthz`` under uvicorn (core/mcp_http.py routes it before Django): the report in a thread
    of its own, never queued behind the threads that serve Django's requests."""
    healthy, report = await run_in_threadpool(health_report)
    return JSONResponse(report, status_code=200 if healthy else 503, headers=NO_STORE)
