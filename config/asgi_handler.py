"""Django under ASGI with its middleware run synchronously, in one thread hop a request.

Django's own ``ASGIHandler`` builds the middleware chain in async mode. Every middleware built on
``MiddlewareMixin`` then runs each of its ``process_request`` / ``process_response`` hooks through
``sync_to_async`` (a thread hop each), and a sync-only one (WhiteNoise) makes the chain hop back to the
event loop and out again; the views themselves are all sync. Measured through the save path (bench/
RESULTS.md, write throughput): run this way the chain takes ~1 ms of web CPU a save less.

This handler loads the same ``MIDDLEWARE`` in sync mode and runs the whole chain, view included, in one
``sync_to_async`` call, as the WSGI handler would: the same middleware, the same order, the same
behaviour; only the thread hops go. Mnemos has no async views (the MCP endpoint is served by the SDK
beside Django, config/asgi.py); an async view would still work, adapted by Django with ``async_to_sync``.
"""

from __future__ import annotations

from asgiref.sync import sync_to_async
from django.core.handlers.asgi import ASGIHandler
from django.http import HttpRequest, HttpResponseBase


class SyncChainASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        # Reload in sync mode: _middleware_chain becomes a plain callable ending in the sync
        # _get_response (BaseHandler.get_response calls it).
        self.load_middleware(is_async=False)

    async def get_response_async(self, request: HttpRequest) -> HttpResponseBase:
        response: HttpResponseBase = await sync_to_async(self.get_response, thread_sensitive=True)(request)
        return response
