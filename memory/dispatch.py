"""The tool door: every tool call, from every surface, passes here.

authenticate -> subscription state -> per-project rate limit -> scope and membership
(accounts.access) -> tenant context in a transaction -> input check (NUL, lone surrogates,
depth: accounts.inputs) -> validate arguments (the bounds of each input model) -> handler
(whose writes ask accounts.access about their project and folder) -> audit.
Reads are audited too (which key read which memory ids).
"""

from __future__ import annotations

import logging
import uuid
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone
from pydantic import BaseModel, ValidationError

from accounts import access
from accounts.errors import Forbidden, MnemosError, NotAuthenticated, NotFound, RateLimited, Unprocessable
from accounts.inputs import arguments_check
from accounts.models import AccessKey, SubscriptionState
from accounts.selectors.keys import access_key_door
from accounts.services.audit import audit_record
from accounts.tasks import access_key_touch_soon
from accounts.tenancy import tenant_context
from memory.models import ToolCallWindow
from memory.registry import ToolCall, ToolSpec, dump_output, registry
from memory.selectors.search import query_vector_prefetch

logger = logging.getLogger(__name__)

RATE_LIMITED = "MCP rate limit exceeded, project call limit exceeded"
NOTICE_NONE = "[MMW Notice]: this account has no active subscription, so memory tools are unavailable. An owner can start one in the console."
NOTICE_SUSPENDED = "[MMW Notice]: this account is suspended, so memory tools are unavailable. An owner can resolve it in the console."
NOTICE_GRACE = "[MMW Notice]: this account is in its grace period and read-only: reading works, saving does not until the subscription is renewed."
MEMBERSHIP_MAY_NOT_WRITE = access.MEMBERSHIP_MAY_NOT_WRITE


class UnknownTool(NotFound):
    code = "unknown_tool"


class SubscriptionBlocked(Forbidden):
    """No subscription, suspended, or read-only grace: the account may not, whatever the key."""

    code = "subscription"


@dataclass
class ToolOutcome:
    spec: ToolSpec | None
    output: dict[str, Any] | None = None
    error: MnemosError | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def _check_subscription(key: AccessKey, spec: ToolSpec) -> None:
    state = key.enterprise.subscription_state
    if state == SubscriptionState.NONE:
        raise SubscriptionBlocked(NOTICE_NONE, code="subscription_none")
    if state == SubscriptionState.SUSPENDED:
        raise SubscriptionBlocked(NOTICE_SUSPENDED, code="subscription_suspended")
    if state == SubscriptionState.GRACE and not spec.read_only:
        raise SubscriptionBlocked(NOTICE_GRACE, code="subscription_grace")


# The gate's transaction, when it is its own, commits without waiting for the WAL to reach the disk once
# the call has passed: all it keeps then is the rate window's count (a crash could forget a few counted
# calls, never a memory or an audit event). The setting rides on the count's statement (a round trip
# less on every call); a refusal after it sets it back, so that the refusal commits durably with its audit.
_ASYNC_COMMIT = "set_config('synchronous_commit', 'off', true)"
_DURABLE_COMMIT = "SELECT set_config('synchronous_commit', 'on', true)"


def _count_call(key: AccessKey, *, commit_async: bool = False) -> None:
    """Count this call in the project's current minute; refuse past the plan's limit.

    The counter commits with the gate's own transaction, so refused and failed
    calls count too, and a retry storm cannot slip under the limit. ``commit_async``: the same
    statement sets that transaction to commit asynchronously (the gate is its own transaction).
    """
    window = timezone.now().replace(second=0, microsecond=0)
    returning = f"calls, {_ASYNC_COMMIT}" if commit_async else "calls"
    with connection.cursor() as cursor:
        cursor.execute(
            f"""
            INSERT INTO {ToolCallWindow._meta.db_table} (enterprise_id, project_id, window_start, calls)
            VALUES (%s, %s, %s, 1)
            ON CONFLICT (project_id, window_start) DO UPDATE SET calls = {ToolCallWindow._meta.db_table}.calls + 1
            RETURNING {returning}
            """,
            [key.enterprise_id, key.project_id, window],
        )
        (calls, *_) = cursor.fetchone()
    if calls == 1:
        # A new minute's first call: the project's old windows are of no further use.
        ToolCallWindow.objects.filter(
            project_id=key.project_id, window_start__lt=window - timedelta(minutes=5)
        ).delete()
    if calls > key.enterprise.plan.tool_calls_per_minute_per_project:
        raise RateLimited(RATE_LIMITED, code="rate_limited")


def _check_scope(key: AccessKey, spec: ToolSpec) -> None:
    """The access policy's first word on a call: the key's scope, and whether its membership may act at all
    (each write then asks the policy about its own project and folder)."""
    if not access.key_has_scope(key, spec.scope):
        raise Forbidden(
            f"this access key lacks the '{spec.scope}' scope", code="missing_scope", scope=spec.scope
        )
    # The seed's text for a write by an auditor or an inactive membership; an inactive one reads nothing either.
    if not spec.read_only and not access.member_may_write(key.member):
        raise Forbidden(MEMBERSHIP_MAY_NOT_WRITE, code="membership_may_not_write")
    if not key.member.is_active:
        raise Forbidden(access.MEMBERSHIP_INACTIVE, code="membership_inactive")


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


def _call_audit_details(
    spec: ToolSpec, surface: str, call: ToolCall | None, error: MnemosError | None
) -> dict[str, Any]:
    details: dict[str, Any] = {"tool": spec.name, "surface": surface, "ok": error is None}
    if error is not None:
        details["error_code"] = error.code
        details["error"] = error.message[:500]
    if call is not None and call.read_ids:
        details["read_ids"] = call.read_ids
    return details


def _gate(
    *, secret: str | None, name: str, spec: ToolSpec | None, surface: str, request_id: str
) -> AccessKey | ToolOutcome:
    """The key identified and loaded in its tenant's context, in a transaction of its own (so that the
    rate counter and a refusal's audit commit whatever the call does): the key, or the refusal."""
    outermost = not connection.in_atomic_block
    try:
        with access_key_door(secret=secret, request_id=request_id, door="tools") as (_, key):
            if spec is None or (key.toolsets and spec.toolset not in key.toolsets):
                return ToolOutcome(spec=None, error=UnknownTool(f"Unknown tool: {name}"))
            try:
                _check_subscription(key, spec)
                # Asynchronous only when the gate is its own transaction: inside a caller's, the setting
                # would last to that one's end.
                _count_call(key, commit_async=outermost)
                _check_scope(key, spec)
            except MnemosError as exc:
                if outermost:  # the count may have set it asynchronous: a refusal commits durably
                    with connection.cursor() as cursor:
                        cursor.execute(_DURABLE_COMMIT)
                audit_record(
                    action="tool.refused", target=key, details=_call_audit_details(spec, surface, None, exc)
                )
                return ToolOutcome(spec=spec, error=exc)
            access_key_touch_soon(key)  # one job a minute per busy key, not one per call
            return key
    except NotAuthenticated as exc:  # the secret named no usable key: nothing of a tenant was read
        return ToolOutcome(spec=spec, error=exc)


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
    spec = registry.get(name)
    gated = _gate(secret=secret, name=name, spec=spec, surface=surface, request_id=request_id)
    if isinstance(gated, ToolOutcome):
        return gated
    key = gated
    assert spec is not None  # the gate refused an unknown tool

    call: ToolCall | None = None
    try:
        with (
            query_vector_prefetch(spec.query_text(arguments)),
            tenant_context(
                enterprise_id=key.enterprise_id,
                member=key.member,
                access_key=key,
                request_id=request_id,
                door="tools",
            ),
        ):
            arguments_check(arguments or {})  # NUL, lone surrogates, depth: 422 before validation
            try:
                arguments_model = spec.input_model.model_validate(arguments or {})
            except ValidationError as exc:
                raise Unprocessable(validation_message(exc), code="invalid_arguments") from exc
            call = ToolCall(
                access_key=key,
                member=key.member,
                project=key.project,
                enterprise=key.enterprise,
                surface=surface,  # type: ignore[arg-type]
                request_id=request_id,
                idempotency_key=idempotency_key,
                task_id=task_id or (str(key.task_id) if key.task_id else None),
            )
            result = spec.handler(call, arguments_model)
            output = _dump(spec, result)
            audit_record(
                action="tool.call", target=key, details=_call_audit_details(spec, surface, call, None)
            )
            return ToolOutcome(spec=spec, output=output)
    except MnemosError as exc:
        error: MnemosError = exc
    except Exception:
        logger.exception("tool %s failed", spec.name)
        error = MnemosError(
            "internal error: the call was not completed and nothing was changed", code="internal_error"
        )
        error.http_status = 500
    # The failed call's transaction rolled back; its audit goes in one of its own.
    with tenant_context(
        enterprise_id=key.enterprise_id,
        member=key.member,
        access_key=key,
        request_id=request_id,
        door="tools",
    ):
        audit_record(action="tool.error", target=key, details=_call_audit_details(spec, surface, call, error))
        error.record_after_rollback()
    return ToolOutcome(spec=spec, error=error)


def _dump(spec: ToolSpec, result: BaseModel) -> dict[str, Any]:
    if not isinstance(result, spec.output_model):
        raise TypeError(
            f"tool {spec.name} returned {type(result).__name__}, not {spec.output_model.__name__}"
        )
    return dict(dump_output(result))


def tool_list_for(*, secret: str | None) -> list[ToolSpec]:
    """The tools this key may see (its toolsets); raises NotAuthenticated for a bad key."""
    from memory.registry import tools_for_key

    with access_key_door(secret=secret, door="tools") as (_, key):
        return tools_for_key(key)
