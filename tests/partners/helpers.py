"""Helpers for partner link tests: a link both owners consented to, memories on the provider side."""

from __future__ import annotations

import uuid
from typing import Any

from accounts.models import AuditEvent
from core.tenancy import tenant_context
from memory.models import Memory
from partners.models import PartnerLink
from partners.services.links import partner_link_consent, partner_link_exposure_set, partner_link_request
from tests.memory.helpers import save_event


def admin_member(world, slug: str):
    """The admin of an enterprise of the test world: alice in A, bob in B."""
    person = world.alice if slug == "a" else world.bob
    return person.members[getattr(world, slug).enterprise.slug]


def in_org(world, slug: str):
    return tenant_context(enterprise_id=getattr(world, slug).enterprise.pk, door="test")


def active_link(
    world, *, provider: str = "b", consumer: str = "a", projects=("alpha",), save_domains=()
) -> uuid.UUID:
    """A link from ``provider`` to ``consumer``, consented by both admins, exposing ``projects``."""
    with in_org(world, provider):
        row = partner_link_request(
            actor=admin_member(world, provider),
            provider_id=getattr(world, provider).enterprise.pk,
            consumer_id=getattr(world, consumer).enterprise.pk,
        )
        link_id = row.link_id
        partner_link_consent(actor=admin_member(world, provider), link_id=link_id, version=1)
        partner_link_exposure_set(
            actor=admin_member(world, provider), link_id=link_id, projects=projects, save_domains=save_domains
        )
    with in_org(world, consumer):
        partner_link_consent(actor=admin_member(world, consumer), link_id=link_id, version=1)
    return link_id


def provider_event(
    client,
    world,
    summary: str,
    content: str,
    *,
    visibility: str = "enterprise",
    entities=(),
    slug="b",
    **extra: Any,
) -> str:
    """bob saves in B (project alpha); the memory is then given ``visibility``."""
    secret = (
        world.bob.keys[world.b.enterprise.slug][1]
        if slug == "b"
        else world.alice.keys[world.a.enterprise.slug][1]
    )
    event_id = save_event(client, secret, summary, content, entities=entities, **extra)
    with in_org(world, slug):
        Memory.objects.filter(pk=event_id).update(visibility=visibility)
    return event_id


def link_row(world, slug: str, link_id) -> PartnerLink:
    with in_org(world, slug):
        return PartnerLink.objects.get(link_id=link_id)


def audits(world, slug: str, action: str) -> list[AuditEvent]:
    with in_org(world, slug):
        return list(AuditEvent.objects.filter(action=action).order_by("id"))
