"""Reads for single sign-on (docs/sso.md): the enterprise a sign-in names, its identity provider."""

from __future__ import annotations

import uuid

from accounts.models import IdentityProvider, SsoDirectory, Team


def sso_enterprise_id(*, slug: str) -> uuid.UUID | None:
    """The enterprise a sign-in names, if it signs in through an IdP (before any tenant is known: the
    global directory, not the enterprise's own row)."""
    slug = slug.strip().lower()
    row = SsoDirectory.objects.filter(slug=slug, enabled=True).first() if slug else None
    return row.enterprise_id if row is not None else None


def identity_provider_get() -> IdentityProvider | None:
    """The context's enterprise's identity provider, if it has one."""
    return IdentityProvider.objects.first()


def group_map_display(provider: IdentityProvider | None) -> list[dict[str, object]]:
    """The group rules with team slugs (a team deleted since is left out), for the settings page."""
    if provider is None:
        return []
    slugs = dict(Team.objects.values_list("pk", "slug"))
    return [
        {
            "group": rule["group"],
            "teams": [slugs[pk] for pk in rule.get("team_ids", []) if pk in slugs],
            "org_role": rule.get("org_role", ""),
        }
        for rule in provider.group_map
    ]
