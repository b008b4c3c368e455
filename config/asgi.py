"""The ASGI application served by uvicorn: Django, with the MCP endpoint at /mcp.

Every Mnemos view is sync, so Django is served as a threaded WSGI worker serves it, through a2wsgi's
``WSGIMiddleware``: each HTTP request runs in one of ``MNEMOS_WEB_THREADS`` long-lived threads
(``request_started``, the middleware chain in sync mode, the view, ``request_finished``), and the event
loop only reads the body and sends the bytes. Django's own ``ASGIHandler`` gives every request a new
thread and runs the chain in async mode, a thread hop per middleware hook: more web CPU on every call
(measured paired, bench/RESULTS.md; docs/operations.md).
"""

from __future__ import annotations

import os

os.environ.setdefault("DJANGO_SETTINGS_MODULE", "config.settings")

from a2wsgi import WSGIMiddleware
from django.core.wsgi import get_wsgi_application

from core.env import web_threads

# django-stubs types WSGIHandler's answer as HttpResponseBase, which is the iterable of bytes WSGI asks.
django_application = WSGIMiddleware(get_wsgi_application(), workers=web_threads())  # type: ignore[arg-type]

from core.mcp_http import build_mcp_asgi  # noqa: E402

application = build_mcp_asgi(django_application)
