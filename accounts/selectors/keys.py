"""Access-key authentication: the one read that happens before a tenant is known."""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import datetime

from django.db import connection
from django.db.models import QuerySet
from django.utils import timezone

from accounts.models import AccessKey
from accounts.services.keys import access_key_digest
from core.errors import NotAuthenticated
from core.fastpath import CompiledQuery
from core.tenancy import TenantContext, current_tenant, identity_lookup, key_tenant_context

MISSING_KEY = "missing access key: send it as 'Authorization: Bearer <key>'"
INVALID_KEY = "invalid access key"
REVOKED_KEY = "access key was revoked"
EXPIRED_KEY = "access key has expired"


@dataclass(frozen=True)
class KeyIdentity:
    key_id: uuid.UUID
    enterprise_id: uuid.UUID


def _digest_of(secret: str | None) -> str:
    if not secret:
        raise NotAuthenticated(MISSING_KEY, code="missing_key")
    return access_key_digest(secret.strip())


def _identity_by_digest(digest: str, now: datetime | None = None) -> KeyIdentity:
    """Inside an identity lookup for ``digest``: the key it names, or the seed's refusals."""
    # One plain SQL statement through a cursor (Django's public API for it), on every call: the
    # queryset's compilation took more CPU than the read. Before a tenant is known RLS alone shows the
    # one key whose digest is set.
    with connection.cursor() as cursor:
        cursor.execute(
            f"SELECT id, enterprise_id, revoked_at, expires_at FROM {AccessKey._meta.db_table} "
            "WHERE digest = %s LIMIT 1",
            [digest],
        )
        row = cursor.fetchone()
    if row is None:
        raise NotAuthenticated(INVALID_KEY, code="invalid_key")
    key_id, enterprise_id, revoked_at, expires_at = row
    if revoked_at is not None:
        raise NotAuthenticated(REVOKED_KEY, code="key_revoked")
    if expires_at is not None and expires_at <= (now or timezone.now()):
        raise NotAuthenticated(EXPIRED_KEY, code="key_expired")
    return KeyIdentity(key_id=key_id, enterprise_id=enterprise_id)


def access_key_identify(*, secret: str | None, now: datetime | None = None) -> KeyIdentity:
    """Which key (and so which enterprise) this secret is; refuses unknown, revoked, expired."""
    digest = _digest_of(secret)
    with identity_lookup(key_digest=digest):
        return _identity_by_digest(digest, now)


@contextmanager
def access_key_door(
    *, secret: str | None, request_id: str | None = None, door: str
) -> Iterator[tuple[TenantContext, AccessKey]]:
    """A key door's transaction: the secret identified, then its tenant context with the key loaded
    (``access_key_load``) and set on the context. Raises NotAuthenticated before anything is read
    of the tenant; everything in the block is that tenant's one transaction."""
    digest = _digest_of(secret)
    identity: list[KeyIdentity] = []

    def identify() -> uuid.UUID:
        identity.append(_identity_by_digest(digest))
        return identity[0].enterprise_id

    with key_tenant_context(key_digest=digest, identify=identify, request_id=request_id, door=door) as ctx:
        key = access_key_load(key_id=identity[0].key_id)
        ctx.access_key, ctx.member = key, key.member
        yield ctx, key


def _key_with_what_doors_need(enterprise_id: uuid.UUID, key_id: uuid.UUID) -> QuerySet[AccessKey]:
    # A plain QuerySet: the tenant condition is here, explicit (the manager's needs a context to build).
    return (
        QuerySet(model=AccessKey)
        .select_related("member__user", "project__team", "workspace", "enterprise__plan", "run")
        .filter(enterprise_id=enterprise_id, pk=key_id)
    )


# Compiled once per thread (core.fastpath: measured paired, it pays on every tool call).
_KEY_FOR_DOORS = CompiledQuery(
    _key_with_what_doors_need, enterprise_id=uuid.UUID(int=1), key_id=uuid.UUID(int=2)
)


def access_key_load(*, key_id: uuid.UUID) -> AccessKey:
    """Inside the key's tenant context: the key with what every door needs of it (its member and
    user, project and team, workspace, enterprise and plan, and its run when it is a run key: the
    reverse of ``TaskRun.run_key``, so ``bound_run`` / ``bound_task_id`` cost nothing), in one
    statement compiled once per thread."""
    enterprise_id = current_tenant().enterprise_id
    key = _KEY_FOR_DOORS.first(enterprise_id=enterprise_id, key_id=key_id) if enterprise_id else None
    if key is None:
        raise AccessKey.DoesNotExist("access key not found in this tenant")
    return key
