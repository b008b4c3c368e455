"""``manage.py serve`` is ``make run``: database, migrations, demo data, worker, web server.

Starts the embedded PostgreSQL (unless DATABASE_URL), migrates as the owner
role, seeds the demo enterprises on first start, then runs a real Celery
worker and uvicorn (ASGI) as child processes, waits for a green /healthz,
prints where to go, and on Ctrl-C stops the children and the database cleanly.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.utils.module_loading import import_string

from core.bootstrap import bootstrap_database
from core.env import web_workers
from core.uvicorn_http import HTTP_PROTOCOL


def _name(child: subprocess.Popen[bytes]) -> str:
    args = child.args
    return str(args[2]) if isinstance(args, list) else str(args)


class Command(BaseCommand):
    help = "Run Mnemos: database, migrations, demo data, a Celery worker and the ASGI server."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("MNEMOS_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("MNEMOS_PORT", "8000")))
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo enterprises")
        parser.add_argument(
            "--concurrency",
            type=int,
            default=1,
            help="worker processes (one suits two cores: the embedder keeps it busy)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        bootstrap_database()
        call_command("migrate", verbosity=0)
        creds = None if options["no_demo"] else import_string(settings.SERVE_DEMO_SEED)()
        self.base_url = f"http://{options['host']}:{options['port']}"
        children = [self._worker(options["concurrency"]), self._web(options["host"], options["port"])]
        # Memories scanned or embedded under older rules or another model are brought up to date.
        call_command("memory_jobs", verbosity=0)
        stopping = False

        def stop(signum: int, _frame: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        base = self.base_url
        try:
            report = self._wait_healthy(base, children, lambda: stopping)
            self._announce(base, report, creds)
            while not stopping:
                for child in children:
                    if child.poll() is not None:
                        raise CommandError(f"{_name(child)} exited with {child.returncode}")
                time.sleep(0.5)
        finally:
            self._stop(children)
        self.stdout.write("Mnemos stopped.")

    def _env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1"}
        # Links the tools hand out (switch_url) must point at this server.
        env.setdefault("MNEMOS_PUBLIC_URL", self.base_url)
        return env

    def _worker(self, concurrency: int) -> subprocess.Popen[bytes]:
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "celery",
                "-A",
                "config",
                "worker",
                "--loglevel",
                "WARNING",
                "--concurrency",
                str(concurrency),
                "-Q",
                settings.CELERY_TASK_DEFAULT_QUEUE,
                "-n",
                f"mnemos-{os.getpid()}@%h",
            ],
            env=self._env(),
            start_new_session=True,
        )

    def _web(self, host: str, port: int) -> subprocess.Popen[bytes]:
        # The web server draws its connections from a pool (docs/write-path.md); the worker does not.
        env = {**self._env(), "MNEMOS_DB_POOL": os.environ.get("MNEMOS_DB_POOL", "8")}
        return subprocess.Popen(
            [
                sys.executable,
                "-m",
                "uvicorn",
                "config.asgi:application",
                "--host",
                host,
                "--port",
                str(port),
                "--log-level",
                "warning",
                "--workers",
                str(web_workers()),
                "--http",
                HTTP_PROTOCOL,
            ],
            env=env,
            start_new_session=True,
        )

    def _wait_healthy(
        self, base: str, children: list[subprocess.Popen[bytes]], stopping: Any
    ) -> dict[str, Any]:
        deadline = time.monotonic() + 90
        last: dict[str, Any] = {}
        while time.monotonic() < deadline and not stopping():
            for child in children:
                if child.poll() is not None:
                    raise CommandError(f"{_name(child)} exited with {child.returncode} during start-up")
            try:
                with urllib.request.urlopen(f"{base}/healthz", timeout=5) as response:
                    return dict(json.load(response))
            except urllib.error.HTTPError as exc:
                last = json.loads(exc.read() or b"{}")
            except OSError:
                pass
            time.sleep(0.5)
        raise CommandError(f"Mnemos did not become healthy: {json.dumps(last)}")

    def _announce(self, base: str, report: dict[str, Any], creds: Any) -> None:
        out = self.stdout.write
        out("")
        out(f"Mnemos is running at {base}  (health: {report['status']})")
        out(f"  Console         : {base}/console/")
        out(f"  Auditor admin   : {base}/admin/")
        out(f"  MCP             : {base}/mcp   (Authorization: Bearer <access key>)")
        out(f"  REST API        : {base}/v1/   (OpenAPI: {base}/v1/schema/, docs: {base}/v1/docs/)")
        out(f"  Health          : {base}/healthz")
        if creds is not None and creds.created:
            for enterprise, username, password in creds.logins:
                out(f"  Login           : {username} / {password}   ({enterprise})")
            if creds.access_key:
                out(f"  Access key      : {creds.access_key}   (demo; shown once)")
        else:
            out("  Demo logins and key were printed on first start. New key:")
            out("    python manage.py accesskey create --enterprise demo")
        out("Press Ctrl-C to stop.")
        self.stdout.flush()

    def _stop(self, children: list[subprocess.Popen[bytes]]) -> None:
        for child in children:
            if child.poll() is None:
                os.killpg(child.pid, signal.SIGTERM)
        deadline = time.monotonic() + 20
        for child in children:
            try:
                child.wait(timeout=max(0.1, deadline - time.monotonic()))
            except subprocess.TimeoutExpired:
                os.killpg(child.pid, signal.SIGKILL)
                child.wait()
