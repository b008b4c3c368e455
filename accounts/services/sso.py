"""Single sign-on for the console: an enterprise's OpenID Connect identity provider (docs/sso.md).

``sso_configure``: owners and admins set the issuer, client, allowed e-mail domains, the default org role
of members made just in time, and the IdP groups that map to teams (and optionally an org role); audited.
``sso_authenticate``: the callback's sign-in, through ``accounts.oidc`` (mozilla-django-oidc verifies
the ID token: state, nonce, PKCE, signature by the IdP's JWKS; issuer, audience, expiry added there),
then ``sso_member_sign_in`` finds or makes the user and the member, in this enterprise only.

An IdP signs in only the users it made: a subject (``sub``) is tied to a user through ``SsoIdentity``,
which is tenant-owned, so the IdP of enterprise A never reaches a user, or a member, of enterprise B. An
existing password account is never taken over by an e-mail address an IdP asserts.
"""

from __future__ import annotations

import secrets
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import requests
from django.contrib.auth.models import User
from django.core.exceptions import SuspiciousOperation
from django.db import transaction
from django.http import HttpRequest
from django.utils import timezone

from accounts import access, oidc
from accounts.models import (
    Enterprise,
    IdentityProvider,
    Member,
    OrgRole,
    SsoDirectory,
    SsoIdentity,
    Team,
    TeamMembership,
)
from accounts.services.audit import audit_record
from accounts.services.enterprises import member_add
from core.errors import Forbidden, InvalidInput, NotAuthenticated, NotFound

ADMINS_ONLY = "only the enterprise's owners and admins configure single sign-on"
NOT_CONFIGURED = "this enterprise has no identity provider for sign-in: sign in with a password"
SECRET_REQUIRED = "the client secret is required when the identity provider is first set up"
DOMAINS_REQUIRED = "name at least one allowed e-mail domain"
BAD_DOMAIN = "{domain!r} is not an e-mail domain"
BAD_ROLE = "{role!r} cannot be given by sign-on; choose admin, member or auditor"
UNKNOWN_TEAM = "unknown team {slug!r} in the group mapping"
BAD_CLIENT_ID = "the client id is 1 to 255 characters"
SIGN_IN_FAILED = "the identity provider's answer could not be verified: sign in again"
NO_EMAIL = "the identity provider gave no verified e-mail address"
DOMAIN_REFUSED = "e-mail domain {domain!r} may not sign in to this enterprise"
DEACTIVATED = "this membership was deactivated in this organization"

# Roles a sign-on may give: an owner is made by an owner, in the console, never by an IdP's group.
SSO_ROLES = (OrgRole.ADMIN, OrgRole.MEMBER, OrgRole.AUDITOR)


@dataclass(frozen=True)
class GroupRule:
    """Members whose ``groups`` claim holds ``group`` join ``teams`` (slugs), and get ``org_role`` if set."""

    group: str
    teams: Sequence[str] = ()
    org_role: str = ""


def _sso_role(role: str) -> str:
    if role not in SSO_ROLES:
        raise InvalidInput(BAD_ROLE.format(role=role), code="invalid_role")
    return role


def _domains(domains: Iterable[str]) -> list[str]:
    cleaned: list[str] = []
    for raw in domains:
        domain = raw.strip().lower().lstrip("@")
        if not domain:
            continue
        labels = domain.split(".")
        if (
            len(domain) > 253
            or len(labels) < 2
            or not all(label and len(label) <= 63 and label.replace("-", "").isalnum() for label in labels)
        ):
            raise InvalidInput(BAD_DOMAIN.format(domain=raw.strip()), code="invalid_domain")
        if domain not in cleaned:
            cleaned.append(domain)
    if not cleaned:
        raise InvalidInput(DOMAINS_REQUIRED, code="invalid_domain")
    return cleaned


def _group_map(rules: Iterable[GroupRule]) -> list[dict[str, Any]]:
    teams = dict(Team.objects.values_list("slug", "pk"))
    stored: list[dict[str, Any]] = []
    for rule in rules:
        group = rule.group.strip()
        if not group:
            continue
        unknown = [slug for slug in rule.teams if slug not in teams]
        if unknown:
            raise InvalidInput(UNKNOWN_TEAM.format(slug=unknown[0]), code="unknown_team")
        stored.append(
            {
                "group": group[:255],
                "team_ids": [teams[slug] for slug in rule.teams],
                "org_role": _sso_role(rule.org_role) if rule.org_role else "",
            }
        )
    return stored


@transaction.atomic
def sso_configure(
    *,
    actor: Member,
    enterprise: Enterprise,
    issuer: str,
    client_id: str,
    client_secret: str = "",
    allowed_domains: Iterable[str],
    default_org_role: str = OrgRole.MEMBER,
    group_map: Iterable[GroupRule] = (),
    enabled: bool = True,
) -> IdentityProvider:
    """Set up or change the enterprise's IdP. A blank ``client_secret`` keeps the one stored."""
    if not access.member_may_manage(actor):
        raise Forbidden(ADMINS_ONLY, code="sso_manage_denied")
    client_id = client_id.strip()
    if not 1 <= len(client_id) <= 255:
        raise InvalidInput(BAD_CLIENT_ID, code="invalid_client_id")
    provider = IdentityProvider.objects.select_for_update().first()
    if provider is None:
        if not client_secret:
            raise InvalidInput(SECRET_REQUIRED, code="secret_required")
        provider = IdentityProvider(enterprise=enterprise)
    provider.issuer = oidc.issuer_normalize(issuer)
    provider.client_id = client_id
    if client_secret:
        provider.secret_sealed = oidc.secret_seal(client_secret)
    provider.allowed_domains = _domains(allowed_domains)
    provider.default_org_role = _sso_role(default_org_role)
    provider.group_map = _group_map(group_map)
    provider.enabled = enabled
    provider.updated_at = timezone.now()
    provider.save()
    SsoDirectory.objects.update_or_create(
        enterprise_id=enterprise.pk, defaults={"slug": enterprise.slug, "enabled": enabled}
    )
    audit_record(
        action="sso.configure",
        target=provider,
        details={
            "issuer": provider.issuer,
            "client_id": provider.client_id,
            "secret_changed": bool(client_secret),
            "allowed_domains": provider.allowed_domains,
            "default_org_role": provider.default_org_role,
            "groups": [rule["group"] for rule in provider.group_map],
            "enabled": enabled,
        },
    )
    return provider


def sso_provider_usable() -> IdentityProvider:
    """The context's enterprise's enabled IdP, or not found (the login page says: use a password)."""
    provider = IdentityProvider.objects.filter(enabled=True).first()
    if provider is None:
        raise NotFound(NOT_CONFIGURED, code="sso_not_configured")
    return provider


def sso_start(*, request: HttpRequest, provider: IdentityProvider) -> str:
    """The URL of the IdP's authorization request for this enterprise (state, nonce and PKCE kept in the
    session, with the enterprise the state is for)."""
    endpoints = oidc.discover(provider.issuer)
    return oidc.authorization_url(
        request, enterprise_id=str(provider.enterprise_id), endpoints=endpoints, client_id=provider.client_id
    )


def sso_authenticate(
    *, request: HttpRequest, provider: IdentityProvider, pending: oidc.PendingSignIn
) -> Member:
    """The callback: the code exchanged and the ID token verified by the library against this enterprise's
    IdP (its issuer, this client as audience, its JWKS), then ``sso_member_sign_in``."""
    endpoints = oidc.discover(provider.issuer)
    backend = oidc.EnterpriseOIDCBackend(
        endpoints=endpoints,
        client_id=provider.client_id,
        client_secret=oidc.secret_open(provider.secret_sealed),
        on_claims=lambda claims: sso_member_sign_in(provider=provider, claims=claims),
    )
    try:
        member = backend.authenticate(request, nonce=pending.nonce, code_verifier=pending.code_verifier)
    except (SuspiciousOperation, requests.RequestException, ValueError, KeyError, TypeError) as exc:
        raise NotAuthenticated(SIGN_IN_FAILED, code="sso_token_refused") from exc
    if not isinstance(member, Member):
        raise NotAuthenticated(SIGN_IN_FAILED, code="sso_token_refused")
    return member


def _email(claims: Mapping[str, Any]) -> str:
    email = str(claims.get("email") or "").strip()
    if "@" not in email or claims.get("email_verified") is False:
        raise Forbidden(NO_EMAIL, code="sso_no_email")
    return email


def _groups(claims: Mapping[str, Any]) -> set[str]:
    groups = claims.get("groups") or []
    if isinstance(groups, str):
        groups = [groups]
    return {str(group) for group in groups if isinstance(group, str | int)}


def _mapped(provider: IdentityProvider, groups: set[str]) -> tuple[list[Team], str]:
    """The teams the member's groups map to, and the highest org role they give (else the default)."""
    rules = [rule for rule in provider.group_map if rule["group"] in groups]
    team_ids = {pk for rule in rules for pk in rule.get("team_ids", [])}
    roles = [rule["org_role"] for rule in rules if rule.get("org_role") in SSO_ROLES]
    role = max(roles, key=lambda r: access.ROLE_RANK[OrgRole(r)]) if roles else provider.default_org_role
    return list(Team.objects.filter(pk__in=team_ids).select_related("group").order_by("slug")), role


def _username_for(email: str) -> str:
    """The e-mail address as the username, made unique when another account has it already."""
    base = email[:140]
    if not User.objects.filter(username__iexact=base).exists():
        return base
    return f"{base}-{secrets.token_hex(4)}"


@transaction.atomic
def sso_member_sign_in(*, provider: IdentityProvider, claims: Mapping[str, Any]) -> Member:
    """Verified claims of this enterprise's IdP to a member of this enterprise: the e-mail domain must be
    allowed; the subject's user is found (``SsoIdentity``) or made, with a member just in time (the default
    org role or the one its groups map to, and the mapped teams); later sign-ins add newly mapped teams."""
    subject = str(claims.get("sub") or "")
    if not subject:
        raise NotAuthenticated(SIGN_IN_FAILED, code="sso_token_refused")
    email = _email(claims)
    domain = email.rsplit("@", 1)[1].lower()
    if domain not in provider.allowed_domains:
        raise Forbidden(DOMAIN_REFUSED.format(domain=domain), code="sso_domain_refused")
    teams, role = _mapped(provider, _groups(claims))
    identity = SsoIdentity.objects.select_related("user").filter(provider=provider, subject=subject).first()
    if identity is None:
        user = User(username=_username_for(email), email=email)
        user.set_unusable_password()
        user.save()
        identity = SsoIdentity.objects.create(
            enterprise_id=provider.enterprise_id, provider=provider, subject=subject, user=user, email=email
        )
    else:
        identity.email = email
        identity.last_sign_in_at = timezone.now()
        identity.save(update_fields=["email", "last_sign_in_at"])
    user = identity.user
    member = Member.objects.select_related("enterprise").filter(user=user).first()
    if member is None:
        member = member_add(enterprise=provider.enterprise, user=user, org_role=role, teams=teams)
        audit_record(
            action="sso.member_join",
            target=member,
            details={"email": email, "org_role": role, "teams": [team.slug for team in teams]},
        )
    elif not member.is_active:
        raise Forbidden(DEACTIVATED, code="member_deactivated")
    else:
        have = set(TeamMembership.objects.filter(member=member).values_list("team_id", flat=True))
        for team in teams:
            if team.pk not in have:
                TeamMembership.objects.create(enterprise_id=member.enterprise_id, member=member, team=team)
                user.groups.add(team.group)
    audit_record(action="sso.sign_in", target=member, details={"email": email, "subject": subject})
    return member
