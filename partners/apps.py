from __future__ import annotations

from django.apps import AppConfig


class PartnersConfig(AppConfig):
    name = "partners"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        # An entity's erasure also removes this enterprise's partner aliases naming it (docs/lifecycle.md).
        from memory.services.erasure import ENTITY_ERASURE_HOOKS
        from partners.services.erasure import partner_aliases_erase

        ENTITY_ERASURE_HOOKS["partner_aliases"] = partner_aliases_erase
