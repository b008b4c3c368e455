"""Partner link services and selectors: both sides, consent, contract versions, audit on both sides."""

from __future__ import annotations

from datetime import timedelta

import pytest
from django.test import override_settings
from django.utils import timezone

from accounts.models import AuditEvent
from core.errors import Forbidden, InvalidInput, NotFound
from partners.selectors.links import partner_link_usability, partner_links_list
from partners.services.links import (
    partner_link_alias_add,
    partner_link_alias_remove,
    partner_link_consent,
    partner_link_contract_bump,
    partner_link_expiry_set,
    partner_link_exposure_set,
    partner_link_principal_set,
    partner_link_request,
    partner_link_resume,
    partner_link_revoke,
    partner_link_suspend,
)
from tests.partners.helpers import admin_member, audits, in_org, link_row

pytestmark = pytest.mark.django_db


def _request(world):
    with in_org(world, "b"):
        return partner_link_request(
            actor=admin_member(world, "b"),
            provider_id=world.b.enterprise.pk,
            consumer_id=world.a.enterprise.pk,
        ).link_id


def test_a_request_makes_two_pending_sides_and_is_audited_on_both(world):
    link_id = _request(world)
    provider, consumer = link_row(world, "b", link_id), link_row(world, "a", link_id)
    assert (provider.side, consumer.side) == ("provider", "consumer")
    assert (
        provider.partner_org_id == world.a.enterprise.pk and consumer.partner_org_id == world.b.enterprise.pk
    )
    assert provider.status == consumer.status == "pending"
    for slug in ("a", "b"):
        (event,) = audits(world, slug, "partner.link.request")
        assert event.details["link_id"] == str(link_id) and event.details["side"] == "provider"
    with in_org(world, "a"):
        assert partner_link_usability(link=consumer) == (False, "link_not_active")
        (state,) = partner_links_list(enterprise_id=world.a.enterprise.pk)
        assert state.reconsent == {"mine": True, "partner": True}


def test_consent_from_both_owners_activates_and_both_sides_agree(world):
    link_id = _request(world)
    with in_org(world, "b"):
        partner_link_consent(actor=admin_member(world, "b"), link_id=link_id, version=1)
        (provided,) = partner_links_list(enterprise_id=world.b.enterprise.pk)
        assert provided.status == "pending" and provided.reconsent == {"mine": False, "partner": True}
        assert provided.blocked_reason == "principal_not_active"
    with in_org(world, "a"):
        partner_link_consent(actor=admin_member(world, "a"), link_id=link_id, version=1)
        (consumed,) = partner_links_list(enterprise_id=world.a.enterprise.pk)
    assert consumed.status == "active" and consumed.usable and consumed.blocked_reason is None
    assert link_row(world, "b", link_id).status == "active"
    assert (
        len(audits(world, "a", "partner.link.consent"))
        == len(audits(world, "b", "partner.link.consent"))
        == 2
    )


def test_a_bump_needs_both_to_reconsent(world, link):
    with in_org(world, "a"):
        partner_link_contract_bump(actor=admin_member(world, "a"), link_id=link, version=2)
        state = partner_links_list()[0]
        assert (state.usable, state.blocked_reason) == (False, "contract_version_too_old")
        assert state.reconsent == {"mine": True, "partner": True}
        with pytest.raises(InvalidInput, match="consent must be at contract version 2 or later"):
            partner_link_consent(actor=admin_member(world, "a"), link_id=link, version=1)
        partner_link_consent(actor=admin_member(world, "a"), link_id=link, version=2)
        assert partner_links_list()[0].reconsent == {"mine": False, "partner": True}
    with in_org(world, "b"):
        partner_link_consent(actor=admin_member(world, "b"), link_id=link, version=2)
    with in_org(world, "a"):
        state = partner_links_list()[0]
    assert state.usable and state.contract_version == 2


def test_the_platform_minimum_blocks_older_links(world, link):
    with override_settings(PARTNER_MIN_CONTRACT_VERSION=3), in_org(world, "a"):
        state = partner_links_list()[0]
        assert state.blocked_reason == "contract_version_too_old" and state.required_version == 3
        partner_link_consent(actor=admin_member(world, "a"), link_id=link, version=3)
        with in_org(world, "b"):
            partner_link_consent(actor=admin_member(world, "b"), link_id=link, version=3)
        assert partner_links_list()[0].usable


def test_suspend_resume_revoke_and_expiry(world, link):
    with in_org(world, "b"):
        partner_link_suspend(actor=admin_member(world, "b"), link_id=link)
    assert link_row(world, "a", link).status == "suspended"
    with in_org(world, "a"):
        partner_link_resume(actor=admin_member(world, "a"), link_id=link)
        assert partner_links_list()[0].usable
        row = link_row(world, "a", link)
        row.expires_at = timezone.now() - timedelta(seconds=1)
        assert partner_link_usability(link=row) == (False, "link_expired")
        partner_link_revoke(actor=admin_member(world, "a"), link_id=link)
        with pytest.raises(InvalidInput, match="a revoked link cannot be resumed"):
            partner_link_resume(actor=admin_member(world, "a"), link_id=link)
    assert link_row(world, "b", link).status == "revoked"


def test_only_admins_change_links_and_a_foreign_link_is_not_found(world, link):
    bob_in_a = world.bob.members[world.a.enterprise.slug]  # auditor in A
    with (
        in_org(world, "a"),
        pytest.raises(Forbidden, match="only an owner or admin may change partner links"),
    ):
        partner_link_suspend(actor=bob_in_a, link_id=link)
    from tests.conftest import add_person, build_tenant

    c = build_tenant("initech")
    carol = add_person("carol", [(c, "admin")])
    with tenant_ctx(c), pytest.raises(NotFound, match="partner link not found"):
        partner_link_suspend(actor=carol.members["initech"], link_id=link)


def tenant_ctx(tenant):
    from core.tenancy import tenant_context

    return tenant_context(enterprise_id=tenant.enterprise.pk, door="test")


def test_exposure_is_the_providers_and_aliases_the_consumers(world, link):
    with (
        in_org(world, "a"),
        pytest.raises(Forbidden, match="only the provider side may set what the link exposes"),
    ):
        partner_link_exposure_set(actor=admin_member(world, "a"), link_id=link, projects=["alpha"])
    with in_org(world, "b"):
        with pytest.raises(InvalidInput, match="no project 'nope' in the providing enterprise"):
            partner_link_exposure_set(actor=admin_member(world, "b"), link_id=link, projects=["nope"])
        with pytest.raises(Forbidden, match="only the consumer side may alias entities on a link"):
            partner_link_alias_add(
                actor=admin_member(world, "b"), link_id=link, home_name="X", partner_name="Y"
            )
    with in_org(world, "a"):
        partner_link_alias_add(
            actor=admin_member(world, "a"), link_id=link, home_name="Kubernetes", partner_name="K8s"
        )
        assert partner_links_list()[0].aliases == [("Kubernetes", "K8s")]
        partner_link_alias_remove(
            actor=admin_member(world, "a"), link_id=link, home_name="kubernetes", partner_name="k8s"
        )
        assert partner_links_list()[0].aliases == []
    assert [e.details["partner_name"] for e in audits(world, "b", "partner.link.alias_add")] == ["K8s"]
    with in_org(world, "a"):
        assert not AuditEvent.objects.filter(enterprise_id=world.b.enterprise.pk).exists()


SHARED_FIELDS = (
    "status",
    "contract_version",
    "provider_consent_version",
    "consumer_consent_version",
    "expires_at",
    "consumer_principal_active",
    "was_activated",
)


def test_every_change_is_audited_on_both_sides_and_both_rows_agree(world, link):
    later = timezone.now() + timedelta(days=3)
    steps = [
        ("a", "contract_bump", lambda m: partner_link_contract_bump(actor=m, link_id=link, version=2)),
        ("b", "consent", lambda m: partner_link_consent(actor=m, link_id=link, version=2)),
        ("a", "expiry", lambda m: partner_link_expiry_set(actor=m, link_id=link, expires_at=later)),
        ("b", "principal", lambda m: partner_link_principal_set(actor=m, link_id=link, active=False)),
        ("b", "exposure", lambda m: partner_link_exposure_set(actor=m, link_id=link, save_domains=["x"])),
        (
            "a",
            "alias_add",
            lambda m: partner_link_alias_add(actor=m, link_id=link, home_name="A", partner_name="B"),
        ),
        (
            "a",
            "alias_remove",
            lambda m: partner_link_alias_remove(actor=m, link_id=link, home_name="A", partner_name="B"),
        ),
        ("b", "suspend", lambda m: partner_link_suspend(actor=m, link_id=link)),
        ("a", "resume", lambda m: partner_link_resume(actor=m, link_id=link)),
        ("b", "revoke", lambda m: partner_link_revoke(actor=m, link_id=link)),
    ]
    for slug, action, change in steps:
        before = {side: len(audits(world, side, f"partner.link.{action}")) for side in ("a", "b")}
        with in_org(world, slug):
            change(admin_member(world, slug))
        mine, theirs = (audits(world, side, f"partner.link.{action}") for side in ("a", "b"))
        assert (len(mine), len(theirs)) == (before["a"] + 1, before["b"] + 1), action
        assert mine[-1].details == theirs[-1].details, action
        assert mine[-1].details["actor_org"] == str(getattr(world, slug).enterprise.pk)
        consumer, provider = link_row(world, "a", link), link_row(world, "b", link)
        assert [getattr(consumer, f) for f in SHARED_FIELDS] == [getattr(provider, f) for f in SHARED_FIELDS]
    assert link_row(world, "a", link).status == "revoked"
