"""The partners door: the one place that enters the *other* enterprise's tenant context.

A partner link touches two enterprises. Its services write (and audit) both sides, and a partner
read runs the provider side under the provider's context. Both go through ``side_context``, nested
in the caller's transaction, so each statement still runs under exactly one enterprise's RLS.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterator
from contextlib import contextmanager

from core.tenancy import TenantContext, current_tenant_or_none, tenant_context


@contextmanager
def side_context(enterprise_id: uuid.UUID) -> Iterator[TenantContext]:
    """One side of a link, inside the caller's transaction (the caller's own side keeps its member)."""
    outer = current_tenant_or_none()
    same = outer is not None and outer.enterprise_id == enterprise_id
    with tenant_context(
        enterprise_id=enterprise_id,
        member=outer.member if same and outer else None,
        access_key=outer.access_key if same and outer else None,
        session_key=outer.session_key if same and outer else "",
        request_id=outer.request_id if outer else None,
        door=(outer.door if outer and outer.door else "partners"),
    ) as ctx:
        yield ctx
