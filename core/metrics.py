"""Prometheus metrics: what every process counts, and what is computed when ``/metrics`` is scraped.

Counted where it happens (prometheus-client's default registry): HTTP requests (``ObservedHTTP``, in front
of the whole ASGI application), tool calls (the tool door, ``core.dispatch``), guard decisions
(``memory.services.guarding``), embeddings (the archivist), webhook deliveries (``events.services``), jobs' outcomes (``accounts.tasks.TenantTask``)
and the web server's connection pool. Under ``manage.py serve`` several processes count (uvicorn's
workers, Celery's pool): serve sets ``PROMETHEUS_MULTIPROC_DIR`` and every process writes its values to
files there, which a scrape sums (prometheus-client's multiprocess mode). Values that live in the
database (the archivist's queue) are read at scrape time by the probes apps install
(``scrape_probe_install``). No label names an enterprise: every label's values are a short, fixed list.
docs/operations.md, "Metrics and logs".
"""

from __future__ import annotations

import logging
import os
import threading
import time
import uuid
from collections.abc import Callable, Iterable
from typing import Any

from prometheus_client import REGISTRY, CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector
from prometheus_client.registry import Collector
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from core.logs import access_logger
from core.tenancy import request_id_fits

logger = logging.getLogger(__name__)

LATENCY_BUCKETS = (0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0)

HTTP_REQUESTS = Counter(
    "mnemos_http_requests", "HTTP requests answered, by route group and status code", ["route", "status"]
)
HTTP_LATENCY = Histogram(
    "mnemos_http_request_duration_seconds",
    "Time to answer an HTTP request (to the end of its body), by route group",
    ["route"],
    buckets=LATENCY_BUCKETS,
)
TOOL_CALLS = Counter(
    "mnemos_tool_calls",
    "Tool calls through the tool door, by tool, surface and status ('ok' or the error's code)",
    ["tool", "surface", "status"],
)
TOOL_LATENCY = Histogram(
    "mnemos_tool_call_duration_seconds",
    "Time of a tool call in the tool door, by tool",
    ["tool"],
    buckets=LATENCY_BUCKETS,
)
GUARD_DECISIONS = Counter(
    "mnemos_guard_decisions",
    "Memory Guard scans of texts to be stored: accept, reject_rule, reject_model",
    ["decision"],
)
GUARD_REDACTIONS = Counter("mnemos_guard_redactions", "Secrets Memory Guard redacted from texts to be stored")
EMBEDDINGS = Counter("mnemos_embeddings", "Memories the archivist embedded")
WEBHOOK_DELIVERIES = Counter(
    "mnemos_webhook_deliveries",
    "Webhook delivery tries by outcome: delivered, retrying, failed (retries spent), endpoint_disabled",
    ["outcome"],
)
JOBS = Counter("mnemos_jobs", "Outbox jobs by task and outcome: done, failed, retried", ["task", "outcome"])
# The web server's psycopg pool (MNEMOS_DB_POOL), summed over its live processes.
POOL_STATS = {
    "pool_max": "mnemos_db_pool_max_connections",
    "pool_size": "mnemos_db_pool_connections",
    "pool_available": "mnemos_db_pool_available_connections",
    "requests_waiting": "mnemos_db_pool_requests_waiting",
}
POOL_GAUGES = {
    stat: Gauge(name, f"The web server's connection pool: {stat} (psycopg_pool)", multiprocess_mode="livesum")
    for stat, name in POOL_STATS.items()
}
POOL_TIMEOUTS = Counter(
    "mnemos_db_pool_errors",
    "Requests for a pooled connection that failed (a wait past MNEMOS_DB_POOL_TIMEOUT)",
)

# -- route groups ------------------------------------------------------------------------------------

ROUTE_GROUPS = (
    ("/v1/tools/", "tools"),
    ("/v1/", "api"),
    ("/mcp", "mcp"),
    ("/console/", "console"),
    ("/admin/", "admin"),
    ("/static/", "static"),
    ("/healthz", "health"),
    ("/metrics", "metrics"),
)
# Not written to the access log (probes and scrapes, every few seconds); counted all the same.
QUIET_ROUTES = frozenset({"health", "metrics", "static"})


def route_group(path: str) -> str:
    for prefix, group in ROUTE_GROUPS:
        if path.startswith(prefix):
            return group
    return "other"


def tool_call_observe(
    *, tool: str, surface: str, status: str, seconds: float, request_id: str, enterprise_id: str | None
) -> None:
    """One tool call: its counter, its latency and its access line (no query, no content)."""
    TOOL_CALLS.labels(tool, surface, status).inc()
    TOOL_LATENCY.labels(tool).observe(seconds)
    access_logger().info(
        "tool.call",
        tool=tool,
        surface=surface,
        status=status,
        duration_ms=round(seconds * 1000, 2),
        request_id=request_id,
        **({"enterprise_id": enterprise_id} if enterprise_id else {}),
    )


# -- the connection pool -----------------------------------------------------------------------------

_pool_seen = {"errors": 0, "at": 0.0}
_pool_lock = threading.Lock()


def pool_observe(*, every: float = 0.0) -> None:
    """This process's pool into the gauges (at most once per ``every`` seconds); nothing without a pool."""
    now = time.monotonic()
    with _pool_lock:
        if now - _pool_seen["at"] < every:
            return
        _pool_seen["at"] = now
    from django.db import connections

    if "pool" not in connections.settings["default"].get("OPTIONS", {}):
        return
    try:
        pool = connections["default"].pool  # type: ignore[attr-defined]
        stats = pool.get_stats() if pool is not None else None
    except Exception:  # noqa: BLE001 - a metric never fails the request that updates it
        return
    if not stats:
        return
    for stat, gauge in POOL_GAUGES.items():
        gauge.set(stats.get(stat, 0))
    errors = int(stats.get("requests_errors", 0))
    with _pool_lock:
        new, _pool_seen["errors"] = errors - int(_pool_seen["errors"]), errors
    if new > 0:
        POOL_TIMEOUTS.inc(new)


# -- scrape-time probes ------------------------------------------------------------------------------

Probe = Callable[[], Iterable[Any]]
_probes: dict[str, Probe] = {}


def scrape_probe_install(name: str, probe: Probe) -> None:
    """A function run at each scrape, yielding metric families (an app's ``ready``: the archivist's
    queue, read from the database); installing a name again replaces it."""
    _probes[name] = probe


class _ProbeCollector(Collector):
    def collect(self) -> Iterable[Any]:
        for name, probe in list(_probes.items()):
            try:
                yield from probe()
            except Exception as exc:  # noqa: BLE001 - the other metrics are still served
                logger.warning("metrics probe %s failed: %s", name, exc)


def multiprocess_dir() -> str | None:
    return os.environ.get("PROMETHEUS_MULTIPROC_DIR") or None


def metrics_exposition() -> bytes:
    """The text a scrape gets: every process's counters (the multiprocess files, or this process's
    registry) and the probes' values, computed now."""
    pool_observe()
    if multiprocess_dir():
        processes = CollectorRegistry()
        MultiProcessCollector(processes)
        counted = generate_latest(processes)
    else:
        counted = generate_latest(REGISTRY)
    probed = CollectorRegistry()  # auto_describe off: registering does not run the probes
    probed.register(_ProbeCollector())
    return counted + generate_latest(probed)


# -- HTTP, in front of everything --------------------------------------------------------------------


class ObservedHTTP:
    """Counts and times every HTTP request by route group and status, gives it a request id (the
    caller's ``X-Request-Id`` when it fits, else a fresh one, passed on to Django and the tool door as
    that header and sent back in the answer), and writes its access line."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        started = time.perf_counter()
        headers = [(k, v) for k, v in scope.get("headers", []) if k.lower() != b"x-request-id"]
        given = next((v for k, v in scope.get("headers", []) if k.lower() == b"x-request-id"), None)
        request_id = given.decode("latin-1") if given is not None else ""
        if not request_id_fits(request_id):
            request_id = uuid.uuid4().hex
        raw_id = request_id.encode("latin-1")
        scope = {**scope, "headers": [*headers, (b"x-request-id", raw_id)]}
        status = 500

        async def watched(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = int(message["status"])
                message = {**message, "headers": [*message.get("headers", []), (b"x-request-id", raw_id)]}
            await send(message)

        try:
            await self.app(scope, receive, watched)
        finally:
            seconds = time.perf_counter() - started
            route = route_group(scope.get("path", ""))
            HTTP_REQUESTS.labels(route, str(status)).inc()
            HTTP_LATENCY.labels(route).observe(seconds)
            if route not in QUIET_ROUTES:
                access_logger().info(
                    "http.request",
                    method=str(scope.get("method", ""))[:16],
                    path=scope.get("path", "")[:200],
                    route=route,
                    status=status,
                    duration_ms=round(seconds * 1000, 2),
                    request_id=request_id,
                )
            pool_observe(every=1.0)
