"""Partner links in the auditors' admin: read-only, each enterprise sees its own side."""

from __future__ import annotations

from accounts.admin import ReadOnlyAdmin, site
from partners.models import PartnerEntityAlias, PartnerLink


class PartnerLinkAdmin(ReadOnlyAdmin):
    list_display = [
        "link_id",
        "side",
        "partner_org_id",
        "status",
        "contract_version",
        "expires_at",
        "created_at",
    ]
    # The credential never shows, not even as its digest or ciphertext.
    exclude = ["credential_digest", "credential_encrypted"]


class PartnerEntityAliasAdmin(ReadOnlyAdmin):
    list_display = ["link", "home_name", "partner_name", "created_at"]


site.register(PartnerLink, PartnerLinkAdmin)
site.register(PartnerEntityAlias, PartnerEntityAliasAdmin)
