"""Reads on partner links: the state both sides see, and whether a link answers now."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.utils import timezone

from accounts.models import AuditEvent
from core.errors import NotFound
from core.tenancy import identity_lookup
from partners.models import LinkSide, LinkStatus, PartnerEntityAlias, PartnerLink
from partners.services.links import LINK_NOT_FOUND, required_version

REMOTE_UNAVAILABLE = "remote_org_unavailable"
# The reasons list_partner_links may name, in the order they are checked.
BLOCKED_REASONS = (
    "principal_not_active",
    "link_not_active",
    "link_expired",
    "contract_version_too_old",
    REMOTE_UNAVAILABLE,
)
# Audit action of a partner read on the consumer's side: its details say how the remote answered.
READ_ACTION = "partner.read"


@dataclass(frozen=True)
class PartnerLinkState:
    link_id: uuid.UUID
    side: str
    partner_org_id: uuid.UUID
    partner_name: str
    status: str
    usable: bool
    blocked_reason: str | None
    contract_version: int
    required_version: int
    reconsent: dict[str, bool]
    my_consent_version: int | None
    partner_consent_version: int | None
    expires_at: datetime | None
    created_at: datetime
    updated_at: datetime
    consumer_principal_active: bool
    exposure: dict[str, Any]
    remote_url: str
    aliases: list[tuple[str, str]]


def partner_link_get(*, link_id: uuid.UUID | str) -> PartnerLink:
    """This tenant's side of a link; another tenant's link is exactly as missing as no link."""
    try:
        wanted = uuid.UUID(str(link_id))
    except ValueError as exc:
        raise NotFound(LINK_NOT_FOUND, code="link_not_found") from exc
    link = PartnerLink.objects.filter(link_id=wanted).first()
    if link is None:
        raise NotFound(LINK_NOT_FOUND, code="link_not_found")
    return link


def partner_link_find(*, link_id: uuid.UUID | str) -> PartnerLink | None:
    """This tenant's side of the link with this id, or None: a text that is no UUID finds none, unqueried."""
    try:
        wanted = uuid.UUID(str(link_id))
    except ValueError:
        return None
    return PartnerLink.objects.filter(link_id=wanted).first()


def partner_links_consumed_any() -> bool:
    """Whether this tenant holds the consumer side of any link (whatever its state)."""
    return PartnerLink.objects.filter(side=LinkSide.CONSUMER).exists()


def provider_link_for_credential(*, digest: str) -> tuple[uuid.UUID, uuid.UUID] | None:
    """(enterprise_id, link_id) of the provider side whose per-link credential has this digest, or None.

    Read before any tenant is in context, through ``identity_lookup`` on the digest.
    """
    with identity_lookup(key_digest=digest):
        return (
            PartnerLink.objects.filter(credential_digest=digest, side=LinkSide.PROVIDER)
            .values_list("enterprise_id", "link_id")
            .first()
        )


def _consents(link: PartnerLink) -> tuple[int | None, int | None]:
    """(mine, partner's) consent versions, from this row's side."""
    if link.side == LinkSide.PROVIDER:
        return link.provider_consent_version, link.consumer_consent_version
    return link.consumer_consent_version, link.provider_consent_version


def partner_link_reconsent(*, link: PartnerLink) -> dict[str, bool]:
    needed = required_version(link)
    mine, partner = _consents(link)
    return {"mine": mine is None or mine < needed, "partner": partner is None or partner < needed}


def remotes_last_unavailable(*, links: list[PartnerLink]) -> set[int]:
    """The remote links (row pks) whose last call found the provider deployment unreachable: one query.

    Read from the consumer's audit of its partner reads, so listing stays local and writes nothing.
    """
    remote = [str(link.pk) for link in links if link.is_remote and not link.is_provider]
    if not remote:
        return set()
    last = (
        AuditEvent.objects.filter(action=READ_ACTION, target_id__in=remote, details__has_key="remote")
        .order_by("target_id", "-created_at", "-id")
        .distinct("target_id")
        .values_list("target_id", "details")
    )
    return {int(target) for target, details in last if details.get("remote") == "unavailable"}


def partner_link_usability(
    *, link: PartnerLink, side: str | None = None, check_remote: bool = True, remote_down: bool | None = None
) -> tuple[bool, str | None]:
    """(usable, blocked_reason) for reading through ``link`` from ``side`` (default: the row's side).

    ``check_remote`` looks up whether a remote provider was last found down (``remote_down`` when
    the caller already knows, as the list does for all its links in one query).
    """
    side = side or link.side
    if side == LinkSide.PROVIDER or not link.consumer_principal_active:
        return False, "principal_not_active"
    if link.status != LinkStatus.ACTIVE:
        return False, "link_not_active"
    if link.expires_at is not None and link.expires_at <= timezone.now():
        return False, "link_expired"
    needed = required_version(link)
    mine, partner = _consents(link)
    if link.contract_version < needed or mine is None or partner is None or min(mine, partner) < needed:
        return False, "contract_version_too_old"
    if remote_down is None and check_remote:
        remote_down = link.pk in remotes_last_unavailable(links=[link])
    if check_remote and remote_down:
        return False, REMOTE_UNAVAILABLE
    return True, None


def partner_link_state(
    *, link: PartnerLink, aliases: list[tuple[str, str]] | None = None, remote_down: bool | None = None
) -> PartnerLinkState:
    usable, reason = partner_link_usability(link=link, remote_down=remote_down)
    mine, partner = _consents(link)
    return PartnerLinkState(
        link_id=link.link_id,
        side=link.side,
        partner_org_id=link.partner_org_id,
        partner_name=link.partner_name,
        status=link.status,
        usable=usable,
        blocked_reason=reason,
        contract_version=link.contract_version,
        required_version=required_version(link),
        reconsent=partner_link_reconsent(link=link),
        my_consent_version=mine,
        partner_consent_version=partner,
        expires_at=link.expires_at,
        created_at=link.created_at,
        updated_at=link.updated_at,
        consumer_principal_active=link.consumer_principal_active,
        exposure=dict(link.exposure) if link.is_provider else {},
        remote_url=link.remote_url,
        aliases=aliases if aliases is not None else [],
    )


def partner_links_list(*, enterprise_id: uuid.UUID | str | None = None) -> list[PartnerLinkState]:
    """Every link of the tenant in context, both sides (provided and consumed), newest first.

    ``enterprise_id`` must be the tenant in context when given (the console passes its own).
    """
    links = list(PartnerLink.objects.order_by("-created_at", "link_id"))
    if enterprise_id is not None:
        links = [link for link in links if str(link.enterprise_id) == str(enterprise_id)]
    aliases: dict[int, list[tuple[str, str]]] = {}
    for link_pk, home, partner in PartnerEntityAlias.objects.filter(link__in=links).values_list(
        "link_id", "home_name", "partner_name"
    ):
        aliases.setdefault(link_pk, []).append((home, partner))
    down = remotes_last_unavailable(links=links)
    return [
        partner_link_state(link=link, aliases=sorted(aliases.get(link.pk, [])), remote_down=link.pk in down)
        for link in links
    ]


def partner_link_aliases(*, link: PartnerLink) -> dict[str, str]:
    """partner key -> home name, for folding the partner's entities under the home spelling."""
    return dict(PartnerEntityAlias.objects.filter(link=link).values_list("partner_key", "home_name"))
