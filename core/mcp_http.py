"""Streamable HTTP for MCP at /mcp, in front of Django, in one ASGI application."""

from __future__ import annotations

import json
from typing import Any

from asgiref.sync import sync_to_async
from django.conf import settings
from mcp.server.streamable_http_manager import StreamableHTTPASGIApp, StreamableHTTPSessionManager
from mcp.server.transport_security import TransportSecuritySettings
from starlette.applications import Starlette
from starlette.routing import Mount, Route
from starlette.types import ASGIApp, Receive, Scope, Send

from core.dispatch import gate
from core.errors import MnemosError, PayloadTooLarge
from core.http import bearer_secret
from core.inputs import BODY_TOO_LARGE
from core.mcp_server import build_server, http_secret


async def _refuse(send: Send, error: MnemosError) -> None:
    body = json.dumps(error.as_dict()).encode()
    headers = [(b"content-type", b"application/json"), (b"content-length", str(len(body)).encode())]
    if error.http_status == 401:
        headers.append((b"www-authenticate", b'Bearer realm="mnemos"'))
    await send({"type": "http.response.start", "status": error.http_status, "headers": headers})
    await send({"type": "http.response.body", "body": body})


class RequireAccessKey:
    """401 with a JSON body before any MCP work when the bearer key is missing or not valid; 413 for a
    body over ``TOOL_BODY_MAX_BYTES`` (the SDK reads any body whole before it parses it)."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            try:
                await sync_to_async(gate().identify)(secret=bearer_secret(headers.get("authorization")))
            except MnemosError as exc:
                await _refuse(send, exc)
                return
            if scope.get("method") == "POST":
                body = await _body_within(receive, settings.TOOL_BODY_MAX_BYTES)
                if body is None:
                    await _refuse(send, PayloadTooLarge(BODY_TOO_LARGE, code="payload_too_large"))
                    return
                receive = _replay(body, receive)
        await self.app(scope, receive, send)


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
            Mount("/", app=django_app),
        ],
        lifespan=lambda app: manager.run(),
    )
