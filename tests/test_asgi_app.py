"""config/asgi.py: Django served as a threaded WSGI worker (a2wsgi): each request in one long-lived
pool thread, with the middleware chain run synchronously and doing what it does under Django's own
ASGI handler."""

from __future__ import annotations

import asyncio
import threading
import uuid
from collections.abc import Callable
from typing import Any

import httpx
import pytest
from a2wsgi import WSGIMiddleware
from django.core import signals
from django.core.wsgi import get_wsgi_application
from django.db import connection
from django.http import HttpResponse, StreamingHttpResponse
from django.urls import path

from core.env import web_threads
from core.tenancy import current_tenant_or_none, tenant_context

seen: dict[str, Any] = {}


def _probe(request):
    seen["thread"] = threading.get_ident()
    seen["thread_name"] = threading.current_thread().name
    seen["has_session"] = hasattr(request, "session")
    seen["has_htmx"] = hasattr(request, "htmx")
    seen["user_is_lazy"] = hasattr(request, "user")
    return HttpResponse("ok")


def _tenant(request):
    seen.setdefault("tenant_at_start", []).append(current_tenant_or_none())
    with tenant_context(enterprise_id=request.GET["e"], door="test"):
        with connection.cursor() as cursor:
            cursor.execute("SELECT 1")
    return HttpResponse("ok")


def _parts():
    yield from (b"one ", b"two ", b"three")


def _stream(request):
    return StreamingHttpResponse(_parts())


urlpatterns = [path("probe", _probe), path("tenant", _tenant), path("stream", _stream)]


@pytest.fixture
def serve(settings, monkeypatch: pytest.MonkeyPatch) -> Callable[..., list[httpx.Response]]:
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["testserver"]
    seen.clear()

    def run(*paths: str, threads: int = 2) -> list[httpx.Response]:
        monkeypatch.setenv("MNEMOS_WEB_THREADS", str(threads))
        # What config/asgi.py builds (it is imported once per process; here one per test).
        handler = WSGIMiddleware(get_wsgi_application(), workers=web_threads())  # type: ignore[arg-type]
        seen["handler"] = handler

        async def calls() -> list[httpx.Response]:
            seen["loop_thread"] = threading.get_ident()
            transport = httpx.ASGITransport(app=handler)  # type: ignore[arg-type]
            async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
                return [await client.get(p, headers={"HX-Request": "true"}) for p in paths]

        return asyncio.run(calls())

    return run


@pytest.mark.django_db(databases=["default"])
def test_a_request_runs_every_middleware_in_a_pool_thread(serve):
    [response] = serve("/probe")
    assert response.status_code == 200 and response.text == "ok"
    # Each middleware did its part: the security and clickjacking headers, session, auth, htmx.
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert seen["has_session"] and seen["has_htmx"] and seen["user_is_lazy"]
    assert seen["thread"] != seen["loop_thread"]
    assert seen["thread_name"].startswith("WSGI")


@pytest.mark.django_db(databases=["default"])
def test_started_view_and_finished_share_one_thread_and_threads_are_reused(serve):
    threads: dict[str, list[int]] = {"started": [], "finished": []}

    def started(**_: Any) -> None:
        threads["started"].append(threading.get_ident())

    def finished(**_: Any) -> None:
        threads["finished"].append(threading.get_ident())

    signals.request_started.connect(started)
    signals.request_finished.connect(finished)
    try:
        responses = serve("/probe", "/probe", "/probe", threads=1)
    finally:
        signals.request_started.disconnect(started)
        signals.request_finished.disconnect(finished)
    assert [r.status_code for r in responses] == [200, 200, 200]
    # One thread in the pool: every request, its signals and its view ran on that same thread.
    assert len(set(threads["started"])) == 1
    assert threads["started"] == threads["finished"] == [seen["thread"]] * 3


@pytest.mark.django_db(databases=["default"])
def test_nothing_of_a_request_is_left_in_its_thread_for_the_next(serve):
    a, b = uuid.uuid4(), uuid.uuid4()
    responses = serve(f"/tenant?e={a}", f"/tenant?e={b}", f"/tenant?e={a}", threads=1)
    assert [r.status_code for r in responses] == [200, 200, 200]
    # The same thread served all three: no tenant context survived a request.
    assert seen["tenant_at_start"] == [None, None, None]
    # request_finished ran in that thread: its connection went back (closed) with the request.
    handler: WSGIMiddleware = seen["handler"]
    assert handler.executor.submit(lambda: connection.connection).result() is None


@pytest.mark.django_db(databases=["default"])
def test_a_streaming_response_is_sent_whole_then_closed(serve):
    finished: list[int] = []

    def on_finished(**_: Any) -> None:
        finished.append(threading.get_ident())

    signals.request_finished.connect(on_finished)
    try:
        [response] = serve("/stream")
    finally:
        signals.request_finished.disconnect(on_finished)
    assert response.status_code == 200 and response.text == "one two three"
    assert len(finished) == 1  # closed once, after the body went out


def test_the_pool_size_follows_the_connection_pool(monkeypatch: pytest.MonkeyPatch):
    from django.core.exceptions import ImproperlyConfigured

    from core.env import web_threads

    monkeypatch.delenv("MNEMOS_WEB_THREADS", raising=False)
    monkeypatch.delenv("MNEMOS_DB_POOL", raising=False)
    assert web_threads() == 8
    monkeypatch.setenv("MNEMOS_DB_POOL", "5")
    assert web_threads() == 5
    monkeypatch.setenv("MNEMOS_WEB_THREADS", "3")
    assert web_threads() == 3
    monkeypatch.setenv("MNEMOS_WEB_THREADS", "0")
    with pytest.raises(ImproperlyConfigured, match="MNEMOS_WEB_THREADS"):
        web_threads()


@pytest.mark.django_db(databases=["default"])
def test_the_app_served_is_django_as_a_threaded_wsgi_worker():
    from django.core.handlers.wsgi import WSGIHandler

    from config.asgi import django_application

    assert isinstance(django_application, WSGIMiddleware)
    assert isinstance(django_application.app, WSGIHandler)
    assert django_application.executor._max_workers == web_threads()


@pytest.mark.parametrize(
    "variable, counts",
    [
        ("MNEMOS_WEB_WORKERS", {None: 2, 2: 3, 16: 5}),  # a process a core and one more, up to 5
        ("MNEMOS_WORKER_CONCURRENCY", {None: 1, 2: 2, 16: 4}),  # a process a core, up to 4
    ],
)
def test_serve_sizes_its_processes_by_the_cores(monkeypatch: pytest.MonkeyPatch, variable, counts):
    import os

    from django.core.exceptions import ImproperlyConfigured

    from core.env import web_workers, worker_processes

    count = {"MNEMOS_WEB_WORKERS": web_workers, "MNEMOS_WORKER_CONCURRENCY": worker_processes}[variable]
    monkeypatch.delenv(variable, raising=False)
    for cores, expected in counts.items():
        monkeypatch.setattr(os, "cpu_count", lambda cores=cores: cores)
        assert count() == expected
    monkeypatch.setenv(variable, "2")
    assert count() == 2
    monkeypatch.setenv(variable, "0")
    with pytest.raises(ImproperlyConfigured, match=variable):
        count()
