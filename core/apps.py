from __future__ import annotations

from django.apps import AppConfig


class CoreConfig(AppConfig):
    """The platform core as an app only for its management commands (serve, db_bootstrap): no models."""

    name = "core"
    default_auto_field = "django.db.models.BigAutoField"
