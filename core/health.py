"""Liveness of the three things Mnemos needs: the database, the broker, a worker."""

from __future__ import annotations

from typing import Any

from celery import current_app as app
from django.conf import settings
from django.db import connection


def check_database() -> dict[str, Any]:
    try:
        with connection.cursor() as cursor:
            cursor.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
            row = cursor.fetchone()
        if row is None:
            return {"ok": False, "detail": "pgvector extension missing"}
        return {"ok": True, "detail": f"pgvector {row[0]}"}
    except Exception as exc:  # noqa: BLE001 - a health check reports, it does not raise
        return {"ok": False, "detail": type(exc).__name__}


def check_broker() -> dict[str, Any]:
    try:
        with app.connection_for_write() as conn:
            conn.ensure_connection(max_retries=1, timeout=2)
            transport = conn.transport_cls
        return {"ok": True, "detail": str(transport)}
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "detail": type(exc).__name__}


def check_worker() -> dict[str, Any]:
    try:
        replies = app.control.ping(timeout=settings.HEALTH_WORKER_TIMEOUT)
    except Exception as exc:  # noqa: BLE001
        return {"ok": False, "detail": type(exc).__name__}
    if not replies:
        return {"ok": False, "detail": "no worker answered"}
    return {
        "ok": True,
        "detail": f"{len(replies)} worker(s)",
        "workers": sorted(k for r in replies for k in r),
    }


def health_report() -> tuple[bool, dict[str, Any]]:
    database = check_database()
    broker = check_broker()
    worker = check_worker() if broker["ok"] else {"ok": False, "detail": "broker down"}
    checks = {"database": database, "broker": broker, "worker": worker}
    healthy = all(c["ok"] for c in checks.values())
    return healthy, {"status": "ok" if healthy else "fail", "checks": checks}
