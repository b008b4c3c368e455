"""Calls the database cancels to let other writers finish: the tool door (and the console's) runs them again.

PostgreSQL breaks a deadlock (two transactions each waiting for a row the other holds) by cancelling one
of them (SQLSTATE 40P01), and refuses a transaction that cannot be serialised (40001). Nothing of such a
call was kept, so ``core.dispatch`` runs it again whole (``LOCK_CONFLICT_ATTEMPTS``); only when every
attempt is cancelled does the caller hear ``409 write_conflict``. CI met such a deadlock between an
unordered bulk UPDATE and the archivist's batch (which locks its rows in pk order).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator

import pytest
from django.db import connection, connections
from pydantic import BaseModel, ConfigDict

from accounts.models import AuditEvent
from core.dispatch import LOCK_CONFLICT_ATTEMPTS, tool_dispatch
from core.errors import WRITE_CONFLICT
from core.tenancy import tenant_context
from memory.models import Memory
from tests.standin import standin_tool

pytestmark = pytest.mark.live


class _In(BaseModel):
    model_config = ConfigDict(extra="forbid")
    first: str
    second: str
    tag: str


class _Out(BaseModel):
    model_config = ConfigDict(extra="forbid")
    attempts: int


def _call(secret: str, name: str, first: str, second: str, tag: str, request_id: str | None = None):
    return tool_dispatch(
        secret=secret,
        name=name,
        arguments={"first": first, "second": second, "tag": tag},
        surface="rest",
        request_id=request_id,
    )


@pytest.fixture
def two_memories(committed_world, django_db_blocker) -> Iterator[tuple[str, str, str]]:
    """Two memories of enterprise a, and alice's key there."""
    _, secret = committed_world.alice.keys[committed_world.a.enterprise.slug]
    with django_db_blocker.unblock():
        ids = []
        for n in (1, 2):
            outcome = tool_dispatch(
                secret=secret,
                name="remember",
                arguments={"content": f"lock order note {n}", "workspace": "write-conflicts"},
                surface="rest",
            )
            assert outcome.ok, outcome.error
            ids.append(str(outcome.output["id"]))  # type: ignore[index]
        yield ids[0], ids[1], secret
        connections.close_all()


def _tag(memory_id: str, tag: str) -> None:
    """Lock the memory's row and append ``tag`` to a list in it (its ``origin``, free for a test)."""
    memory = Memory.objects.select_for_update().get(pk=memory_id)
    memory.origin = {"tags": [*(memory.origin or {}).get("tags", []), tag]}
    memory.save(update_fields=["origin"])


def _crosswise(run: Callable[[str, str, str], None], first: str, second: str) -> None:
    """``run`` in two threads at once: "ab" takes the first memory then the second, "ba" the other way."""
    threads = [
        threading.Thread(target=run, args=("ab", first, second)),
        threading.Thread(target=run, args=("ba", second, first)),
    ]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)


def _tags(memory_id: str) -> list[str]:
    return list((Memory.objects.get(pk=memory_id).origin or {}).get("tags", []))


def test_two_calls_that_deadlock_both_succeed(committed_world, two_memories, django_db_blocker):
    """Each call locks the two memories in the opposite order; the server cancels one, which runs again."""
    first, second, secret = two_memories
    barrier = threading.Barrier(2)
    attempts: dict[str, int] = {}
    lock = threading.Lock()

    def handler(call: object, args: _In) -> _Out:
        with lock:
            attempts[args.tag] = attempts.get(args.tag, 0) + 1
            mine = attempts[args.tag]
        _tag(args.first, args.tag)
        if mine == 1:
            barrier.wait(timeout=10)  # both hold their first row before either asks for its second
        _tag(args.second, args.tag)
        return _Out(attempts=mine)

    results: dict[str, object] = {}

    def call(tag: str, a: str, b: str) -> None:
        try:
            outcome = _call(
                secret, "test_lock_order", a, b, tag, f"deadlock-{tag}-{committed_world.a.enterprise.pk}"
            )
            results[tag] = outcome.output if outcome.ok else outcome.error
        finally:
            connections.close_all()

    with standin_tool("test_lock_order", handler, _In, _Out, read_only=False):
        with django_db_blocker.unblock():
            _crosswise(call, first, second)
            assert all(isinstance(r, dict) for r in results.values()) and len(results) == 2, results
            # One of them was cancelled once by the server's deadlock detector and ran again.
            assert sorted(attempts.values()) == [1, 2], attempts
            with tenant_context(enterprise_id=committed_world.a.enterprise.pk, door="test"):
                for memory_id in (first, second):
                    tags = _tags(memory_id)
                    assert tags.count("ab") == 1 and tags.count("ba") == 1, tags  # each write once
                actions = AuditEvent.objects.filter(
                    request_id__in=[f"deadlock-{t}-{committed_world.a.enterprise.pk}" for t in ("ab", "ba")]
                ).values_list("action", flat=True)
                assert sorted(actions) == ["tool.call", "tool.call"]


def test_a_call_cancelled_on_every_attempt_is_409_and_changed_nothing(
    committed_world, two_memories, django_db_blocker
):
    first, second, secret = two_memories
    attempts: list[int] = []

    def handler(call: object, args: _In) -> _Out:
        attempts.append(1)
        _tag(args.first, args.tag)  # written, then rolled back with the call
        with connection.cursor() as cursor:  # the server's own serialization failure, as it raises it
            cursor.execute(
                "DO $$ BEGIN RAISE EXCEPTION 'could not serialize access' "
                "USING ERRCODE = 'serialization_failure'; END $$"
            )
        return _Out(attempts=len(attempts))

    request_id = f"cancelled-{committed_world.a.enterprise.pk}"
    with standin_tool("test_always_cancelled", handler, _In, _Out, read_only=False):
        with django_db_blocker.unblock():
            outcome = _call(secret, "test_always_cancelled", first, second, "never", request_id)
            assert outcome.error is not None
            assert (outcome.error.code, outcome.error.http_status) == ("write_conflict", 409)
            assert outcome.error.message == WRITE_CONFLICT
            assert len(attempts) == LOCK_CONFLICT_ATTEMPTS == 3
            with tenant_context(enterprise_id=committed_world.a.enterprise.pk, door="test"):
                assert "never" not in _tags(first)
                event = AuditEvent.objects.get(request_id=request_id)
                assert event.action == "tool.error" and event.details["error_code"] == "write_conflict"


def test_any_other_database_error_is_not_run_again(committed_world, two_memories, django_db_blocker):
    first, second, secret = two_memories
    attempts: list[int] = []

    def handler(call: object, args: _In) -> _Out:
        attempts.append(1)
        with connection.cursor() as cursor:  # a constraint, not a lock: the call's own error
            cursor.execute(
                "DO $$ BEGIN RAISE EXCEPTION 'duplicate' USING ERRCODE = 'unique_violation'; END $$"
            )
        return _Out(attempts=len(attempts))

    with standin_tool("test_unique_violation", handler, _In, _Out, read_only=False):
        with django_db_blocker.unblock():
            outcome = _call(secret, "test_unique_violation", first, second, "x")
            assert outcome.error is not None and outcome.error.code == "internal_error"
            assert attempts == [1]


# ----------------------------------------------------------------------------- the console's door


def _console_request(world, method: str = "post", **extra):
    """A signed-in console request for alice in enterprise a, as the session middleware would give it."""
    from importlib import import_module

    from django.conf import settings
    from django.test import RequestFactory

    from console.decorators import SESSION_ENTERPRISE

    request = getattr(RequestFactory(), method)("/console/test/", **extra)
    request.user = world.alice.user
    request.session = import_module(settings.SESSION_ENGINE).SessionStore()
    request.session[SESSION_ENTERPRISE] = str(world.a.enterprise.pk)
    return request


def test_two_console_posts_that_deadlock_both_succeed(committed_world, two_memories, django_db_blocker):
    from django.http import HttpResponse

    from console.decorators import console_view

    first, second, _ = two_memories
    barrier = threading.Barrier(2)
    attempts: dict[str, int] = {}
    lock = threading.Lock()

    @console_view
    def view(request, a: str, b: str, tag: str) -> HttpResponse:
        with lock:
            attempts[tag] = attempts.get(tag, 0) + 1
            mine = attempts[tag]
        _tag(a, tag)
        if mine == 1:
            barrier.wait(timeout=10)
        _tag(b, tag)
        return HttpResponse(f"done after {mine}")

    statuses: dict[str, int] = {}

    def post(tag: str, a: str, b: str) -> None:
        try:
            statuses[tag] = view(_console_request(committed_world), a, b, f"console-{tag}").status_code
        finally:
            connections.close_all()

    with django_db_blocker.unblock():
        _crosswise(post, first, second)
        assert statuses == {"ab": 200, "ba": 200}, statuses
        assert sorted(attempts.values()) == [1, 2], attempts
        with tenant_context(enterprise_id=committed_world.a.enterprise.pk, door="test"):
            for memory_id in (first, second):
                tags = _tags(memory_id)
                assert tags.count("console-ab") == 1 and tags.count("console-ba") == 1, tags


def test_a_console_post_cancelled_every_time_is_a_409_page_and_reads_its_upload_anew(
    committed_world, two_memories, django_db_blocker
):
    from django.core.files.uploadedfile import SimpleUploadedFile
    from django.http import HttpResponse

    from console.decorators import console_view

    first, _, _ = two_memories
    read: list[bytes] = []

    @console_view
    def view(request) -> HttpResponse:
        read.append(request.FILES["notes"].read())
        _tag(first, "console-never")
        with connection.cursor() as cursor:
            cursor.execute(
                "DO $$ BEGIN RAISE EXCEPTION 'could not serialize access' "
                "USING ERRCODE = 'serialization_failure'; END $$"
            )
        return HttpResponse("unreachable")

    upload = SimpleUploadedFile("notes.jsonl", b'{"memory": "a note"}\n')
    with django_db_blocker.unblock():
        response = view(_console_request(committed_world, data={"notes": upload}))
        assert response.status_code == 409
        assert WRITE_CONFLICT[1:].split(";")[0] in response.content.decode()
        # every attempt read the whole upload, not what the one before left of it
        assert read == [b'{"memory": "a note"}\n'] * LOCK_CONFLICT_ATTEMPTS
        with tenant_context(enterprise_id=committed_world.a.enterprise.pk, door="test"):
            assert "console-never" not in _tags(first)
