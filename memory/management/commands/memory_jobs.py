"""Queue the maintenance jobs: guard re-scan (rules changed) and re-embedding (model changed)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand, CommandParser
from django.db import transaction

from accounts.models import Enterprise
from accounts.tasks import enqueue
from core.tenancy import tenant_context
from memory.embedding import get_embedder
from memory.guard import RULES_VERSION
from memory.models import Memory
from memory.tasks import embedding_reindex_task, guard_rescan_task


class Command(BaseCommand):
    help = "Queue guard re-scans and re-embedding for every enterprise with memories on old versions."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--force", action="store_true", help="queue for every enterprise, needed or not")

    def handle(self, *args: Any, **options: Any) -> None:
        with tenant_context(enterprise_id=None, all_tenants=True, door="command"):
            enterprise_ids = [str(pk) for pk in Enterprise.objects.values_list("pk", flat=True)]
        model = get_embedder().name
        queued = 0
        for enterprise_id in enterprise_ids:
            with tenant_context(enterprise_id=enterprise_id, door="command"), transaction.atomic():
                live = Memory.objects.filter(forgotten_at__isnull=True)
                if options["force"] or live.exclude(guard_version=RULES_VERSION).exists():
                    enqueue(guard_rescan_task, enterprise_id=enterprise_id)
                    queued += 1
                if options["force"] or live.exclude(embedding_model=model, embedding__isnull=False).exists():
                    enqueue(embedding_reindex_task, enterprise_id=enterprise_id)
                    queued += 1
        self.stdout.write(f"queued {queued} maintenance job(s)")
