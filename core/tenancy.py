"""The tenancy machinery: one context, one manager, one set of RLS policies.

A tenant context names the enterprise every query runs for. It is entered only
in the four doors (REST base view, tool dispatcher, console view decorator,
Celery base task) through :func:`tenant_context`, which opens a transaction and
sets ``app.enterprise_id`` transaction-locally, so PostgreSQL's row-level
security filters every statement even where the ORM filter were forgotten.

``TenantManager`` refuses to build a query without a context, and filters by
the context's enterprise: the application filter and RLS agree.
"""

from __future__ import annotations

import contextvars
import re
import uuid
from collections.abc import Callable, Iterator
from contextlib import ExitStack, contextmanager, suppress
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, TypeVar

from django.db import DEFAULT_DB_ALIAS, DatabaseError, connection, connections, models, transaction

from core.dbrouting import mark_down, reads_on
from core.fastpath import tenant_queryset

if TYPE_CHECKING:
    from accounts.models import AccessKey, Member

# Transaction-local settings read by the RLS policies.
ENTERPRISE_SETTING = "app.enterprise_id"
USER_SETTING = "app.user_id"
KEY_DIGEST_SETTING = "app.access_key_digest"
ALL_TENANTS_SETTING = "app.all_tenants"


class TenantContextMissing(RuntimeError):
    """A tenant-owned table was queried outside every door."""


@dataclass
class TenantContext:
    enterprise_id: uuid.UUID | None
    member: Member | None = None
    access_key: AccessKey | None = None
    session_key: str = ""
    request_id: str = field(default_factory=lambda: uuid.uuid4().hex)
    door: str = ""
    # Only the auditors' admin door sets this, and only for Django superusers.
    all_tenants: bool = False


_current: contextvars.ContextVar[TenantContext | None] = contextvars.ContextVar("mnemos_tenant", default=None)


def current_tenant() -> TenantContext:
    ctx = _current.get()
    if ctx is None:
        raise TenantContextMissing(
            "No tenant context: tenant-owned data is reachable only through a door "
            "(REST view, tool dispatcher, console view, Celery task)."
        )
    return ctx


def current_tenant_or_none() -> TenantContext | None:
    return _current.get()


def _set_local(name: str, value: str) -> None:
    with connection.cursor() as cursor:
        cursor.execute("SELECT set_config(%s, %s, true)", [name, value])


_REQUEST_ID = re.compile(r"[\x21-\x7e]{1,64}")


def request_id_fits(raw: str | None) -> bool:
    """Whether a caller's request id fits the audit: 1-64 printable ASCII characters."""
    return raw is not None and _REQUEST_ID.fullmatch(raw) is not None


def usable_request_id(raw: str | None) -> str:
    """A caller's request id when it fits the audit, else a fresh one: every door's tracing header
    (X-Request-Id, a JSON-RPC id) is a hint, never a reason to fail the call."""
    return raw if raw is not None and request_id_fits(raw) else uuid.uuid4().hex


@contextmanager
def tenant_context(
    *,
    enterprise_id: uuid.UUID | str | None,
    member: Member | None = None,
    access_key: AccessKey | None = None,
    session_key: str = "",
    request_id: str | None = None,
    door: str,
    all_tenants: bool = False,
    read_alias: str | None = None,
) -> Iterator[TenantContext]:
    """Run the block in one transaction, for one enterprise (the only way in).

    ``read_alias`` (a replica a door chose, core/dbrouting.py): the block's reads go there, in a
    transaction of their own with the same settings; its writes stay in the primary's.
    """
    ctx = TenantContext(
        enterprise_id=uuid.UUID(str(enterprise_id)) if enterprise_id else None,
        member=member,
        access_key=access_key,
        session_key=session_key,
        request_id=usable_request_id(request_id),
        door=door,
        all_tenants=all_tenants,
    )
    outer = _current.get()
    token = _current.set(ctx)
    # Outermost, the settings end with the transaction's COMMIT; inside another transaction they would
    # outlive this block (set_config(..., true) lasts to the end of the outermost transaction, not of a
    # savepoint), so there they are handed back to the outer context (or none).
    nested = connection.in_atomic_block
    try:
        with (
            transaction.atomic(),
            _applied(ctx, outer=outer, nested=nested),
            _replica_reads(ctx, None if nested else read_alias),
        ):
            yield ctx
    finally:
        _current.reset(token)


@contextmanager
def _replica_reads(ctx: TenantContext, alias: str | None) -> Iterator[None]:
    """The block's reads on ``alias`` in a transaction there with ``ctx``'s settings (RLS filters the
    replica as it does the primary); None, or a replica that refuses the first statement: the primary."""
    stack = ExitStack()
    if alias is not None:
        try:
            stack.enter_context(transaction.atomic(using=alias))
            _apply(ctx, using=alias)
        except DatabaseError as exc:  # down or gone since its last check: this call reads the primary
            with suppress(Exception):
                stack.__exit__(type(exc), exc, exc.__traceback__)
            stack = ExitStack()
            mark_down(alias, exc)
            alias = None
    with stack, reads_on(alias):
        yield


_NO_TENANT = TenantContext(enterprise_id=None)


@contextmanager
def _applied(
    ctx: TenantContext, *, outer: TenantContext | None, nested: bool, clear_key_digest: bool = False
) -> Iterator[None]:
    """Inside the context's transaction: its settings applied, and handed back to ``outer`` at the end
    when the transaction is another's (outermost, the COMMIT ends them)."""
    _apply(ctx, clear_key_digest=clear_key_digest)
    try:
        yield
    finally:
        if nested and not transaction.get_rollback():
            _apply(outer or _NO_TENANT)


def _apply(ctx: TenantContext, *, clear_key_digest: bool = False, using: str = DEFAULT_DB_ALIAS) -> None:
    # The settings in one statement: this runs twice per tenant transaction, on every call.
    settings = [
        ENTERPRISE_SETTING,
        str(ctx.enterprise_id) if ctx.enterprise_id else "",
        ALL_TENANTS_SETTING,
        "on" if ctx.all_tenants else "",
    ]
    if clear_key_digest:
        settings += [KEY_DIGEST_SETTING, ""]
    with connections[using].cursor() as cursor:
        cursor.execute(
            "SELECT " + ", ".join(["set_config(%s, %s, true)"] * (len(settings) // 2)),
            settings,
        )


@contextmanager
def identity_lookup(*, user_id: int | None = None, key_digest: str | None = None) -> Iterator[None]:
    """Before a tenant is known: see only the rows this identity proves.

    The sign-in door sees the signed-in user's own memberships (to pick an
    enterprise); the key door sees only the access key whose digest it holds.
    Nothing else of any tenant is visible.
    """
    nested = connection.in_atomic_block  # outermost, COMMIT ends the settings (see tenant_context)
    with transaction.atomic():
        if user_id is not None:
            _set_local(USER_SETTING, str(user_id))
        if key_digest is not None:
            _set_local(KEY_DIGEST_SETTING, key_digest)
        token = _current.set(TenantContext(enterprise_id=None, door="identity"))
        try:
            yield
        finally:
            _current.reset(token)
            if nested and not transaction.get_rollback():
                _set_local(USER_SETTING, "")
                _set_local(KEY_DIGEST_SETTING, "")


@contextmanager
def key_tenant_context(
    *,
    key_digest: str,
    identify: Callable[[], uuid.UUID],
    request_id: str | None = None,
    door: str,
) -> Iterator[TenantContext]:
    """An access key's door in one transaction: the identity lookup, then the key's tenant context.

    ``identify`` runs first, seeing only the key whose digest this holds (as ``identity_lookup``),
    and returns that key's enterprise or raises (nothing is written then). The same transaction
    then becomes the enterprise's tenant context, as ``tenant_context`` opens it, with the digest
    cleared: one transaction where the two steps took two (a commit and a begin fewer a call).
    """
    outer = _current.get()
    nested = connection.in_atomic_block
    with transaction.atomic():
        token = _current.set(TenantContext(enterprise_id=None, door="identity"))
        try:
            _set_local(KEY_DIGEST_SETTING, key_digest)
            enterprise_id = identify()
        finally:
            _current.reset(token)
        ctx = TenantContext(enterprise_id=enterprise_id, request_id=usable_request_id(request_id), door=door)
        token = _current.set(ctx)
        try:
            with _applied(ctx, outer=outer, nested=nested, clear_key_digest=True):
                yield ctx
        finally:
            _current.reset(token)


_M = TypeVar("_M", bound=models.Model)


class TenantQuerySet(models.QuerySet[_M]):
    pass


class TenantManager(models.Manager[_M]):
    """Refuses to query without a tenant context; filters by its enterprise."""

    def get_queryset(self) -> TenantQuerySet[_M]:
        ctx = current_tenant()
        if ctx.all_tenants or ctx.enterprise_id is None:
            # Identity lookups and the superuser admin rely on RLS alone.
            return TenantQuerySet(self.model, using=self._db)
        # Built once per thread and cloned (core.fastpath: measured paired, it pays).
        field = self.model._tenant_field  # type: ignore[attr-defined]
        return tenant_queryset(TenantQuerySet, self.model, self._db, field, ctx.enterprise_id)  # type: ignore[return-value]


class TenantModel(models.Model):
    """Base of every tenant-owned model: carries ``enterprise`` and is RLS-guarded."""

    enterprise = models.ForeignKey(
        "accounts.Enterprise", on_delete=models.CASCADE, related_name="+", editable=False
    )

    objects: Any = TenantManager()
    _tenant_field = "enterprise_id"
    # Extra RLS conditions (OR'ed) a table may need for a pre-tenant identity lookup.
    rls_extra_condition: str = ""

    class Meta:
        abstract = True
        base_manager_name = "objects"

    def save(self, *args: Any, **kwargs: Any) -> None:
        ctx = current_tenant()
        if not self.enterprise_id and ctx.enterprise_id is not None:  # type: ignore[has-type]
            self.enterprise_id = ctx.enterprise_id
        super().save(*args, **kwargs)


def tenant_models() -> list[type[models.Model]]:
    from django.apps import apps

    return [
        m for m in apps.get_models() if hasattr(m, "_tenant_field") and not m._meta.proxy and m._meta.managed
    ]


def rls_policy_sql(model: type[models.Model]) -> list[str]:
    """The statements that force RLS on one tenant table (idempotent)."""
    table = model._meta.db_table
    column = model._meta.get_field(model._tenant_field).column  # type: ignore[attr-defined,union-attr]
    tenant = f"{column} = NULLIF(current_setting('{ENTERPRISE_SETTING}', true), '')::uuid"
    all_tenants = f"current_setting('{ALL_TENANTS_SETTING}', true) = 'on'"
    extra = getattr(model, "rls_extra_condition", "")
    using = f"({tenant}) OR ({all_tenants})" + (f" OR ({extra})" if extra else "")
    # Writes are only ever for the tenant in context (never through the extras).
    check = f"({tenant}) OR ({all_tenants})"
    return [
        f'ALTER TABLE "{table}" ENABLE ROW LEVEL SECURITY',
        f'ALTER TABLE "{table}" FORCE ROW LEVEL SECURITY',
        f'DROP POLICY IF EXISTS tenant_isolation ON "{table}"',
        f'CREATE POLICY tenant_isolation ON "{table}" USING ({using}) WITH CHECK ({check})',
    ]
