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

from accounts.errors import MnemosError
from accounts.selectors.keys import access_key_identify, bearer_secret
from memory.mcp_server import build_server, http_secret


class RequireAccessKey:
    """401 with a JSON body before any MCP work when the bearer key is missing or not valid."""

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "http":
            headers = {k.decode("latin-1").lower(): v.decode("latin-1") for k, v in scope.get("headers", [])}
            try:
                await sync_to_async(access_key_identify)(secret=bearer_secret(headers.get("authorization")))
            except MnemosError as exc:
                body = json.dumps(exc.as_dict()).encode()
                await send(
                    {
                        "type": "http.response.start",
                        "status": exc.http_status,
                        "headers": [
                            (b"content-type", b"application/json"),
                            (b"www-authenticate", b'Bearer realm="mnemos"'),
                            (b"content-length", str(len(body)).encode()),
                        ],
                    }
                )
                await send({"type": "http.response.body", "body": body})
                return
        await self.app(scope, receive, send)


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
