"""Who a signed-in user is in each enterprise, and the enterprise of the tenant context."""

from __future__ import annotations

from accounts.models import Enterprise, Member, OrgRole
from core.tenancy import current_tenant, identity_lookup


def member_enterprises(*, user_id: int) -> list[dict[str, object]]:
    """The user's active memberships, across enterprises (before one is chosen)."""
    with identity_lookup(user_id=user_id):
        return list(
            Member.objects.filter(user_id=user_id, is_active=True)
            .order_by("created_at")
            .values("id", "enterprise_id", "org_role")
        )


def member_auditor_enterprise(*, user_id: int) -> str | None:
    for row in member_enterprises(user_id=user_id):
        if row["org_role"] == OrgRole.AUDITOR:
            return str(row["enterprise_id"])
    return None


def enterprise_current() -> Enterprise:
    """The context's enterprise as its door loaded it (the key door with the access key, the console
    with the member): no query there; elsewhere (a job, a test) one query."""
    ctx = current_tenant()
    for holder in (ctx.access_key, ctx.member):
        if holder is not None and holder.enterprise_id == ctx.enterprise_id:
            return holder.enterprise
    return Enterprise.objects.get(pk=ctx.enterprise_id)
