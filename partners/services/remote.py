"""Remote links: each side on its own Mnemos deployment, reached over HTTPS with a per-link credential.

Each deployment holds only its own row of the link and audits its own side; the provider keeps
only the credential's digest, the consumer keeps the credential encrypted (``partners.crypto``).
"""

from __future__ import annotations

import uuid
from datetime import datetime
from urllib.parse import urlsplit

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts.models import Enterprise
from accounts.services.audit import audit_record
from core.errors import InvalidInput, NotFound
from partners.crypto import credential_digest, credential_encrypt, credential_new
from partners.door import side_context
from partners.models import LinkSide, PartnerLink, empty_exposure
from partners.services.links import platform_min_contract_version

HTTPS_ONLY = (
    "a remote partner URL must be https:// (MNEMOS_PARTNER_ALLOW_HTTP=true allows http:// for development)"
)


def remote_url_clean(url: str) -> str:
    """The provider deployment's base URL: https (http only when allowed), a host, no query."""
    parts = urlsplit(url.strip())
    allowed = ("https", "http") if settings.PARTNER_ALLOW_HTTP else ("https",)
    if parts.scheme not in allowed:
        raise InvalidInput(HTTPS_ONLY, code="remote_url_scheme")
    if not parts.hostname or parts.query or parts.fragment:
        raise InvalidInput(
            "a remote partner URL is a base URL such as https://mnemos.example.com", code="remote_url"
        )
    return f"{parts.scheme}://{parts.netloc}{parts.path.rstrip('/')}"


def _version(contract_version: int | None) -> int:
    version = platform_min_contract_version() if contract_version is None else contract_version
    if version < platform_min_contract_version():
        raise InvalidInput(
            f"contract version must be {platform_min_contract_version()} or later", code="contract_too_old"
        )
    return version


def _enterprise(enterprise_id: uuid.UUID) -> Enterprise:
    enterprise = Enterprise.objects.filter(pk=enterprise_id).first()
    if enterprise is None:
        raise NotFound("enterprise not found", code="enterprise_not_found")
    return enterprise


@transaction.atomic
def partner_link_provide_remote(
    *,
    provider_id: uuid.UUID | str,
    consumer_org_id: uuid.UUID | str,
    consumer_name: str = "",
    link_id: uuid.UUID | str | None = None,
    contract_version: int | None = None,
    expires_at: datetime | None = None,
) -> tuple[PartnerLink, str]:
    """The provider's row of a remote link, and its credential (shown once, only its digest is kept)."""
    credential = credential_new()
    provider = uuid.UUID(str(provider_id))
    now = timezone.now()
    with side_context(provider):
        _enterprise(provider)
        link = PartnerLink.objects.create(
            enterprise_id=provider,
            link_id=uuid.UUID(str(link_id)) if link_id else uuid.uuid4(),
            side=LinkSide.PROVIDER,
            partner_org_id=uuid.UUID(str(consumer_org_id)),
            partner_name=consumer_name,
            contract_version=_version(contract_version),
            expires_at=expires_at,
            created_at=now,
            updated_at=now,
            exposure=empty_exposure(),
            credential_digest=credential_digest(credential),
        )
        audit_record(
            action="partner.link.request",
            target=link,
            details={
                "link_id": str(link.link_id),
                "side": "provider",
                "remote": True,
                "actor": "operator",
                "consumer": str(consumer_org_id),
                "contract_version": link.contract_version,
            },
        )
    return link, credential


@transaction.atomic
def partner_link_consume_remote(
    *,
    consumer_id: uuid.UUID | str,
    provider_org_id: uuid.UUID | str,
    link_id: uuid.UUID | str,
    url: str,
    credential: str,
    provider_name: str = "",
    contract_version: int | None = None,
    expires_at: datetime | None = None,
) -> PartnerLink:
    """The consumer's row of a remote link: where the provider deployment is, and the credential (encrypted)."""
    if not credential.strip():
        raise InvalidInput(
            "a remote link needs the credential the provider's operator handed over", code="credential_empty"
        )
    consumer = uuid.UUID(str(consumer_id))
    now = timezone.now()
    with side_context(consumer):
        _enterprise(consumer)
        link = PartnerLink.objects.create(
            enterprise_id=consumer,
            link_id=uuid.UUID(str(link_id)),
            side=LinkSide.CONSUMER,
            partner_org_id=uuid.UUID(str(provider_org_id)),
            partner_name=provider_name,
            contract_version=_version(contract_version),
            expires_at=expires_at,
            created_at=now,
            updated_at=now,
            exposure={},
            remote_url=remote_url_clean(url),
            credential_encrypted=credential_encrypt(credential.strip()),
        )
        audit_record(
            action="partner.link.request",
            target=link,
            details={
                "link_id": str(link.link_id),
                "side": "consumer",
                "remote": True,
                "actor": "operator",
                "provider": str(provider_org_id),
                "url": link.remote_url,
                "contract_version": link.contract_version,
            },
        )
    return link
