from __future__ import annotations

from django.apps import AppConfig
from django.conf import settings
from django.core.exceptions import ImproperlyConfigured


class CoreConfig(AppConfig):
    """The platform core as an app only for its management commands (serve, db_bootstrap): no models."""

    name = "core"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from core.dbrouting import replica_aliases, settings_problem

        if replica_aliases():
            problem = settings_problem(
                window=settings.READ_YOUR_WRITES_SECONDS,
                max_lag=settings.REPLICA_MAX_LAG_SECONDS,
                check=settings.REPLICA_CHECK_SECONDS,
            )
            if problem:
                raise ImproperlyConfigured(problem)
