"""Streamable HTTP for MCP at /mcp and the health report at /healthz, in front of Django, in one ASGI
application."""

from __future__ import annotations

import json
import uuid
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from core.dispatch import gate
from core.errors import InternalError, MnemosError, PayloadTooLarge, ServiceUnavailable, failure_error
from core.health import health_endpoint
from core.http import bearer_secret
from core.inputs import BODY_TOO_LARGE
from core.mcp_server import build_server, http_secret, server_error
from core.metrics import ObservedHTTP
from core.metrics_http import metrics_endpoint


async def _refuse(send: Send, error: MnemosError, *, body: dict[str, Any] | None = None) -> None:
    """``error`` as an HTTP answer: its status and headers, ``body`` or the error's ``{"error", "code"}``."""
    content = json.dumps(error.as_dict() if body is None else body).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(content)).encode())]
    headers += [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in error.http_headers().items()]
    await send({"type": "http.response.start", "status": error.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": content})


async def _fail(send: Send, error: MnemosError, body: bytes | None) -> None:
    """An outage (503, ``Retry-After``) or a crash (500) as the JSON-RPC error an MCP client reads at any
    status (the SDK's client raises it as an ``MCPError``), to the request's id when its body names one;
    ``data`` is the REST body."""
    await _refuse(
        send,
        error,
        body={
            "jsonrpc": "2.0",
            "id": _jsonrpc_id(body),
            "error": server_error(error).error.model_dump(mode="json", exclude_none=True),
        },
    )


def _jsonrpc_id(body: bytes | None) -> str | int | None:
    try:
        message = json.loads(body) if body else None
    except ValueError:
        return None
    found = message.get("id") if isinstance(message, dict) else None
    return found if isinstance(found, (str, int)) and not isinstance(found, bool) else None


class RequireAccessKey:
    """401 with a JSON body before any MCP work when the bearer key is missing or not valid; 413 for a
    body over ``TOOL_BODY_MAX_BYTES`` (the SDK reads any body whole before it parses it). When the
    database is down (or anything fails before the SDK answers), a JSON-RPC error at 503 (500), never
    the server's plain-text page."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
        posted = scope.get("method") == "POST"
        try:
            await sync_to_async(gate().identify)(secret=bearer_secret(headers.get("authorization")))
        except Exception as exc:  # noqa: BLE001 - a refusal, or an outage or crash failure_error logs
            error = failure_error(exc, request_id=uuid.uuid4().hex, where="MCP")
            if isinstance(error, (ServiceUnavailable, InternalError)):
                # The key could not be checked: its body is read only for the JSON-RPC id to answer.
                await _fail(
                    send, error, await _body_within(receive, settings.TOOL_BODY_MAX_BYTES) if posted else None
                )
            else:
                await _refuse(send, error)
            return
        body: bytes | None = None
        if posted:
            body = await _body_within(receive, settings.TOOL_BODY_MAX_BYTES)
            if body is None:
                await _refuse(send, PayloadTooLarge(BODY_TOO_LARGE, code="payload_too_large"))
                return
            receive = _replay(body, receive)
        started = False

        async def watched(message: Any) -> None:
            nonlocal started
            started = started or message["type"] == "http.response.start"
            await send(message)

        try:
            await self.app(scope, receive, watched)
        except Exception as exc:
            if started:  # the answer is on its way: nothing else can be said
                raise
            await _fail(send, failure_error(exc, request_id=uuid.uuid4().hex, where="MCP"), body)


async def _body_within(receive: Receive, limit: int) -> bytes | None:
    """The request's body, or None past ``limit`` bytes (read no further)."""
    chunks: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] != "http.request":  # the client went away: nobody reads the answer
            break
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > limit:
            return None
        chunks.append(chunk)
        if not message.get("more_body", False):
            break
    return b"".join(chunks)


def _replay(body: bytes, receive: Receive) -> Receive:
    """A receive that gives the body read already, then what the client sends (its disconnect)."""
    pending = [{"type": "http.request", "body": body, "more_body": False}]

    async def replayed() -> Any:
        return pending.pop() if pending else await receive()

    return replayed


def _security() -> TransportSecuritySettings:
    hosts = [h for h in settings.ALLOWED_HOSTS if h != "*"]
    if "*" in settings.ALLOWED_HOSTS:
        return TransportSecuritySettings(enable_dns_rebinding_protection=False)
    allowed = [f"{h}:*" for h in hosts] + hosts
    origins = [f"{scheme}://{h}:*" for h in hosts for scheme in ("http", "https")] + [
        f"{scheme}://{h}" for h in hosts for scheme in ("http", "https")
    ]
    return TransportSecuritySettings(
        enable_dns_rebinding_protection=True, allowed_hosts=allowed, allowed_origins=origins
    )


def build_mcp_asgi(django_app: Any) -> Starlette:
    server = build_server(http_secret, surface="mcp")
    manager = StreamableHTTPSessionManager(
        app=server, stateless=True, json_response=False, security_settings=_security()
    )
    endpoint = RequireAccessKey(StreamableHTTPASGIApp(manager))
    return Starlette(
        routes=[
            Route("/mcp", endpoint=endpoint),
            Route("/mcp/", endpoint=endpoint),
            # In front of Django: the health report never queues behind the threads serving requests.
            Route("/healthz", endpoint=health_endpoint, methods=["GET"]),
            Route("/metrics", endpoint=metrics_endpoint, methods=["GET"]),
            Mount("/", app=django_app),
        ],
        # Every request counted and timed, with its request id (core/metrics.py).
        middleware=[Middleware(ObservedHTTP)],
        lifespan=lambda app: manager.run(),
    )
