"""``manage.py serve`` is ``make run``: database, migrations, demo data, worker, web server, supervised.

Starts the embedded PostgreSQL (unless DATABASE_URL), migrates as the owner
role, seeds the demo enterprises on first start, then runs a real Celery
worker (beat embedded) and uvicorn (ASGI) as child processes, waits for a green
/healthz and prints where to go. core/supervisor.py keeps them running: a
piece that dies (the embedded database too, when serve started it) is
restarted with back-off; on Ctrl-C or SIGTERM they stop in order (web, worker,
database). docs/operations.md, "Supervision".

Roles (docs/scaling.md): ``--role all`` (the default) is the above. A fleet runs the pieces apart, on
a database that is already there (``DATABASE_URL``, or the embedded one another serve started) and
already migrated (``manage.py migrate``), none of them creating demo data:

    serve --role web --port 8001           uvicorn only; any number of nodes, any request on any node
    serve --role worker [--kinds K,...]    a Celery worker only, on the queues of the kinds named
          [--beat] [--metrics-port P]      (core/queues.py; default all); one of them with --beat runs
                                           the sweepers; --metrics-port serves its /metrics
"""

from __future__ import annotations

import json
import os
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
from django.db.migrations.executor import MigrationExecutor
from django.utils.module_loading import import_string

from core.bootstrap import bootstrap_database
from core.dbserver import attach_env, owned_embedded_postmaster
from core.env import web_workers, worker_processes
from core.metrics_http import metrics_serve
from core.queues import worker_queues
from core.supervisor import (
    Piece,
    PieceKeepsFailing,
    ProcessPiece,
    Supervisor,
    restart_policy,
    stop_on_signals,
    web_command,
    web_drain_seconds,
    worker_command,
    worker_stop_seconds,
)
from core.uvicorn_http import HTTP_PROTOCOL


def metrics_dir_reset(node: str | None = None) -> Path:
    """``PROMETHEUS_MULTIPROC_DIR`` (default ``<MNEMOS_VAR_DIR>/metrics``, a fleet node's in a folder of
    its own below it), emptied of the last run's files: counters start at zero with each serve, as
    Prometheus expects of a restarted target."""
    folder = Path(os.environ.get("PROMETHEUS_MULTIPROC_DIR") or settings.VAR_DIR / "metrics")
    if node is not None:
        folder = folder / node
    folder.mkdir(parents=True, exist_ok=True)
    for stale in folder.glob("*.db"):
        stale.unlink(missing_ok=True)
    return folder


ROLE_ALL, ROLE_WEB, ROLE_WORKER = "all", "web", "worker"
ROLES = (ROLE_ALL, ROLE_WEB, ROLE_WORKER)


class Command(BaseCommand):
    help = "Run Mnemos: database, migrations, demo data, a Celery worker and the ASGI server, supervised."

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--host", default=os.environ.get("MNEMOS_HOST", "127.0.0.1"))
        parser.add_argument("--port", type=int, default=int(os.environ.get("MNEMOS_PORT", "8000")))
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo enterprises")
        parser.add_argument(
            "--role",
            choices=ROLES,
            default=os.environ.get("MNEMOS_ROLE", "all"),
            help="all (database, worker, web), or one piece of a fleet: web or worker (docs/scaling.md)",
        )
        parser.add_argument(
            "--kinds",
            default=os.environ.get("MNEMOS_WORKER_KINDS", ""),
            help="the worker's kinds of work, comma-separated: default, "
            + ", ".join(settings.WORK_KINDS)
            + " (default: all)",
        )
        parser.add_argument(
            "--beat", action="store_true", help="--role worker: also run the sweepers (one worker of a fleet)"
        )
        parser.add_argument(
            "--metrics-port",
            type=int,
            default=None,
            help="--role worker: serve the worker's /metrics on this port (same token rule as the web's)",
        )
        parser.add_argument(
            "--concurrency",
            type=int,
            default=worker_processes(),
            help="worker processes (MNEMOS_WORKER_CONCURRENCY, default one a core up to 4; docs/operations.md)",
        )

    def handle(self, *args: Any, **options: Any) -> None:
        role = options["role"]
        try:
            kinds = [k for k in options["kinds"].split(",") if k.strip()] or None
            self.queues = worker_queues(settings.CELERY_TASK_DEFAULT_QUEUE, settings.WORK_KINDS, kinds)
        except ValueError as exc:
            raise CommandError(str(exc)) from exc
        if role != ROLE_WORKER and (kinds or options["beat"] or options["metrics_port"] is not None):
            raise CommandError("--kinds, --beat and --metrics-port are for --role worker")
        self.base_url = f"http://{options['host']}:{options['port']}"
        self.node_name = self._node_name(role, options["port"])
        self.metrics_dir = metrics_dir_reset(self.node_name)
        creds = None
        if role == ROLE_ALL:
            bootstrap_database()
            call_command("migrate", verbosity=0)
            creds = None if options["no_demo"] else import_string(settings.SERVE_DEMO_SEED)()
        else:
            self._check_fleet_database()
        stopping = stop_on_signals()
        database = owned_embedded_postmaster() if role == ROLE_ALL else None
        pieces: list[Piece] = [*([database] if database is not None else [])]
        if role in (ROLE_ALL, ROLE_WORKER):
            pieces.append(self._worker(options["concurrency"], beat=role == ROLE_ALL or options["beat"]))
        if role in (ROLE_ALL, ROLE_WEB):
            pieces.append(self._web(options["host"], options["port"]))
        supervisor = Supervisor(pieces, policy=restart_policy(), log=self._log)
        base = self.base_url
        metrics_server = None
        try:
            supervisor.start()
            if role == ROLE_ALL:
                # Memories scanned or embedded under older rules or another model are brought up to date.
                call_command("memory_jobs", verbosity=0)
            # serve's own connections would not outlive a restart of the database; it needs none now.
            connections.close_all()
            if role == ROLE_WORKER:
                if options["metrics_port"] is not None:
                    os.environ["PROMETHEUS_MULTIPROC_DIR"] = str(self.metrics_dir)  # its worker's files
                    metrics_server = metrics_serve(options["host"], options["metrics_port"])
                self._log(
                    f"Mnemos worker running on {', '.join(self.queues)}"
                    + (" with the sweepers" if options["beat"] else "")
                    + (
                        f"; metrics at http://{options['host']}:{options['metrics_port']}/metrics"
                        if metrics_server
                        else ""
                    )
                )
                self._log("Press Ctrl-C to stop.")
            else:
                # A web node is up when it answers; its workers may be elsewhere and not started yet.
                report = self._wait_healthy(base, supervisor, stopping, any_answer=role == ROLE_WEB)
                if report is not None:
                    self._announce(base, report, creds, role)
            supervisor.run(stopping)
        except PieceKeepsFailing as exc:
            raise CommandError(str(exc)) from exc
        finally:
            supervisor.stop()
            if metrics_server is not None:
                metrics_server.shutdown()
        self.stdout.write("Mnemos stopped.")

    @staticmethod
    def _node_name(role: str, port: int) -> str | None:
        """The metrics folder of this node: serve's own for --role all (web and worker share it); a web
        node's by its port; a worker node's by its process (several may run on one machine)."""
        if role == ROLE_ALL:
            return None
        return f"web-{port}" if role == ROLE_WEB else f"worker-{os.getpid()}"

    def _check_fleet_database(self) -> None:
        """A fleet node starts no database and migrates nothing: both must already be there."""
        if owned_embedded_postmaster() is not None:
            raise CommandError(
                "serve --role web and --role worker start no database: set DATABASE_URL, or start the "
                "embedded one first (serve --role all, or make run)"
            )
        executor = MigrationExecutor(connections["owner"])
        if executor.migration_plan(executor.loader.graph.leaf_nodes()):
            raise CommandError(
                "the database is not migrated: run `manage.py migrate` first (docs/scaling.md)"
            )
        connections.close_all()

    def _log(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()

    def _env(self) -> dict[str, str]:
        env = {**os.environ, "PYTHONUNBUFFERED": "1", **attach_env(settings.DATABASES)}
        # Every web and worker process writes its counters there; a scrape sums them (core/metrics.py).
        env["PROMETHEUS_MULTIPROC_DIR"] = str(self.metrics_dir)
        # Links the tools hand out (switch_url) must point at this server.
        env.setdefault("MNEMOS_PUBLIC_URL", self.base_url)
        if self.node_name:  # the database connections' application_name (pg_stat_activity shows the node)
            env["MNEMOS_NODE_NAME"] = self.node_name
        return env

    def _worker(self, concurrency: int, *, beat: bool) -> ProcessPiece:
        settings.VAR_DIR.mkdir(parents=True, exist_ok=True)
        command = worker_command(
            python=sys.executable,
            concurrency=concurrency,
            queues=self.queues,
            node=f"mnemos-{os.getpid()}@%h",
            beat_schedule=settings.VAR_DIR / "celerybeat-schedule" if beat else None,
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

    def _wait_healthy(
        self, base: str, supervisor: Supervisor, stopping: Any, *, any_answer: bool = False
    ) -> dict[str, Any] | None:
        """/healthz's report once it is green (``any_answer``: once it answers at all); pieces that die
        meanwhile are restarted; None when stopping."""
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
                if any_answer and last:
                    return last
            except OSError:
                pass
            time.sleep(0.5)
        raise CommandError(f"Mnemos did not become healthy: {json.dumps(last)}")

    def _announce(self, base: str, report: dict[str, Any], creds: Any, role: str) -> None:
        out = self.stdout.write
        out("")
        out(
            f"Mnemos is running at {base}  (health: {report['status']})"
            + (" as a web node" if role == ROLE_WEB else "")
        )
        out(f"  Console         : {base}/console/")
        out(f"  Auditor admin   : {base}/admin/")
        out(f"  MCP             : {base}/mcp   (Authorization: Bearer <access key>)")
        out(f"  REST API        : {base}/v1/   (OpenAPI: {base}/v1/schema/, docs: {base}/v1/docs/)")
        out(f"  Health          : {base}/healthz")
        if role == ROLE_ALL:  # a web node of a fleet made no demo data
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
