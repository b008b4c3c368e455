from __future__ import annotations

from django.apps import AppConfig


class AccountsConfig(AppConfig):
    name = "accounts"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.db.models.signals import post_migrate

        from accounts.door import KeyGate
        from core import db_security
        from core.dispatch import gate_install

        # Access keys are who calls tools (every surface passes core's door, through this gate).
        gate_install(KeyGate())

        # After every migrate: RLS forced on every tenant table, grants for the app role.
        post_migrate.connect(db_security.apply_database_security, dispatch_uid="mnemos-rls")
