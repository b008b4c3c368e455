"""``manage.py serve`` is ``make run``: database, migrations, demo data, worker, web server, supervised.

Starts the embedded PostgreSQL (unless DATABASE_URL), migrates as the owner
role, seeds the demo enterprises on first start, then runs a real Celery
worker (beat embedded) and uvicorn (ASGI) as child processes, waits for a green
/healthz and prints where to go. core/supervisor.py keeps them running: a
piece that dies (the embedded database too, when serve started it) is
restarted with back-off; on Ctrl-C or SIGTERM they stop in order (web, worker,
database). docs/operations.md, "Supervision".
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any

from django.conf import settings
from django.core.management import call_command
from django.core.management.base import BaseCommand, CommandError, CommandParser
from django.db import connections
from django.utils.module_loading import import_string

from core.bootstrap import bootstrap_database
from core.dbserver import attach_env, owned_embedded_postmaster
from core.env import web_workers, worker_processes
from core.supervisor import (
    Piece,
    PieceKeepsFailing,
    ProcessPiece,
    Supervisor,
    restart_policy,
    web_command,
    web_drain_seconds,
    worker_command,
    worker_stop_seconds,
)
from core.uvicorn_http import HTTP_PROTOCOL


def metrics_dir_reset() -> Path:
    """``PROMETHEUS_MULTIPROC_DIR`` (default ``<MNEMOS_VAR_DIR>/metrics``), emptied of the last run's
    files: counters start at zero with each serve, as Prometheus expects of a restarted target."""
    folder = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or settings.VAR_DIR / "metrics")
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink(missing_ok=True)
    return folder


class Command(BaseCommand):
    help = "Run Mnemos: database, migrations, demo data, a Celery worker and the ASGI server, supervised."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("MNEMOS_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("MNEMOS_PORT", "8000")))
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo enterprises")
        parser.add_argument(
            "--concurrency",
            type=int,
            default=worker_processes(),
            help="worker processes (MNEMOS_WORKER_CONCURRENCY, default one a core up to 4; docs/operations.md)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        self.metrics_dir = metrics_dir_reset()
        bootstrap_database()
        call_command("migrate", verbosity=0)
        creds = None if options["no_demo"] else import_string(settings.SERVE_DEMO_SEED)()
        self.base_url = f"http://{options['host']}:{options['port']}"
        stopping = False

        def stop(signum: int, _frame: Any) -> None:
            nonlocal stopping
            stopping = True

        signal.signal(signal.SIGINT, stop)
        signal.signal(signal.SIGTERM, stop)
        database = owned_embedded_postmaster()
        pieces: list[Piece] = [
            *([database] if database is not None else []),
            self._worker(options["concurrency"]),
            self._web(options["host"], options["port"]),
        ]
        supervisor = Supervisor(pieces, policy=restart_policy(), log=self._log)
        base = self.base_url
        try:
            supervisor.start()
            # Memories scanned or embedded under older rules or another model are brought up to date.
            call_command("memory_jobs", verbosity=0)
            # serve's own connections would not outlive a restart of the database; it needs none now.
            connections.close_all()
            report = self._wait_healthy(base, supervisor, lambda: stopping)
            if report is not None:
                self._announce(base, report, creds)
            supervisor.run(lambda: stopping)
        except PieceKeepsFailing as exc:
            raise CommandError(str(exc)) from exc
        finally:
            supervisor.stop()
        self.stdout.write("Mnemos stopped.")

    def _log(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()

    def _env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **attach_env(settings.DATABASES)}
        # Every web and worker process writes its counters there; a scrape sums them (core/metrics.py).
        env["PROMETHEUS_MULTIPROC_DIR"] = str(self.metrics_dir)
        # Links the tools hand out (switch_url) must point at this server.
        env.setdefault("MNEMOS_PUBLIC_URL", self.base_url)
        return env

    def _worker(self, concurrency: int) -> ProcessPiece:
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        command = worker_command(
            python=sys.executable,
            concurrency=concurrency,
            queue=settings.CELERY_TASK_DEFAULT_QUEUE,
            node=f"mnemos-{os.getpid()}@%h",
            beat_schedule=settings.VAR_DIR / "celerybeat-schedule",
        )
        return ProcessPiece("worker", command, env=self._env(), stop_timeout_s=worker_stop_seconds())

    def _web(self, host: str, port: int) -> ProcessPiece:
        # The web server draws its connections from a pool (docs/write-path.md); the worker does not.
        env = {**self._env(), "MNEMOS_DB_POOL": os.environ.get("MNEMOS_DB_POOL", "8")}
        drain = web_drain_seconds()
        command = web_command(
            python=sys.executable,
            host=host,
            port=port,
            workers=web_workers(),
            http=HTTP_PROTOCOL,
            drain_s=drain,
        )
        # uvicorn bounds the drain itself; the margin covers its workers' own exit.
        return ProcessPiece("web", command, env=env, stop_timeout_s=drain + 10)

    def _wait_healthy(self, base: str, supervisor: Supervisor, stopping: Any) -> dict[str, Any] | None:
        """/healthz's report once it is green (pieces that die meanwhile are restarted); None when stopping."""
        deadline = time.monotonic() + 90
        last: dict[str, Any] = {}
        while time.monotonic() < deadline:
            if stopping():
                return None
            supervisor.check()
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
