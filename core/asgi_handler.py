"""Django under ASGI as under a threaded WSGI server: one hop a request into a long-lived thread pool.

Django's own ``ASGIHandler`` opens a ``ThreadSensitiveContext`` per request, so every request gets a
new thread, and everything Django and its libraries keep per thread starts over each time: the
database connection wrapper (and its checkout from the pool), Celery's result-backend object, kombu's
producer state. It also builds the middleware chain in async mode, where every ``MiddlewareMixin``
hook runs through ``sync_to_async`` (a thread hop each) and a sync-only one (WhiteNoise) sends the
chain back to the event loop and out again; and it runs the ``request_started`` signal, the view and
``response.close()`` as three separate hops. Mnemos' views are all sync.

This handler loads the same ``MIDDLEWARE`` in sync mode and serves each HTTP request with one call
into a fixed pool of ``MNEMOS_WEB_THREADS`` threads (default: the connection pool's size, else 8):
``request_started``, the request, the middleware chain and view, and, for a response whose body is
already in memory, ``response.close()`` (``request_finished``), all in that one thread, as a threaded
WSGI worker (gunicorn's gthread) runs them. The event loop only reads the body and sends the
response. Measured through the save path, back to back on one server (bench/RESULTS.md): ~4 ms of web
CPU a save less than Django's handler, ~1 ms of it from keeping each thread's own context.

A thread keeps its context between requests, as a WSGI thread does; what Mnemos sets per request is
transaction-local in the database and reset through context-variable tokens (core.tenancy).
Streaming responses (WhiteNoise's files) are closed after they are sent, in whichever pool thread is
free; their view thread's connection goes back to the pool at its next ``request_started``.
"""

from __future__ import annotations

import asyncio
from concurrent.futures import ThreadPoolExecutor
from typing import Any

from django.core import signals
from django.core.exceptions import RequestAborted
from django.core.handlers.asgi import ASGIHandler, get_script_prefix
from django.http import FileResponse, HttpResponseBase
from django.urls import set_script_prefix

from core.env import web_threads


class PooledSyncASGIHandler(ASGIHandler):
    def __init__(self) -> None:
        super().__init__()
        # Reload in sync mode: _middleware_chain becomes a plain callable ending in the sync
        # _get_response (BaseHandler.get_response calls it).
        self.load_middleware(is_async=False)
        self.threads = web_threads()
        self._executor = ThreadPoolExecutor(max_workers=self.threads, thread_name_prefix="django-request")

    async def __call__(self, scope: dict[str, Any], receive: Any, send: Any) -> None:
        if scope["type"] != "http":  # Django's own refusal of what it cannot serve
            await super().__call__(scope, receive, send)
            return
        try:
            body_file = await self.read_body(receive)
        except RequestAborted:
            return
        set_script_prefix(get_script_prefix(scope))
        loop = asyncio.get_running_loop()
        try:
            response, closed = await loop.run_in_executor(self._executor, self._respond, scope, body_file)
            try:
                await self.send_response(response, send)
            except asyncio.CancelledError:  # the client went away while we sent
                pass
            finally:
                if not closed:
                    await loop.run_in_executor(self._executor, response.close)
        finally:
            body_file.close()

    def _respond(self, scope: dict[str, Any], body_file: Any) -> tuple[HttpResponseBase, bool]:
        """Everything Django does for a request up to the bytes: in this one pool thread."""
        signals.request_started.send(sender=self.__class__, scope=scope)
        request, error_response = self.create_request(scope, body_file)
        response: HttpResponseBase | None = error_response if request is None else self.get_response(request)
        if response is None:  # create_request gives a request or an error response, never neither
            raise RuntimeError("no response for the request")
        response._handler_class = self.__class__  # type: ignore[attr-defined]
        if isinstance(response, FileResponse):
            response.block_size = self.chunk_size  # as Django's handler: the server does the chunking
        if response.streaming:
            return response, False
        response.close()  # the body is in memory: request_finished in the thread that did the work
        return response, True
