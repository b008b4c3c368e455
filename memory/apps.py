from __future__ import annotations

from django.apps import AppConfig


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils.module_loading import autodiscover_modules

        from core.registry import registry
        from memory.lookups import register
        from memory.selectors.search import query_vector_prefetch

        register()
        # The door starts a search query's embedding while it goes on (memory.selectors.search).
        registry.query_prefetch_install(query_vector_prefetch)

        # Every app declares its tools in tools.py; importing registers them.
        autodiscover_modules("tools")
