"""Create the demo enterprises on first start and print their logins and key once."""

from __future__ import annotations

from typing import Any

from django.core.management.base import BaseCommand

from accounts.services.demo import demo_seed


class Command(BaseCommand):
    help = "Create the demo and demo-partner enterprises (once) and print their credentials."

    def handle(self, *args: Any, **options: Any) -> None:
        creds = demo_seed()
        if not creds.created:
            self.stdout.write("demo data already present (credentials were printed on first start)")
            return
        for enterprise, username, password in creds.logins:
            self.stdout.write(f"login  {enterprise:<13} {username:<14} password: {password}")
        if creds.access_key:
            self.stdout.write(f"access key (demo, shown once): {creds.access_key}")
