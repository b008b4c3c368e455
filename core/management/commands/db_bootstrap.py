"""Create the database, the vector extension and the roles (idempotent)."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from core.bootstrap import bootstrap_database


class Command(BaseCommand):
    help = "Create Mnemos's database, the pgvector extension and the owner and app roles."

    def handle(self, *args: Any, **options: Any) -> None:
        bootstrap_database()
        self.stdout.write("database ready")
