"""Who a signed-in user is in each enterprise."""

from __future__ import annotations

from accounts.models import Member, OrgRole
from core.tenancy import identity_lookup


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
