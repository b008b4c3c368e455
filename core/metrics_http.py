"""``GET /metrics``: the Prometheus exposition, for whoever holds ``MNEMOS_METRICS_TOKEN``.

With the token set, a request must carry ``Authorization: Bearer <token>`` (compared in constant time).
Without it, only a request from the machine itself (127.0.0.1 or ::1) that no proxy forwarded (no
``X-Forwarded-For`` or ``Forwarded`` header) is served: a reverse proxy on the same machine connects from
127.0.0.1 too. Every refusal is the plain 404 of a page that does not exist. Under uvicorn the endpoint is
served in front of Django (``core.mcp_http``), as ``/healthz`` is, so a scrape never queues behind the
request threads; under WSGI it is ``metrics_view`` (config/urls.py).
"""

from __future__ import annotations

import hmac
import threading
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from django.conf import settings
from django.db import connections
from django.http import HttpRequest, HttpResponse, HttpResponseNotFound
from django.views.decorators.cache import never_cache
from django.views.decorators.http import require_GET
from prometheus_client import CONTENT_TYPE_LATEST
from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import PlainTextResponse, Response

from core.health import NO_STORE
from core.http import bearer_secret
from core.metrics import metrics_exposition

LOOPBACK = frozenset({"127.0.0.1", "::1", "::ffff:127.0.0.1"})


def metrics_allowed(*, authorization: str | None, client: str | None, forwarded: bool) -> bool:
    token = settings.METRICS_TOKEN
    if token:
        presented = bearer_secret(authorization)
        return presented is not None and hmac.compare_digest(presented.encode(), token.encode())
    return client in LOOPBACK and not forwarded


def _exposition_closing() -> bytes:
    """The exposition in a thread of Starlette's pool; the connection its probes used is given back."""
    try:
        return metrics_exposition()
    finally:
        connections.close_all()  # this thread's only


async def metrics_endpoint(request: Request) -> Response:
    allowed = metrics_allowed(
        authorization=request.headers.get("authorization"),
        client=request.client.host if request.client else None,
        forwarded="x-forwarded-for" in request.headers or "forwarded" in request.headers,
    )
    if not allowed:
        return PlainTextResponse("Not Found", status_code=404)
    body = await run_in_threadpool(_exposition_closing)
    return Response(body, media_type=CONTENT_TYPE_LATEST, headers=NO_STORE)


@never_cache
@require_GET
def metrics_view(request: HttpRequest) -> HttpResponse:
    allowed = metrics_allowed(
        authorization=request.headers.get("Authorization"),
        client=request.META.get("REMOTE_ADDR"),
        forwarded="X-Forwarded-For" in request.headers or "Forwarded" in request.headers,
    )
    if not allowed:
        return HttpResponseNotFound("Not Found", content_type="text/plain")
    return HttpResponse(metrics_exposition(), content_type=CONTENT_TYPE_LATEST)


def metrics_serve(host: str, port: int) -> ThreadingHTTPServer:
    """``/metrics`` on a port of its own, for a process that serves no HTTP (``serve --role worker``: its
    worker's counters, from ``PROMETHEUS_MULTIPROC_DIR``), under the same rule as the web's; the caller
    calls ``shutdown()``. The standard library's server: one scrape every few seconds needs no more."""

    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            allowed = self.path.split("?", 1)[0] == "/metrics" and metrics_allowed(
                authorization=self.headers.get("Authorization"),
                client=self.client_address[0],
                forwarded="X-Forwarded-For" in self.headers or "Forwarded" in self.headers,
            )
            if allowed:
                body, status, kind = _exposition_closing(), 200, CONTENT_TYPE_LATEST
            else:
                body, status, kind = b"Not Found", 404, "text/plain"
            self.send_response(status)
            self.send_header("Content-Type", kind)
            self.send_header("Content-Length", str(len(body)))
            self.send_header("Cache-Control", "no-store")
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: object) -> None:  # scrapes are not logged, as on the web
            return

    server = ThreadingHTTPServer((host, port), Handler)
    server.daemon_threads = True
    threading.Thread(target=server.serve_forever, name="metrics", daemon=True).start()
    return server
