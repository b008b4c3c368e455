"""Writes on partner links. Every change lands on both sides and is audited on both, in one transaction.

``actor`` is the acting member (an owner or admin of its enterprise); ``None`` is the operator
(``manage.py partnerlink``), who names the enterprise it acts for with ``enterprise_id``.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from django.conf import settings
from django.core.exceptions import ValidationError
from django.db import transaction
from django.utils import timezone

from accounts import access
from accounts.models import Enterprise, Member, Project
from accounts.services.audit import audit_record
from core.errors import Forbidden, InvalidInput, NotFound
from events.models import EventType
from events.services import event_record
from memory.text import fold
from partners.door import side_context
from partners.models import LinkSide, LinkStatus, PartnerEntityAlias, PartnerLink, empty_exposure

LINK_NOT_FOUND = "partner link not found"
ADMIN_ONLY = "only an owner or admin may change partner links"
PROVIDER_ONLY = "only the provider side may set what the link exposes"
CONSUMER_ONLY = "only the consumer side may alias entities on a link"
LINK_REVOKED = "the link is revoked: request a new one"


def platform_min_contract_version() -> int:
    return int(settings.PARTNER_MIN_CONTRACT_VERSION)


def required_version(link: PartnerLink) -> int:
    return max(link.contract_version, platform_min_contract_version())


@dataclass
class LinkPair:
    """The acting side's row and, for a local link, the other side's row."""

    mine: PartnerLink
    theirs: PartnerLink | None

    def rows(self) -> list[PartnerLink]:
        return [self.mine] + ([self.theirs] if self.theirs is not None else [])


def _acting_enterprise(actor: Member | None, enterprise_id: uuid.UUID | str | None) -> uuid.UUID:
    if actor is not None:
        if not access.member_may_manage(actor):
            raise Forbidden(ADMIN_ONLY, code="partner_admin_only")
        return uuid.UUID(str(actor.enterprise_id))
    if enterprise_id is None:
        raise InvalidInput("the operator must name the enterprise it acts for", code="enterprise_required")
    return uuid.UUID(str(enterprise_id))


def _as_uuid(value: uuid.UUID | str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except ValueError as exc:
        raise NotFound(LINK_NOT_FOUND, code="link_not_found") from exc


def _load(
    *, actor: Member | None, link_id: uuid.UUID | str, enterprise_id: uuid.UUID | str | None
) -> LinkPair:
    acting = _acting_enterprise(actor, enterprise_id)
    wanted = _as_uuid(link_id)
    with side_context(acting):
        mine = PartnerLink.objects.select_for_update().filter(link_id=wanted).first()
    if mine is None:
        raise NotFound(LINK_NOT_FOUND, code="link_not_found")
    theirs = None
    if not mine.is_remote:
        with side_context(mine.partner_org_id):
            theirs = PartnerLink.objects.select_for_update().filter(link_id=wanted).first()
    return LinkPair(mine=mine, theirs=theirs)


def _actor_details(actor: Member | None, pair: LinkPair) -> dict[str, Any]:
    return {
        "link_id": str(pair.mine.link_id),
        "side": pair.mine.side,
        "actor_org": str(pair.mine.enterprise_id),
        "actor_member": actor.pk if actor is not None else None,
        "actor": "member" if actor is not None else "operator",
    }


def _write(
    pair: LinkPair,
    *,
    actor: Member | None,
    action: str,
    change: dict[str, Any],
    mutate: Callable[[PartnerLink], None],
) -> PartnerLink:
    now = timezone.now()
    details = {**_actor_details(actor, pair), **change}
    for row in pair.rows():
        with side_context(row.enterprise_id):
            mutate(row)
            row.updated_at = now
            row.save()
            audit_record(action=f"partner.link.{action}", target=row, details=details)
            _link_event(row, action)
    return pair.mine


def _refuse_revoked(pair: LinkPair) -> None:
    if pair.mine.status == LinkStatus.REVOKED:
        raise InvalidInput(LINK_REVOKED, code="link_revoked")


def _settle(row: PartnerLink) -> None:
    """After a consent: both at or above the required version make the link run at the lower of them."""
    provider, consumer = row.provider_consent_version, row.consumer_consent_version
    if provider is None or consumer is None:
        return
    needed = required_version(row)
    if min(provider, consumer) >= needed:
        row.contract_version = min(provider, consumer)
        if row.status == LinkStatus.PENDING:
            row.status = LinkStatus.ACTIVE
        row.was_activated = True


@transaction.atomic
def partner_link_request(
    *,
    actor: Member | None,
    provider_id: uuid.UUID | str,
    consumer_id: uuid.UUID | str,
    expires_at: datetime | None = None,
    contract_version: int | None = None,
    enterprise_id: uuid.UUID | str | None = None,
) -> PartnerLink:
    """A new pending link from ``provider_id`` to ``consumer_id``; the actor's enterprise is one of them."""
    acting = _acting_enterprise(actor, enterprise_id)
    provider, consumer = uuid.UUID(str(provider_id)), uuid.UUID(str(consumer_id))
    if provider == consumer:
        raise InvalidInput("a link joins two different enterprises", code="link_same_org")
    if acting not in (provider, consumer):
        raise Forbidden("an enterprise can request only links it is part of", code="partner_not_a_side")
    version = platform_min_contract_version() if contract_version is None else contract_version
    if version < platform_min_contract_version():
        raise InvalidInput(
            f"contract version must be {platform_min_contract_version()} or later", code="contract_too_old"
        )
    names: dict[uuid.UUID, str] = {}
    for org in (provider, consumer):
        with side_context(org):
            enterprise = Enterprise.objects.filter(pk=org).first()
        if enterprise is None:
            raise NotFound("partner enterprise not found", code="partner_org_not_found")
        names[org] = enterprise.name
    link_id = uuid.uuid4()
    now = timezone.now()
    rows = []
    for org, side, other in (
        (provider, LinkSide.PROVIDER, consumer),
        (consumer, LinkSide.CONSUMER, provider),
    ):
        with side_context(org):
            row = PartnerLink.objects.create(
                enterprise_id=org,
                link_id=link_id,
                side=side,
                partner_org_id=other,
                partner_name=names[other],
                contract_version=version,
                expires_at=expires_at,
                created_at=now,
                updated_at=now,
                exposure=empty_exposure(),
            )
            rows.append(row)
    pair = LinkPair(
        mine=rows[0] if acting == provider else rows[1], theirs=rows[1] if acting == provider else rows[0]
    )
    details = {
        **_actor_details(actor, pair),
        "provider": str(provider),
        "consumer": str(consumer),
        "contract_version": version,
        "expires_at": expires_at.isoformat() if expires_at else None,
    }
    for row in rows:
        with side_context(row.enterprise_id):
            audit_record(action="partner.link.request", target=row, details=details)
            _link_event(row, "request")
    return pair.mine


@transaction.atomic
def partner_link_consent(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    version: int,
    enterprise_id: uuid.UUID | str | None = None,
    for_partner: bool = False,
) -> PartnerLink:
    """The actor's side consents at ``version``. ``for_partner`` (operator only, remote links) records
    the other owner's consent on this deployment's row."""
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    _refuse_revoked(pair)
    if for_partner and (actor is not None or not pair.mine.is_remote):
        raise Forbidden("only the operator records the partner's consent, on a remote link", code="forbidden")
    needed = required_version(pair.mine)
    if version < needed:
        raise InvalidInput(f"consent must be at contract version {needed} or later", code="contract_too_old")
    side = pair.mine.side
    if for_partner:
        side = LinkSide.CONSUMER if side == LinkSide.PROVIDER else LinkSide.PROVIDER
    field = "provider_consent_version" if side == LinkSide.PROVIDER else "consumer_consent_version"

    def mutate(row: PartnerLink) -> None:
        setattr(row, field, version)
        _settle(row)

    return _write(
        pair,
        actor=actor,
        action="consent",
        change={"consenting_side": side, "version": version},
        mutate=mutate,
    )


@transaction.atomic
def partner_link_contract_bump(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    version: int,
    enterprise_id: uuid.UUID | str | None = None,
) -> PartnerLink:
    """Raise the link's contract version: both owners must consent again."""
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    _refuse_revoked(pair)
    previous = pair.mine.contract_version
    if version <= previous:
        raise InvalidInput(
            f"the new contract version must be higher than {previous}", code="contract_version_not_higher"
        )

    def mutate(row: PartnerLink) -> None:
        row.contract_version = version

    return _write(
        pair, actor=actor, action="contract_bump", change={"from": previous, "to": version}, mutate=mutate
    )


def _status_change(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    enterprise_id: uuid.UUID | str | None,
    action: str,
    allowed_from: Iterable[str],
    to: Callable[[PartnerLink], str],
) -> PartnerLink:
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    previous = pair.mine.status
    if previous not in set(allowed_from):
        raise InvalidInput(f"a {previous} link cannot be {action}d", code="link_state")
    target = to(pair.mine)

    def mutate(row: PartnerLink) -> None:
        row.status = target

    return _write(pair, actor=actor, action=action, change={"from": previous, "to": target}, mutate=mutate)


@transaction.atomic
def partner_link_suspend(
    *, actor: Member | None, link_id: uuid.UUID | str, enterprise_id: uuid.UUID | str | None = None
) -> PartnerLink:
    return _status_change(
        actor=actor,
        link_id=link_id,
        enterprise_id=enterprise_id,
        action="suspend",
        allowed_from=(LinkStatus.PENDING, LinkStatus.ACTIVE),
        to=lambda _row: LinkStatus.SUSPENDED,
    )


@transaction.atomic
def partner_link_resume(
    *, actor: Member | None, link_id: uuid.UUID | str, enterprise_id: uuid.UUID | str | None = None
) -> PartnerLink:
    return _status_change(
        actor=actor,
        link_id=link_id,
        enterprise_id=enterprise_id,
        action="resume",
        allowed_from=(LinkStatus.SUSPENDED,),
        to=lambda row: LinkStatus.ACTIVE if row.was_activated else LinkStatus.PENDING,
    )


@transaction.atomic
def partner_link_revoke(
    *, actor: Member | None, link_id: uuid.UUID | str, enterprise_id: uuid.UUID | str | None = None
) -> PartnerLink:
    return _status_change(
        actor=actor,
        link_id=link_id,
        enterprise_id=enterprise_id,
        action="revoke",
        allowed_from=(LinkStatus.PENDING, LinkStatus.ACTIVE, LinkStatus.SUSPENDED),
        to=lambda _row: LinkStatus.REVOKED,
    )


@transaction.atomic
def partner_link_expiry_set(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    expires_at: datetime | None,
    enterprise_id: uuid.UUID | str | None = None,
) -> PartnerLink:
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    _refuse_revoked(pair)

    def mutate(row: PartnerLink) -> None:
        row.expires_at = expires_at

    return _write(
        pair,
        actor=actor,
        action="expiry",
        change={"expires_at": expires_at.isoformat() if expires_at else None},
        mutate=mutate,
    )


@transaction.atomic
def partner_link_principal_set(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    active: bool,
    enterprise_id: uuid.UUID | str | None = None,
) -> PartnerLink:
    """Open or close the consumer direction's principal (either side may)."""
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    _refuse_revoked(pair)

    def mutate(row: PartnerLink) -> None:
        row.consumer_principal_active = active

    return _write(
        pair, actor=actor, action="principal", change={"consumer_principal_active": active}, mutate=mutate
    )


def _exposed_projects(provider_id: uuid.UUID, projects: Iterable[str]) -> list[str]:
    ids: list[str] = []
    with side_context(provider_id):
        for ref in projects:
            project = Project.objects.filter(slug=ref).first()
            if project is None:
                try:
                    project = Project.objects.filter(pk=uuid.UUID(str(ref))).first()
                except ValueError:
                    project = None
            if project is None:
                raise InvalidInput(f"no project {ref!r} in the providing enterprise", code="unknown_project")
            ids.append(str(project.pk))
    return sorted(set(ids))


@transaction.atomic
def partner_link_exposure_set(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    projects: Iterable[str] = (),
    save_domains: Iterable[str] = (),
    memory_ids: Iterable[str] = (),
    enterprise_id: uuid.UUID | str | None = None,
) -> PartnerLink:
    """What the link opens: projects (slug or id) or save domains, and memories shared through it."""
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    _refuse_revoked(pair)
    if not pair.mine.is_provider:
        raise Forbidden(PROVIDER_ONLY, code="partner_provider_only")
    shared: list[str] = []
    for raw in memory_ids:
        try:
            shared.append(str(uuid.UUID(str(raw))))
        except ValueError as exc:
            raise InvalidInput(f"memory id {raw!r} is not a uuid", code="invalid_memory_id") from exc
    exposure = {
        "projects": _exposed_projects(pair.mine.enterprise_id, projects),
        "save_domains": sorted({d.strip() for d in save_domains if d.strip()}),
        "memory_ids": sorted(set(shared)),
    }

    def mutate(row: PartnerLink) -> None:
        # Only the provider's row carries the exposure: the consumer sees what is open, not how.
        if row.is_provider:
            row.exposure = exposure

    return _write(pair, actor=actor, action="exposure", change={"exposure": exposure}, mutate=mutate)


def _consumer_pair(
    actor: Member | None, link_id: uuid.UUID | str, enterprise_id: uuid.UUID | str | None
) -> LinkPair:
    pair = _load(actor=actor, link_id=link_id, enterprise_id=enterprise_id)
    _refuse_revoked(pair)
    if pair.mine.is_provider:
        raise Forbidden(CONSUMER_ONLY, code="partner_consumer_only")
    return pair


def _link_event(row: PartnerLink, action: str) -> None:
    """``partner_link.changed`` on this side (the caller is in its context): which link, what happened."""
    event_record(
        type=EventType.PARTNER_LINK_CHANGED,
        subject=f"partner_link:{row.link_id}",
        data={"link_id": str(row.link_id), "side": row.side, "action": action, "status": row.status},
    )


def _audit_both(pair: LinkPair, *, actor: Member | None, action: str, change: dict[str, Any]) -> None:
    details = {**_actor_details(actor, pair), **change}
    for row in pair.rows():
        with side_context(row.enterprise_id):
            audit_record(action=f"partner.link.{action}", target=row, details=details)
            _link_event(row, action)


def _names(home_name: str, partner_name: str) -> tuple[str, str, str, str]:
    home, partner = home_name.strip(), partner_name.strip()
    if not home or not partner:
        raise InvalidInput("an alias needs a home name and a partner name", code="alias_empty")
    return home, fold(home), partner, fold(partner)


@transaction.atomic
def partner_link_alias_add(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    home_name: str,
    partner_name: str,
    enterprise_id: uuid.UUID | str | None = None,
) -> PartnerEntityAlias:
    """The link treats the partner's ``partner_name`` as the home entity ``home_name``."""
    pair = _consumer_pair(actor, link_id, enterprise_id)
    home, home_key, partner, partner_key = _names(home_name, partner_name)
    with side_context(pair.mine.enterprise_id):
        alias, _ = PartnerEntityAlias.objects.get_or_create(
            link=pair.mine,
            home_key=home_key,
            partner_key=partner_key,
            defaults={"enterprise_id": pair.mine.enterprise_id, "home_name": home, "partner_name": partner},
        )
    _audit_both(pair, actor=actor, action="alias_add", change={"home_name": home, "partner_name": partner})
    return alias


@transaction.atomic
def partner_link_alias_remove(
    *,
    actor: Member | None,
    link_id: uuid.UUID | str,
    home_name: str,
    partner_name: str,
    enterprise_id: uuid.UUID | str | None = None,
) -> None:
    pair = _consumer_pair(actor, link_id, enterprise_id)
    home, home_key, partner, partner_key = _names(home_name, partner_name)
    with side_context(pair.mine.enterprise_id):
        deleted, _ = PartnerEntityAlias.objects.filter(
            link=pair.mine, home_key=home_key, partner_key=partner_key
        ).delete()
    if not deleted:
        raise NotFound("no such alias on this link", code="alias_not_found")
    _audit_both(pair, actor=actor, action="alias_remove", change={"home_name": home, "partner_name": partner})


def parse_uuid(value: str, *, what: str) -> uuid.UUID:
    try:
        return uuid.UUID(str(value))
    except (ValueError, ValidationError) as exc:
        raise InvalidInput(f"{what} must be a uuid", code="invalid_uuid") from exc
