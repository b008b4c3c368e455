"""The ASGI application served by uvicorn: Django, with the MCP endpoint at /mcp."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup(set_prefix=False)

from config.asgi_handler import SyncChainASGIHandler  # noqa: E402

# What get_asgi_application() returns, but with the middleware chain run in one thread hop.
django_application = SyncChainASGIHandler()

from memory.mcp_http import build_mcp_asgi  # noqa: E402

application = build_mcp_asgi(django_application)
