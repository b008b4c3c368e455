"""The ASGI application served by uvicorn: Django, with the MCP endpoint at /mcp."""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from django.core.asgi import get_asgi_application

django_application = get_asgi_application()

from memory.mcp_http import build_mcp_asgi  # noqa: E402

application = build_mcp_asgi(django_application)
