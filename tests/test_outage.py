"""Errors stay in the contract during an outage (issue 18): real processes, real faults, nothing mocked.

The web server runs as a subprocess whose database is reached through a fault proxy (tests/faults.py)
in front of the session's embedded PostgreSQL, with a pool of 2 that waits at most 1 s
(``MNEMOS_DB_POOL_TIMEOUT``). Cut, the database refuses connections and drops those open; stalled, it
answers nothing. Either way every answer on /v1/ and /mcp is JSON (503 ``database_unavailable`` with
``Retry-After``), /healthz answers 503 within 2 s however many calls are waiting, and after the
restore the same calls succeed again with the same server.
"""

from __future__ import annotations

import asyncio
import threading
import time
from collections.abc import Iterator
from dataclasses import dataclass

import httpx
import httpx2
import mcp_types as types
import psycopg
import pytest
from django.conf import settings
from django.db import IntegrityError
from kombu import Connection
from kombu.exceptions import OperationalError as KombuOperationalError
from mcp import Client
from mcp.client.streamable_http import streamable_http_client
from mcp.shared.exceptions import MCPError
from pydantic import BaseModel, ConfigDict

from core.errors import (
    BrokerUnavailable,
    DatabaseUnavailable,
    ServiceUnavailable,
    unavailable_error,
)
from core.registry import ToolSpec
from tests.faults import FaultProxy
from tests.live import free_port, running_web, wait_for
from tests.standin import standin_tool

pytestmark = pytest.mark.live

POOL_TIMEOUT_S = 1
HEALTH_LIMIT_S = 2.0
# A call past the pool waits POOL_TIMEOUT_S for a connection, then answers: room for 2 slow cores.
POOL_WAIT_LIMIT_S = POOL_TIMEOUT_S + 1.5
RECOVERY_S = 15
SEARCH = {"query": "outage drill"}


@dataclass
class Answer:
    status: int
    seconds: float
    content_type: str
    retry_after: str | None
    body: dict | None
    text: str


def _answer(response: httpx.Response, started: float) -> Answer:
    content_type = response.headers.get("content-type", "")
    body = response.json() if content_type.startswith("application/json") else None
    return Answer(
        status=response.status_code,
        seconds=time.monotonic() - started,
        content_type=content_type,
        retry_after=response.headers.get("retry-after"),
        body=body,
        text=response.text,
    )


def _post(base: str, path: str, body: dict, secret: str) -> Answer:
    started = time.monotonic()
    response = httpx.post(
        f"{base}{path}", json=body, headers={"Authorization": f"Bearer {secret}"}, timeout=60
    )
    return _answer(response, started)


def _call(base: str, secret: str) -> Answer:
    return _post(base, "/v1/tools/search_memory", SEARCH, secret)


def _get(base: str, path: str, *, secret: str | None = None, cookies: dict[str, str] | None = None) -> Answer:
    started = time.monotonic()
    headers = {"Authorization": f"Bearer {secret}"} if secret else {}
    return _answer(httpx.get(f"{base}{path}", headers=headers, cookies=cookies, timeout=60), started)


def _in_parallel(count: int, call) -> tuple[list[threading.Thread], list[Answer]]:
    answers: list[Answer] = []
    threads = [threading.Thread(target=lambda: answers.append(call())) for _ in range(count)]
    for thread in threads:
        thread.start()
    return threads, answers


def _mcp_error(exc: BaseException) -> MCPError | None:
    """The MCPError in ``exc``, through the exception groups of the SDK's task groups."""
    if isinstance(exc, MCPError):
        return exc
    if isinstance(exc, BaseExceptionGroup):
        return next((e for e in map(_mcp_error, exc.exceptions) if e is not None), None)
    return None


def _is_database_unavailable(answer: Answer) -> bool:
    return (
        answer.status == 503
        and answer.body is not None
        and answer.body.get("code") == "database_unavailable"
        and answer.retry_after is not None
        and answer.retry_after.isdigit()
        and "Traceback" not in answer.text
    )


# The server under test ----------------------------------------------------------------------------


@pytest.fixture(scope="module")
def proxy() -> Iterator[FaultProxy]:
    default = settings.DATABASES["default"]
    # The embedded server listens on its Unix socket only: the proxy's upstream.
    with FaultProxy(f"{default['HOST']}/.s.PGSQL.{default['PORT']}") as proxy:
        yield proxy


@pytest.fixture(scope="module")
def web(proxy: FaultProxy, committed_world) -> Iterator[str]:
    host, port = proxy.address
    env = {
        # The owner and app roles of the embedded server (trusted on its socket), through the proxy.
        "DATABASE_URL": f"postgres://mnemos_owner@{host}:{port}/mnemos",
        "DATABASE_APP_URL": f"postgres://mnemos_app@{host}:{port}/mnemos",
        "MNEMOS_DB_POOL": "2",
        "MNEMOS_DB_POOL_TIMEOUT": str(POOL_TIMEOUT_S),
        # More request threads than connections: calls past the pool wait for it, not for a thread.
        "MNEMOS_WEB_THREADS": "8",
    }
    with running_web(env=env) as base:
        yield base


@pytest.fixture(scope="module")
def secret(committed_world) -> str:
    return committed_world.bob.keys[committed_world.b.enterprise.slug][1]


def _recovered(base: str, secret: str) -> None:
    wait_for(lambda: _call(base, secret).status == 200, timeout=RECOVERY_S, what="the calls to succeed again")


@pytest.fixture
def cut(web: str, proxy: FaultProxy, secret: str) -> Iterator[FaultProxy]:
    _recovered(web, secret)
    proxy.cut()
    try:
        yield proxy
    finally:
        proxy.restore()
        _recovered(web, secret)


@pytest.fixture
def stalled(web: str, proxy: FaultProxy, secret: str) -> Iterator[FaultProxy]:
    _recovered(web, secret)
    proxy.stall()
    try:
        yield proxy
    finally:
        proxy.restore()
        _recovered(web, secret)


# The database cut -----------------------------------------------------------------------------------


def test_a_rest_call_is_a_json_503_with_retry_after(web, secret, cut):
    answer = _call(web, secret)
    assert _is_database_unavailable(answer), answer
    assert answer.body == {
        "error": "the database is unavailable: retry in a few seconds",
        "code": "database_unavailable",
        "retry_after": int(answer.retry_after or 0),
    }
    # The REST door's own views (TenantAPIView), and a view no door guards (handler500's JSON).
    whoami = _get(web, "/v1/whoami", secret=secret)
    assert _is_database_unavailable(whoami), whoami
    partner = _post(web, "/v1/partners/serve", {}, "a-partner-credential")
    assert _is_database_unavailable(partner), partner


def test_the_console_shows_a_plain_503_page(web, cut):
    # A session cookie makes the console read its session from the database.
    page = _get(web, "/console/", cookies={"sessionid": "an-unknown-session"})
    assert page.status == 503 and page.content_type.startswith("text/html")
    assert page.retry_after is not None
    assert "unavailable" in page.text and "Traceback" not in page.text


def test_an_mcp_call_is_a_json_rpc_error(web, secret, cut):
    response = httpx.post(
        f"{web}/mcp",
        json={
            "jsonrpc": "2.0",
            "id": 7,
            "method": "tools/call",
            "params": {"name": "search_memory", "arguments": SEARCH},
        },
        headers={"Authorization": f"Bearer {secret}", "Accept": "application/json, text/event-stream"},
        timeout=60,
    )
    assert response.status_code == 503 and response.headers["content-type"].startswith("application/json")
    assert response.headers["retry-after"].isdigit()
    message = response.json()
    assert message["jsonrpc"] == "2.0" and message["id"] == 7
    assert message["error"]["code"] == types.INTERNAL_ERROR
    assert message["error"]["data"]["code"] == "database_unavailable"

    async def session() -> None:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=30)
        async with Client(streamable_http_client(f"{web}/mcp", http_client=http)) as client:
            await client.call_tool("search_memory", SEARCH)

    # The SDK's own client reads it as the server's JSON-RPC error, with the REST body as its data (raised
    # from its session's task group, while it initialises).
    with pytest.raises(BaseExceptionGroup) as raised:  # the SDK's task groups, opened below
        asyncio.run(session())
    error = _mcp_error(raised.value)
    assert error is not None and error.code == types.INTERNAL_ERROR
    assert error.data["code"] == "database_unavailable"
    assert error.message == "the database is unavailable: retry in a few seconds"


def test_healthz_is_503_within_2s_while_calls_pile_up(web, secret, cut):
    threads, answers = _in_parallel(20, lambda: _call(web, secret))
    time.sleep(0.2)  # the calls hold every request thread, waiting for the pool
    health = _get(web, "/healthz")
    for thread in threads:
        thread.join()
    assert health.status == 503 and health.seconds < HEALTH_LIMIT_S, health
    assert health.body is not None and health.body["status"] == "fail"
    assert set(health.body["checks"]) == {"database", "broker", "worker"}
    assert health.body["checks"]["database"]["ok"] is False
    assert len(answers) == 20 and all(_is_database_unavailable(a) for a in answers), answers


# The database stalled: connections open, nothing answered ------------------------------------------


def test_calls_past_the_pool_answer_503_within_its_timeout(web, secret, stalled):
    threads, answers = _in_parallel(6, lambda: _call(web, secret))
    # At most the pool's 2 connections hang on statements sent into the stall; the other calls wait
    # MNEMOS_DB_POOL_TIMEOUT for a connection, then answer, well before the 30 s of psycopg's default.
    wait_for(lambda: len(answers) >= 4, timeout=POOL_WAIT_LIMIT_S + 2, what="the calls past the pool")
    health = _get(web, "/healthz")
    waited = list(answers)
    stalled.restore()  # the hanging calls' connections close: they answer too
    for thread in threads:
        thread.join(timeout=30)
    assert len(waited) >= 4
    assert all(_is_database_unavailable(a) and a.seconds < POOL_WAIT_LIMIT_S for a in waited), waited
    assert len(answers) == 6 and all(a.status in (200, 503) and a.body is not None for a in answers), answers
    # The health check's own connection does not answer either: the report comes at its deadline.
    assert health.status == 503 and health.seconds < HEALTH_LIMIT_S, health
    assert health.body is not None and health.body["checks"]["database"]["ok"] is False


# Back ---------------------------------------------------------------------------------------------


def test_after_the_restore_the_same_calls_succeed(web, proxy, secret):
    _recovered(web, secret)
    proxy.cut()
    assert _is_database_unavailable(_call(web, secret))
    proxy.restore()
    # The pool replaces its lost connections in the background: the same server answers again.
    _recovered(web, secret)
    assert _call(web, secret).status == 200
    health = _get(web, "/healthz")
    assert health.body is not None and health.body["checks"]["database"]["ok"] is True

    async def session() -> bool:
        http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {secret}"}, timeout=30)
        async with Client(streamable_http_client(f"{web}/mcp", http_client=http)) as client:
            result = await client.call_tool("search_memory", SEARCH)
            return result.is_error

    assert asyncio.run(session()) is False


# The settings -------------------------------------------------------------------------------------


def test_the_pool_wait_is_bounded_by_its_setting(monkeypatch):
    from django.core.exceptions import ImproperlyConfigured

    from core.dbserver import POOL_RECONNECT_SECONDS, database_settings

    monkeypatch.setenv("MNEMOS_DB_POOL", "2")
    monkeypatch.setenv("DATABASE_URL", "postgres://mnemos_owner:pw@127.0.0.1:5432/mnemos")
    monkeypatch.delenv("DATABASE_APP_URL", raising=False)
    monkeypatch.delenv("MNEMOS_DB_POOL_TIMEOUT", raising=False)
    pool = database_settings()["default"]["OPTIONS"]["pool"]
    assert pool["timeout"] == 3 and pool["reconnect_timeout"] == POOL_RECONNECT_SECONDS
    monkeypatch.setenv("MNEMOS_DB_POOL_TIMEOUT", "1")
    assert database_settings()["default"]["OPTIONS"]["pool"]["timeout"] == 1
    for wrong in ("0", "soon"):
        monkeypatch.setenv("MNEMOS_DB_POOL_TIMEOUT", wrong)
        with pytest.raises(ImproperlyConfigured, match="MNEMOS_DB_POOL_TIMEOUT"):
            database_settings()


# What counts as an outage (the real exceptions of a refused database and a refused broker) ------------


def test_a_refused_database_and_a_refused_broker_are_outages():
    port = free_port()  # nothing listens there
    with pytest.raises(psycopg.OperationalError) as database:
        psycopg.connect(host="127.0.0.1", port=port, dbname="mnemos", user="mnemos_app", connect_timeout=2)
    assert isinstance(unavailable_error(database.value), DatabaseUnavailable)
    with pytest.raises(KombuOperationalError) as broker:
        Connection(f"redis://127.0.0.1:{port}/0").ensure_connection(max_retries=0, timeout=1)
    assert isinstance(unavailable_error(broker.value), BrokerUnavailable)
    # A statement's own error is no outage: it is the call's (a 500, or the tool's refusal).
    assert unavailable_error(IntegrityError("duplicate key value")) is None
    assert unavailable_error(ZeroDivisionError()) is None


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")


@pytest.fixture
def needs_the_broker() -> Iterator[ToolSpec]:
    """A tool that reaches a broker that refuses connections, as a send to it would."""
    port = free_port()

    def handler(call: object, args: _In) -> _Out:
        Connection(f"redis://127.0.0.1:{port}/0").ensure_connection(max_retries=0, timeout=1)
        return _Out()

    with standin_tool("test_needs_the_broker", handler, _In, _Out) as spec:
        yield spec


def test_a_broker_outage_is_503_broker_unavailable(client, world, needs_the_broker):
    _, secret = world.alice.keys[world.a.enterprise.slug]
    response = client.post(
        "/v1/tools/test_needs_the_broker",
        data="{}",
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
    )
    assert response.status_code == 503, response.content
    assert response.json()["code"] == "broker_unavailable"
    assert response["Retry-After"] == str(ServiceUnavailable.retry_after)


def test_an_outage_inside_the_tool_door_is_a_json_rpc_error_over_mcp(
    committed_world, secret, needs_the_broker, django_db_blocker
):
    from core.mcp_server import build_server

    async def session() -> MCPError | None:
        server = build_server(lambda ctx: secret, surface="mcp")
        async with Client(server, mode="legacy") as client:  # JSON-RPC framed, as over /mcp
            try:
                await client.call_tool(needs_the_broker.mcp_name, {})
            except MCPError as exc:
                return exc
            return None

    # In process, the SDK's client against the server /mcp runs: past the key's check, an outage comes
    # from the tool door as the same JSON-RPC error the endpoint answers before it.
    with django_db_blocker.unblock():
        error = asyncio.run(session())
    assert error is not None and error.code == types.INTERNAL_ERROR
    assert error.data == {
        "error": "the job broker is unavailable: retry in a few seconds",
        "code": "broker_unavailable",
        "retry_after": ServiceUnavailable.retry_after,
    }
