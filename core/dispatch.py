"""The tool door: every tool call, from every surface, passes here.

gate (the app that owns principals: accounts.door.KeyGate: authenticate, subscription, rate limit,
scope and membership) -> the call's tenant context in a transaction (the query's embedding started
beside it) -> input check (NUL, lone surrogates, depth: core.inputs) -> validate arguments (the bounds
of each input model) -> handler (whose writes ask accounts.access about their project and folder) ->
audit. Reads are audited too (which key read which memory ids). A failed call's audit goes in a
transaction of its own after the rollback.

A call whose transaction the database cancelled to let other writers finish (a deadlock broken, a
serialization failure: ``core.errors.lock_conflict``) kept nothing, so it runs again from the tenant
context on, up to ``LOCK_CONFLICT_ATTEMPTS`` times in all, after a short random pause; past that it is
``409 write_conflict``.
"""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import Any, Protocol, TypeVar

from pydantic import BaseModel, ValidationError

from core.errors import MnemosError, NotFound, ServiceUnavailable, Unprocessable, failure_error, lock_conflict
from core.inputs import arguments_check
from core.metrics import tool_call_observe
from core.registry import ToolCall, ToolSpec, dump_output, registry
from core.tenancy import current_tenant_or_none

INTERNAL_CALL_ERROR = "internal error: the call was not completed and nothing was changed"
LOCK_CONFLICT_ATTEMPTS = 3  # attempts in all for a call the database cancelled to break a deadlock
LOCK_CONFLICT_PAUSE_S = 0.05  # the most a retry waits first (times the attempt), so two retries part
T = TypeVar("T")


class UnknownTool(NotFound):
    code = "unknown_tool"


@dataclass
class ToolOutcome:
    spec: ToolSpec | None
    output: dict[str, Any] | None = None
    error: MnemosError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


class Pass(Protocol):
    """A call the gate let through."""

    def context(self) -> AbstractContextManager[None]: ...

    def call(self, *, surface: str, idempotency_key: str | None, task_id: str | None) -> ToolCall: ...

    def audit(self, *, action: str, details: dict[str, Any]) -> None: ...


class Gate(Protocol):
    """Who may call: installed by the app that owns principals (``accounts``), so core imports no app."""

    def enter(
        self, *, secret: str | None, name: str, spec: ToolSpec | None, surface: str, request_id: str
    ) -> Pass | ToolOutcome: ...

    def tools_for(self, *, secret: str | None) -> list[ToolSpec]: ...

    def identify(self, *, secret: str | None) -> None: ...


_gates: list[Gate] = []


def gate_install(gate: Gate) -> None:
    """The one gate of this process (``AccountsConfig.ready``); installing again replaces it."""
    _gates[:] = [gate]


def gate() -> Gate:
    if not _gates:
        raise RuntimeError("no tool gate installed: is the accounts app in INSTALLED_APPS?")
    return _gates[0]


def validation_message(exc: ValidationError) -> str:
    """Pydantic errors as one line; a validator's own text (the seeds' exact texts) comes through as is."""
    parts = []
    for error in exc.errors():
        if error["type"] == "value_error" and "error" in error.get("ctx", {}):
            parts.append(str(error["ctx"]["error"]))
            continue
        where = ".".join(str(p) for p in error["loc"]) or "arguments"
        message = error["msg"]
        if error["type"] == "extra_forbidden":
            message = "unknown argument"
        parts.append(f"{where}: {message}")
    return "; ".join(parts)


def call_audit_details(
    spec: ToolSpec, surface: str, call: ToolCall | None, error: MnemosError | None
) -> dict[str, Any]:
    details: dict[str, Any] = {"tool": spec.name, "surface": surface, "ok": error is None}
    if error is not None:
        details["error_code"] = error.code
        details["error"] = error.message[:500]
    if call is not None and call.read_ids:
        details["read_ids"] = call.read_ids
    return details


def tool_dispatch(
    *,
    secret: str | None,
    name: str,
    arguments: dict[str, Any] | None,
    surface: str,
    idempotency_key: str | None = None,
    request_id: str | None = None,
    task_id: str | None = None,
) -> ToolOutcome:
    request_id = request_id or uuid.uuid4().hex
    started = time.perf_counter()
    seen: dict[str, str] = {}
    outcome = _dispatch(
        secret=secret,
        name=name,
        arguments=arguments,
        surface=surface,
        idempotency_key=idempotency_key,
        request_id=request_id,
        task_id=task_id,
        seen=seen,
    )
    # Counted and logged here, where every surface passes: no query, no argument, no output.
    tool_call_observe(
        tool=outcome.spec.name if outcome.spec is not None else "unknown",  # a caller's name: unbounded
        surface=surface,
        status="ok" if outcome.error is None else outcome.error.code,
        seconds=time.perf_counter() - started,
        request_id=request_id,
        enterprise_id=seen.get("enterprise_id"),
    )
    return outcome


def _dispatch(
    *,
    secret: str | None,
    name: str,
    arguments: dict[str, Any] | None,
    surface: str,
    idempotency_key: str | None,
    request_id: str,
    task_id: str | None,
    seen: dict[str, str],
) -> ToolOutcome:
    spec = registry.get(name)
    try:
        gated = gate().enter(secret=secret, name=name, spec=spec, surface=surface, request_id=request_id)
    except Exception as exc:  # noqa: BLE001 - _failure logs it; the database is down: nothing of the call ran
        return ToolOutcome(spec=spec, error=_failure(exc, name=name, request_id=request_id))
    if isinstance(gated, ToolOutcome):
        return gated
    assert spec is not None  # the gate refused an unknown tool

    call: ToolCall | None = None

    def attempt() -> ToolOutcome:
        nonlocal call
        call = None
        with gated.context():
            tenant = current_tenant_or_none()
            if tenant is not None and tenant.enterprise_id is not None:
                seen["enterprise_id"] = str(tenant.enterprise_id)
            arguments_check(arguments or {})  # NUL, lone surrogates, depth: 422 before validation
            try:
                arguments_model = spec.input_model.model_validate(arguments or {})
            except ValidationError as exc:
                raise Unprocessable(validation_message(exc), code="invalid_arguments") from exc
            call = gated.call(surface=surface, idempotency_key=idempotency_key, task_id=task_id)
            result = spec.handler(call, arguments_model)
            output = _dump(spec, result)
            gated.audit(action="tool.call", details=call_audit_details(spec, surface, call, None))
            return ToolOutcome(spec=spec, output=output)

    try:
        with registry.query_prefetch(spec.query_text(arguments)):
            return run_again_on_lock_conflict(attempt)
    except Exception as exc:  # noqa: BLE001 - a refusal, an outage, or a crash _failure logs
        error = _failure(exc, name=spec.name, request_id=request_id)
    if isinstance(error, ServiceUnavailable):  # nothing can be recorded where the outage is
        return ToolOutcome(spec=spec, error=error)
    # The failed call's transaction rolled back; its audit goes in one of its own.
    try:
        with gated.context():
            gated.audit(action="tool.error", details=call_audit_details(spec, surface, call, error))
            error.record_after_rollback()
    except Exception as exc:  # noqa: BLE001 - _failure logs it; the database went away: that is the answer
        outage = _failure(exc, name=spec.name, request_id=request_id)
        if isinstance(outage, ServiceUnavailable):
            return ToolOutcome(spec=spec, error=outage)
    return ToolOutcome(spec=spec, error=error)


def run_again_on_lock_conflict(
    attempt: Callable[[], T], *, before_again: Callable[[], None] | None = None
) -> T:
    """``attempt()``, run again (``LOCK_CONFLICT_ATTEMPTS`` in all, after a short random pause and
    ``before_again``) while the database cancels its transaction to let other writers finish; the last
    attempt's exception, or any other, propagates. The tool door's and the console's (console_view)."""
    for n in range(1, LOCK_CONFLICT_ATTEMPTS + 1):
        try:
            return attempt()
        except Exception as exc:
            if n == LOCK_CONFLICT_ATTEMPTS or not lock_conflict(exc):
                raise
        if before_again is not None:
            before_again()
        time.sleep(random.uniform(0, LOCK_CONFLICT_PAUSE_S * n))
    raise AssertionError("unreachable: the last attempt returns or raises")


def _failure(exc: Exception, *, name: str, request_id: str) -> MnemosError:
    """A refusal as it is; an outage as 503; anything else a logged 500 that says nothing was changed."""
    return failure_error(exc, request_id=request_id, where=f"tool {name}", message=INTERNAL_CALL_ERROR)


def _dump(spec: ToolSpec, result: BaseModel) -> dict[str, Any]:
    if not isinstance(result, spec.output_model):
        raise TypeError(
            f"tool {spec.name} returned {type(result).__name__}, not {spec.output_model.__name__}"
        )
    return dict(dump_output(result))


def tool_list_for(*, secret: str | None) -> list[ToolSpec]:
    """The tools this key may see (its toolsets); raises NotAuthenticated for a bad key."""
    return gate().tools_for(secret=secret)
