from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from accounts import db_security

        # After every migrate: RLS forced on every tenant table, grants for the app role.
        post_migrate.connect(db_security.apply_database_security, dispatch_uid="mnemos-rls")
