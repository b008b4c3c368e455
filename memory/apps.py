from __future__ import annotations

from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils.module_loading import autodiscover_modules

        from memory.lookups import register

        register()

        # Every app declares its tools in tools.py; importing registers them.
        autodiscover_modules("tools")
