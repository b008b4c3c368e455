"""The ASGI application served by uvicorn: Django, with the MCP endpoint at /mcp."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

import django

django.setup(set_prefix=False)

from core.asgi_handler import PooledSyncASGIHandler  # noqa: E402

# What get_asgi_application() returns, but served as a threaded WSGI worker would: one hop a request
# into a long-lived thread pool, the middleware chain run synchronously.
django_application = PooledSyncASGIHandler()

from core.mcp_http import build_mcp_asgi  # noqa: E402

application = build_mcp_asgi(django_application)
