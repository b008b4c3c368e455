"""The tool door's gate for access keys: what core's door asks of the app that owns principals.

secret -> the key identified and loaded in its tenant's context (one transaction of its own, so the rate
counter and a refusal's audit commit whatever the call does) -> toolset -> subscription state ->
per-project rate limit -> scope and membership (accounts.access) -> a pass: the call's tenant context,
its ToolCall and its audit. Installed into ``core.dispatch`` by ``AccountsConfig.ready``.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from django.db import connection
from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, SubscriptionState, ToolCallWindow
from accounts.selectors.keys import access_key_door, access_key_identify
from accounts.services.audit import audit_record
from accounts.tasks import access_key_touch_soon
from core.dbrouting import replica_aliases, replica_for_reads, wrote_recently
from core.dispatch import ToolOutcome, UnknownTool, call_audit_details
from core.errors import Forbidden, MnemosError, NotAuthenticated, RateLimited
from core.registry import ToolCall, ToolSpec, tools_for_key
from core.tenancy import tenant_context

RATE_LIMITED = "MCP rate limit exceeded, project call limit exceeded"
NOTICE_NONE = "[MMW Notice]: this account has no active subscription, so memory tools are unavailable. An owner can start one in the console."
NOTICE_SUSPENDED = "[MMW Notice]: this account is suspended, so memory tools are unavailable. An owner can resolve it in the console."
NOTICE_GRACE = "[MMW Notice]: this account is in its grace period and read-only: reading works, saving does not until the subscription is renewed."


class SubscriptionBlocked(Forbidden):
    """No subscription, suspended, or read-only grace: the account may not, whatever the key."""

    code = "subscription"


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
        raise Forbidden(access.MEMBERSHIP_MAY_NOT_WRITE, code="membership_may_not_write")
    if not key.member.is_active:
        raise Forbidden(access.MEMBERSHIP_INACTIVE, code="membership_inactive")


def _replica_for(key: AccessKey, spec: ToolSpec) -> str | None:
    """A replica for a read-only call whose key wrote nothing within the read-your-writes window."""
    if not spec.read_only or not replica_aliases():
        return None
    if key.last_write_at is not None and wrote_recently(key.last_write_at.timestamp()):
        return None
    return replica_for_reads()


def _mark_write(key: AccessKey) -> None:
    """In the write's own transaction: the key's next reads stay on the primary for a while."""
    AccessKey.objects.filter(pk=key.pk).update(last_write_at=timezone.now())


@dataclass
class KeyPass:
    """A call the gate let through: the key, and what the door needs of it."""

    key: AccessKey
    request_id: str
    read_only: bool = True
    # The replica the call reads on (core/dbrouting.py), for its first context only: a failed call's
    # audit, in a context of its own after the rollback, needs none.
    read_alias: str | None = None

    @contextmanager
    def context(self) -> Iterator[None]:
        """The call's tenant context and transaction (also the failed call's audit's, after a rollback)."""
        key = self.key
        read_alias, self.read_alias = self.read_alias, None
        with tenant_context(
            enterprise_id=key.enterprise_id,
            member=key.member,
            access_key=key,
            request_id=self.request_id,
            door="tools",
            read_alias=read_alias,
        ):
            yield
            if not self.read_only and replica_aliases():
                _mark_write(key)

    def call(self, *, surface: str, idempotency_key: str | None, task_id: str | None) -> ToolCall:
        key = self.key
        # A run key calls within its run's task (its run came with the key: no statement).
        bound_task_id = key.bound_task_id
        return ToolCall(
            access_key=key,
            member=key.member,
            project=key.project,
            enterprise=key.enterprise,
            surface=surface,  # type: ignore[arg-type]
            request_id=self.request_id,
            idempotency_key=idempotency_key,
            task_id=task_id or (str(bound_task_id) if bound_task_id else None),
        )

    def audit(self, *, action: str, details: dict[str, Any]) -> None:
        audit_record(action=action, target=self.key, details=details)


class KeyGate:
    """Access keys at the tool door (every surface: REST, MCP over HTTP and stdio, task runs)."""

    def enter(
        self, *, secret: str | None, name: str, spec: ToolSpec | None, surface: str, request_id: str
    ) -> KeyPass | ToolOutcome:
        outermost = not connection.in_atomic_block
        try:
            with access_key_door(secret=secret, request_id=request_id, door="tools") as (_, key):
                if spec is None or (key.toolsets and spec.toolset not in key.toolsets):
                    return ToolOutcome(spec=None, error=UnknownTool(f"Unknown tool: {name}"))
                try:
                    _check_subscription(key, spec)
                    # Asynchronous only when the gate is its own transaction: inside a caller's, the
                    # setting would last to that one's end.
                    _count_call(key, commit_async=outermost)
                    _check_scope(key, spec)
                except MnemosError as exc:
                    if outermost:  # the count may have set it asynchronous: a refusal commits durably
                        with connection.cursor() as cursor:
                            cursor.execute(_DURABLE_COMMIT)
                    audit_record(
                        action="tool.refused",
                        target=key,
                        details=call_audit_details(spec, surface, None, exc),
                    )
                    return ToolOutcome(spec=spec, error=exc)
                access_key_touch_soon(key)  # one job a minute per busy key, not one per call
                return KeyPass(
                    key=key,
                    request_id=request_id,
                    read_only=spec.read_only,
                    read_alias=_replica_for(key, spec),
                )
        except NotAuthenticated as exc:  # the secret named no usable key: nothing of a tenant was read
            return ToolOutcome(spec=spec, error=exc)

    def tools_for(self, *, secret: str | None) -> list[ToolSpec]:
        """The tools this key may see (its toolsets); raises NotAuthenticated for a bad key."""
        with access_key_door(secret=secret, door="tools") as (_, key):
            access.key_member_active_check(key)
            return tools_for_key(key)

    def identify(self, *, secret: str | None) -> None:
        """Raise NotAuthenticated unless the secret names a usable key (MCP's HTTP door, before the SDK)."""
        access_key_identify(secret=secret)
