"""MCP over stdio for local agents; the access key comes from MNEMOS_ACCESS_KEY."""

from __future__ import annotations

import os
from typing import Any

import anyio
from django.core.management.base import BaseCommand, CommandError
from mcp.server.stdio import stdio_server

from core.mcp_server import build_server


class Command(BaseCommand):
    help = "Serve the Mnemos tools over MCP stdio (access key in MNEMOS_ACCESS_KEY)."

    def handle(self, *args: Any, **options: Any) -> None:
        secret = os.environ.get("MNEMOS_ACCESS_KEY", "").strip()
        if not secret:
            raise CommandError("set MNEMOS_ACCESS_KEY to an access key (manage.py accesskey create ...)")
        server = build_server(lambda ctx: secret, surface="stdio")

        async def main() -> None:
            async with stdio_server() as (read_stream, write_stream):
                await server.run(read_stream, write_stream, server.create_initialization_options())

        anyio.run(main)
