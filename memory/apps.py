from __future__ import annotations

from typing import Any

from django.apps import AppConfig
from django.db.models.signals import post_delete


def _run_deleted(sender: Any, instance: Any, **kwargs: Any) -> None:
    from memory.services.runs import task_run_key_drop

    task_run_key_drop(run=instance)


class MemoryConfig(AppConfig):
    name = "memory"
    default_auto_field = "django.db.models.BigAutoField"

    def ready(self) -> None:
        from django.utils.module_loading import autodiscover_modules

        from core.metrics import scrape_probe_install
        from core.registry import registry
        from memory.lookups import register
        from memory.selectors.metrics import archivist_backlog_metrics
        from memory.selectors.search import query_vector_prefetch

        register()
        # A deleted run's key goes with it (memory.services.runs.task_run_key_drop).
        post_delete.connect(_run_deleted, sender="memory.TaskRun", dispatch_uid="memory.run_key_drop")
        # The door starts a search query's embedding while it goes on (memory.selectors.search).
        registry.query_prefetch_install(query_vector_prefetch)
        # /metrics reads the archivist's queue when it is scraped.
        scrape_probe_install("archivist_backlog", archivist_backlog_metrics)

        # Every app declares its tools in tools.py; importing registers them.
        autodiscover_modules("tools")
