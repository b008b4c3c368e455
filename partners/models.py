"""Partner links: one enterprise opens (part of) its memory to another, one direction at a time.

A link is two rows sharing one ``link_id``: the provider's side and the consumer's side, each
in its own enterprise (so RLS keeps each side to itself, and a remote link is the same with
each row on its own deployment). See docs/partners.md.
"""

from __future__ import annotations

import uuid

from django.db import models
from django.utils import timezone

from core.tenancy import KEY_DIGEST_SETTING, TenantModel


class LinkStatus(models.TextChoices):
    PENDING = "pending"
    ACTIVE = "active"
    SUSPENDED = "suspended"
    REVOKED = "revoked"


class LinkSide(models.TextChoices):
    PROVIDER = "provider"
    CONSUMER = "consumer"


def empty_exposure() -> dict[str, list[str]]:
    return {"projects": [], "save_domains": [], "memory_ids": []}


class PartnerLink(TenantModel):
    """One side of a link. The services keep both sides of a local link identical."""

    link_id = models.UUIDField(default=uuid.uuid4, db_index=True)
    side = models.CharField(max_length=16, choices=LinkSide.choices)
    partner_org_id = models.UUIDField()
    partner_name = models.CharField(max_length=200, blank=True, default="")
    status = models.CharField(max_length=16, choices=LinkStatus.choices, default=LinkStatus.PENDING)
    contract_version = models.PositiveIntegerField(default=1)
    provider_consent_version = models.PositiveIntegerField(null=True, blank=True)
    consumer_consent_version = models.PositiveIntegerField(null=True, blank=True)
    expires_at = models.DateTimeField(null=True, blank=True)
    created_at = models.DateTimeField(default=timezone.now, editable=False)
    updated_at = models.DateTimeField(default=timezone.now)
    # Both owners consented at least once: a resume goes back to active, not pending.
    was_activated = models.BooleanField(default=False)
    # The consumer direction's principal; the provider direction is always closed.
    consumer_principal_active = models.BooleanField(default=True)
    # Provider row only: what the link opens.
    exposure = models.JSONField(default=empty_exposure, blank=True)
    # Remote links: the consumer row knows where the provider deployment is and the secret it
    # presents (encrypted); the provider row keeps only the secret's digest.
    remote_url = models.CharField(max_length=500, blank=True, default="")
    credential_digest = models.CharField(max_length=64, blank=True, default="", db_index=True)
    credential_encrypted = models.TextField(blank=True, default="")

    # The serve endpoint's credential door sees exactly the provider row whose credential it holds.
    rls_extra_condition = f"credential_digest <> '' AND credential_digest = NULLIF(current_setting('{KEY_DIGEST_SETTING}', true), '')"

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["enterprise", "link_id"], name="partnerlink_unique_side"),
        ]

    def __str__(self) -> str:
        return f"{self.side} link {self.link_id} ({self.status})"

    @property
    def is_remote(self) -> bool:
        return bool(self.remote_url or self.credential_digest)

    @property
    def is_provider(self) -> bool:
        return self.side == LinkSide.PROVIDER


class PartnerEntityAlias(TenantModel):
    """On the consumer's side of a link: a partner spelling folded under a home spelling."""

    link = models.ForeignKey(PartnerLink, on_delete=models.CASCADE, related_name="aliases")
    home_name = models.CharField(max_length=300)
    home_key = models.CharField(max_length=300)
    partner_name = models.CharField(max_length=300)
    partner_key = models.CharField(max_length=300)
    created_at = models.DateTimeField(default=timezone.now, editable=False)

    class Meta(TenantModel.Meta):
        constraints = [
            models.UniqueConstraint(fields=["link", "home_key", "partner_key"], name="partneralias_unique"),
        ]

    def __str__(self) -> str:
        return f"{self.partner_name} = {self.home_name}"
