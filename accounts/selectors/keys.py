"""Access-key authentication: the one read that happens before a tenant is known."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime

from django.utils import timezone

from accounts.errors import NotAuthenticated
from accounts.models import AccessKey
from accounts.services.keys import access_key_digest
from accounts.tenancy import identity_lookup

MISSING_KEY = "missing access key: send it as 'Authorization: Bearer <key>'"
INVALID_KEY = "invalid access key"
REVOKED_KEY = "access key was revoked"
EXPIRED_KEY = "access key has expired"


@dataclass(frozen=True)
class KeyIdentity:
    key_id: uuid.UUID
    enterprise_id: uuid.UUID


def access_key_identify(*, secret: str | None, now: datetime | None = None) -> KeyIdentity:
    """Which key (and so which enterprise) this secret is; refuses unknown, revoked, expired."""
    if not secret:
        raise NotAuthenticated(MISSING_KEY, code="missing_key")
    digest = access_key_digest(secret.strip())
    with identity_lookup(key_digest=digest):
        row = (
            AccessKey.objects.filter(digest=digest)
            .values("id", "enterprise_id", "revoked_at", "expires_at")
            .first()
        )
    if row is None:
        raise NotAuthenticated(INVALID_KEY, code="invalid_key")
    if row["revoked_at"] is not None:
        raise NotAuthenticated(REVOKED_KEY, code="key_revoked")
    if row["expires_at"] is not None and row["expires_at"] <= (now or timezone.now()):
        raise NotAuthenticated(EXPIRED_KEY, code="key_expired")
    return KeyIdentity(key_id=row["id"], enterprise_id=row["enterprise_id"])


def access_key_load(*, key_id: uuid.UUID) -> AccessKey:
    """Inside the key's tenant context: the key with what every door needs of it."""
    return AccessKey.objects.select_related("member__user", "project", "workspace").get(pk=key_id)


def bearer_secret(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()
