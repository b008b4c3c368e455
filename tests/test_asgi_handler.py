"""config/asgi_handler.py: the ASGI app runs Django's middleware chain synchronously, in one thread hop,
with the same middleware doing the same things as under Django's own handler."""

from __future__ import annotations

import asyncio
import threading

import httpx
import pytest
from asgiref.sync import iscoroutinefunction
from django.http import HttpResponse
from django.urls import path

from config.asgi_handler import SyncChainASGIHandler

seen: dict[str, object] = {}


def _probe(request):
    seen["thread"] = threading.get_ident()
    seen["has_session"] = hasattr(request, "session")
    seen["has_htmx"] = hasattr(request, "htmx")
    seen["user_is_lazy"] = hasattr(request, "user")
    return HttpResponse("ok")


urlpatterns = [path("probe", _probe)]


def test_the_chain_is_built_in_sync_mode():
    from django.core.handlers.asgi import ASGIHandler

    # Django's own chain is awaited from the event loop (here a SyncToAsync: WhiteNoise is sync-only);
    # this handler's is a plain callable, run in one sync_to_async by get_response_async.
    assert iscoroutinefunction(ASGIHandler()._middleware_chain)
    assert not iscoroutinefunction(SyncChainASGIHandler()._middleware_chain)


@pytest.mark.django_db(databases=["default"])
def test_a_request_runs_every_middleware_off_the_event_loop(settings):
    settings.ROOT_URLCONF = __name__
    settings.ALLOWED_HOSTS = ["testserver"]
    handler = SyncChainASGIHandler()

    async def call() -> httpx.Response:
        seen["loop_thread"] = threading.get_ident()
        transport = httpx.ASGITransport(app=handler)
        async with httpx.AsyncClient(transport=transport, base_url="http://testserver") as client:
            return await client.get("/probe", headers={"HX-Request": "true"})

    response = asyncio.run(call())
    assert response.status_code == 200 and response.text == "ok"
    # Each middleware did its part: the security and clickjacking headers, session, auth, htmx.
    assert response.headers["X-Frame-Options"] == "DENY"
    assert response.headers["X-Content-Type-Options"] == "nosniff"
    assert seen["has_session"] and seen["has_htmx"] and seen["user_is_lazy"]
    assert seen["thread"] != seen["loop_thread"]


@pytest.mark.django_db(databases=["default"])
def test_the_app_served_is_the_sync_chain_handler():
    from config.asgi import django_application

    assert isinstance(django_application, SyncChainASGIHandler)
