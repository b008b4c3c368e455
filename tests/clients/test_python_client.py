"""The Python client (clients/python, ``mnemos_client``) against a live Mnemos.

A real web server on a loopback port over the test database, alice's real access key; where a test
needs an answer Mnemos would not give now (a 429 with ``Retry-After``, a lost answer), a loopback stub
stands in front of the server and gives it, forwarding everything else. The drift tests compare the
client with the document the running code serves: the committed snapshot, the generated code, and
every operation's method, path, parameters and body fields.
"""

from __future__ import annotations

import asyncio
import importlib.util
import inspect
import json
import sys
import threading
import time
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from types import ModuleType
from typing import Any

import httpx
import pytest
from mnemos_client import (
    OPERATIONS,
    AsyncClient,
    AuthenticationError,
    Client,
    ConflictError,
    MnemosError,
    NotFoundError,
    PermissionDeniedError,
    RateLimitError,
    RetryPolicy,
    ServiceUnavailableError,
    UnprocessableEntityError,
    models,
)

from tests.live import ROOT, running_web

pytestmark = pytest.mark.live

CLIENTS = ROOT / "clients"
FAST = RetryPolicy(backoff=0.01, max_backoff=0.05)


@pytest.fixture(scope="module")
def web(committed_world) -> Iterator[str]:
    with running_web() as base:
        yield base


@pytest.fixture(scope="module")
def key(committed_world) -> str:
    return str(committed_world.alice.keys[committed_world.a.enterprise.slug][1])


@pytest.fixture
def client(web: str, key: str) -> Iterator[Client]:
    with Client(web, key) as c:
        yield c


def marker() -> str:
    return f"py-{uuid.uuid4().hex[:10]}"


def save_args(word: str) -> dict[str, Any]:
    return {
        "summary": f"The Python client saved the note {word}",
        "content": f"The Python client wrote this memory, marked {word}, to check the round trip.",
        "entities": [{"name": "Python client", "type": "tool"}],
        "tags": ["clients/python"],
    }


# A stub in front of the live server -----------------------------------------------------------------

Answer = tuple[int, dict[str, str], bytes]
Step = Callable[[Callable[[], httpx.Response]], Answer]


@dataclass
class Seen:
    method: str
    path: str
    headers: dict[str, str]


@dataclass
class Stub:
    """Each request takes the next planned step (given a way to forward it); with none left, it is forwarded."""

    upstream: str
    plan: list[Step] = field(default_factory=list)
    seen: list[Seen] = field(default_factory=list)
    url: str = ""


def relay(forward: Callable[[], httpx.Response]) -> Answer:
    answer = forward()
    return answer.status_code, {"Content-Type": answer.headers.get("Content-Type", "")}, answer.content


def refuse(status: int, code: str, **headers: str) -> Step:
    body = json.dumps({"error": f"the stub says {code}", "code": code}).encode()

    def step(forward: Callable[[], httpx.Response]) -> Answer:
        return status, {"Content-Type": "application/json", **headers}, body

    return step


def lose_the_answer(forward: Callable[[], httpx.Response]) -> Answer:
    """The server does the work; its answer is lost on the way back (a gateway's 502)."""
    forward()
    return 502, {"Content-Type": "text/html"}, b"<html>502 Bad Gateway</html>"


@pytest.fixture
def stub(web: str) -> Iterator[Stub]:
    state = Stub(upstream=web)

    class Handler(BaseHTTPRequestHandler):
        def _handle(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length") or 0))
            headers = {k: v for k, v in self.headers.items() if k.lower() not in ("host", "content-length")}
            state.seen.append(Seen(self.command, self.path, headers))

            def forward() -> httpx.Response:
                return httpx.request(
                    self.command, state.upstream + self.path, headers=headers, content=body, timeout=30
                )

            status, answer_headers, content = (state.plan.pop(0) if state.plan else relay)(forward)
            self.send_response(status)
            for name, value in answer_headers.items():
                self.send_header(name, value)
            self.send_header("Content-Length", str(len(content)))
            self.end_headers()
            self.wfile.write(content)

        do_GET = do_POST = do_PUT = _handle

        def log_message(self, format: str, *args: Any) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    state.url = f"http://127.0.0.1:{server.server_address[1]}"
    try:
        yield state
    finally:
        server.shutdown()
        server.server_close()


# It works ----------------------------------------------------------------------------------------


def test_whoami_is_the_keys_identity(client: Client, committed_world):
    me = client.whoami()
    assert me["enterprise"] == committed_world.a.enterprise.slug
    assert me["project"] == committed_world.a.project.slug
    assert "memory:write" in me["scopes"]


def test_a_save_then_a_search_finds_it(client: Client):
    word = marker()
    saved = client.save_memory(**save_args(word))
    found = client.search_memory(query=f"Python client note {word}")
    assert saved["event_id"] in [hit["event_id"] for hit in found["hits"]]


def test_the_batch_route_and_the_listings(client: Client):
    word = marker()
    batch = client.memories_batch(items=[{"content": f"first {word}"}, {"content": f"second {word}"}])
    assert [r["status"] for r in batch["results"]] == ["created", "created"]
    assert isinstance(client.exports_list()["exports"], list)
    assert isinstance(client.imports_list()["imports"], list)
    assert client.guard_check(text="the weather is fine today")["verdict"] == "accept"


# Errors ------------------------------------------------------------------------------------------


def test_a_refusal_is_the_exception_of_its_status_with_the_apis_body(web: str, key: str, client: Client):
    with Client(web, "mnm_00000000_not-a-key") as stranger:
        with pytest.raises(AuthenticationError) as unknown_key:
            stranger.whoami()
    raw = httpx.get(f"{web}/v1/whoami", headers={"Authorization": "Bearer mnm_00000000_not-a-key"})
    assert (unknown_key.value.status, unknown_key.value.body) == (401, raw.json())
    assert unknown_key.value.code == "invalid_key" and unknown_key.value.message == raw.json()["error"]

    with pytest.raises(UnprocessableEntityError) as invalid:
        client.save_memory(summary="no content")
    assert invalid.value.status == 422 and invalid.value.code == invalid.value.body["code"]

    with pytest.raises(NotFoundError) as missing:
        client.audit_events_get(str(uuid.uuid4()))
    assert missing.value.status == 404 and isinstance(missing.value, MnemosError)


def test_a_read_only_member_gets_permission_denied(web: str, committed_world):
    _, bobs_key = committed_world.bob.keys[committed_world.a.enterprise.slug]
    with Client(web, bobs_key) as bob, pytest.raises(PermissionDeniedError) as refused:
        bob.save_memory(**save_args(marker()))
    assert refused.value.status == 403
    assert refused.value.message == "membership may not write in this organization"


# Retries -----------------------------------------------------------------------------------------


def test_429_and_503_are_retried_after_retry_after(stub: Stub, key: str):
    stub.plan += [
        refuse(429, "rate_limited", **{"Retry-After": "1"}),
        refuse(503, "database_unavailable", **{"Retry-After": "1"}),
    ]
    started = time.monotonic()
    with Client(stub.url, key) as c:
        me = c.whoami()
    assert me["tenant_id"]
    assert len(stub.seen) == 3
    assert time.monotonic() - started >= 2


def test_without_retry_after_the_back_off_is_exponential_and_bounded(stub: Stub, key: str):
    stub.plan += [refuse(503, "database_unavailable")] * 3
    with Client(stub.url, key, retry=RetryPolicy(attempts=3, backoff=0.01)) as c:
        with pytest.raises(ServiceUnavailableError) as unavailable:
            c.whoami()
    assert unavailable.value.code == "database_unavailable" and len(stub.seen) == 3
    for attempt in (1, 2, 3):
        delay = FAST.delay(attempt=attempt, retry_after=None)
        exponential = min(FAST.max_backoff, FAST.backoff * 2 ** (attempt - 1))
        assert delay is not None and exponential / 2 <= delay <= exponential
    assert FAST.delay(attempt=FAST.attempts, retry_after=None) is None


def test_a_retry_after_beyond_the_policys_bound_is_raised_at_once(stub: Stub, key: str):
    stub.plan.append(refuse(429, "rate_limited", **{"Retry-After": "3600"}))
    with Client(stub.url, key) as c, pytest.raises(RateLimitError) as limited:
        c.whoami()
    assert limited.value.retry_after == 3600 and len(stub.seen) == 1


def test_a_write_without_an_idempotency_key_is_not_retried_on_a_500(stub: Stub, key: str):
    stub.plan.append(refuse(500, "internal_error"))
    with Client(stub.url, key, retry=FAST) as c, pytest.raises(MnemosError) as failed:
        c.exports_request(scope="project")
    assert failed.value.status == 500 and len(stub.seen) == 1


# Idempotency -------------------------------------------------------------------------------------


def test_a_write_whose_answer_was_lost_is_retried_with_its_key_and_saved_once(
    stub: Stub, client: Client, key: str
):
    word = marker()
    stub.plan.append(lose_the_answer)
    with Client(stub.url, key, retry=FAST) as c:
        saved = c.save_memory(**save_args(word))
    keys = [seen.headers.get("X-Idempotency-Key") for seen in stub.seen]
    assert len(keys) == 2 and keys[0] and keys[0] == keys[1]
    # The same key again is the same answer; the memory exists once.
    again = client.save_memory(idempotency_key=keys[0], **save_args(word))
    assert again["event_id"] == saved["event_id"]
    found = client.search_memory(query=f"Python client note {word}")
    assert [hit["event_id"] for hit in found["hits"] if word in hit["content"]] == [saved["event_id"]]


def test_every_write_gets_a_fresh_key_and_a_key_reused_with_other_input_conflicts(stub: Stub, key: str):
    with Client(stub.url, key) as c:
        c.save_memory(**save_args(marker()))
        c.save_memory(**save_args(marker()))
        c.search_memory(query="anything")
        first = stub.seen[0].headers["X-Idempotency-Key"]
        assert first != stub.seen[1].headers["X-Idempotency-Key"]
        assert "X-Idempotency-Key" not in stub.seen[2].headers
        with pytest.raises(ConflictError) as conflict:
            c.save_memory(idempotency_key=first, **save_args(marker()))
    assert conflict.value.message == "409 Conflict: idempotency key was used with different input"


# Async -------------------------------------------------------------------------------------------


def test_the_async_client_has_the_sync_clients_methods():
    def methods(cls: type) -> dict[str, inspect.Signature]:
        return {name: inspect.signature(getattr(cls, name)) for name in OPERATIONS}

    sync, async_ = methods(Client), methods(AsyncClient)
    assert sync == async_
    assert all(inspect.iscoroutinefunction(getattr(AsyncClient, name)) for name in OPERATIONS)


def test_the_async_client_saves_searches_refuses_and_retries(web: str, key: str, stub: Stub, client: Client):
    word = marker()

    async def go() -> tuple[Any, Any, Any, MnemosError]:
        async with AsyncClient(web, key) as c:
            me = await c.whoami()
            saved = await c.save_memory(**save_args(word))
            found = await c.search_memory(query=f"Python client note {word}")
            try:
                await c.save_memory(summary="no content")
            except MnemosError as error:
                refused = error
        stub.plan.append(refuse(503, "database_unavailable", **{"Retry-After": "0"}))
        async with AsyncClient(stub.url, key, retry=FAST) as through_stub:
            await through_stub.whoami()
            stub.plan.append(lose_the_answer)
            retried = await through_stub.save_memory(**save_args(f"{word}-retried"))
        return me, (saved, found), retried, refused

    me, (saved, found), retried, refused = asyncio.run(go())
    assert me == client.whoami()
    assert saved["event_id"] in [hit["event_id"] for hit in found["hits"]]
    assert isinstance(refused, UnprocessableEntityError) and refused.status == 422
    keys = [seen.headers.get("X-Idempotency-Key") for seen in stub.seen[2:]]
    assert len(keys) == 2 and keys[0] == keys[1]
    assert client.save_memory(idempotency_key=keys[0], **save_args(f"{word}-retried")) == retried


# Schema drift ------------------------------------------------------------------------------------


def load_generator() -> ModuleType:
    spec = importlib.util.spec_from_file_location("clients_generate", CLIENTS / "generate.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module  # its dataclasses look their module up there
    spec.loader.exec_module(module)
    return module


@pytest.fixture(scope="module")
def served(web: str) -> dict[str, Any]:
    response = httpx.get(f"{web}/v1/schema/?format=json", timeout=30)
    assert response.status_code == 200
    document: dict[str, Any] = response.json()
    return document


REGENERATE = "run `.venv/bin/python clients/generate.py --refresh` and commit clients/"


def operation_keys(document: dict[str, Any]) -> set[str]:
    return {
        f"{method.upper()} {path} {op['operationId']}"
        for path, item in document["paths"].items()
        for method, op in item.items()
        if method in ("get", "put", "post", "patch", "delete")
    }


def test_the_committed_document_is_the_one_the_server_serves(served: dict[str, Any]):
    committed = json.loads((CLIENTS / "openapi.json").read_text())
    assert operation_keys(committed) == operation_keys(served), REGENERATE
    for name in sorted(set(committed["components"]["schemas"]) | set(served["components"]["schemas"])):
        assert committed["components"]["schemas"].get(name) == served["components"]["schemas"].get(name), (
            f"schema {name} changed: {REGENERATE}"
        )
    assert committed == served, REGENERATE


def test_the_generated_code_is_the_committed_documents():
    generator = load_generator()
    document = json.loads((CLIENTS / "openapi.json").read_text())
    assert Path(generator.MODELS_OUT).read_text() == generator.models_module(document), REGENERATE
    assert Path(generator.PYTHON_OUT).read_text() == generator.python_module(document), REGENERATE
    assert Path(generator.TYPESCRIPT_OUT).read_text() == generator.typescript_module(document), REGENERATE


def test_the_client_covers_every_operation_the_server_serves(served: dict[str, Any]):
    """Each served operation is a method of both clients: its path, HTTP method, parameters and body
    fields (names and which are required), and the idempotency key where the operation takes one."""
    schemas = served["components"]["schemas"]
    by_id = {op.operation_id: (name, op) for name, op in OPERATIONS.items()}
    served_ids = set()
    for path, item in served["paths"].items():
        for method, operation in item.items():
            if method not in ("get", "put", "post", "patch", "delete"):
                continue
            served_ids.add(operation["operationId"])
            assert operation["operationId"] in by_id, f"no method for {method.upper()} {path}: {REGENERATE}"
            name, op = by_id[operation["operationId"]]
            assert (op.method, op.path) == (method.upper(), path)
            parameters = operation.get("parameters", [])
            assert op.query == tuple(p["name"] for p in parameters if p["in"] == "query")
            assert op.idempotency_key == any(p["name"] == "X-Idempotency-Key" for p in parameters)
            signature = inspect.signature(getattr(Client, name))
            for p in parameters:
                if p["in"] in ("path", "query"):
                    assert p["name"] in signature.parameters, f"{name} lacks {p['name']}"
            content = operation.get("requestBody", {}).get("content", {})
            if "application/json" in content:
                component = content["application/json"]["schema"]["$ref"].rsplit("/", 1)[1]
                assert op.body == component
                typed = getattr(models, component)
                schema = schemas[component]
                assert typed.__required_keys__ | typed.__optional_keys__ == set(schema["properties"])
                assert typed.__required_keys__ == set(schema.get("required", []))
            elif "multipart/form-data" in content:
                component = content["multipart/form-data"]["schema"]["$ref"].rsplit("/", 1)[1]
                assert set(op.form) == set(schemas[component]["properties"])
                assert set(op.form) <= set(signature.parameters)
            else:
                assert op.body is None and not op.form
    assert served_ids == set(by_id), f"methods for operations no longer served: {REGENERATE}"
