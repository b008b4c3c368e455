"""Write docs/tools/<toolset>.md from the tool registry."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from core.tool_docs import write_docs


class Command(BaseCommand):
    help = "Generate docs/tools/*.md from the built-in tools registry."

    def handle(self, *args: Any, **options: Any) -> None:
        for path in write_docs():
            self.stdout.write(f"wrote {path}")
