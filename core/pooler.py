"""PgBouncer in transaction mode in front of a PostgreSQL server (issue 22, docs/scaling.md).

Mnemos works through it unchanged: every setting a request makes is transaction-local (core/tenancy.py:
``set_config(..., true)``, ``SET LOCAL``), so a server connection handed to another client after a COMMIT
carries nothing of the last tenant. What a pooler in transaction mode cannot carry is turned off by
``MNEMOS_DB_POOLER=pgbouncer`` (core/dbserver.py, ``through_pooler``): psycopg's named prepared statements,
server-side cursors and the startup ``options`` parameter.

``PgBouncer`` here starts Debian's ``pgbouncer`` binary with a configuration of its own, for
``manage.py cluster`` and the tests; an operator runs theirs with the same few settings (``config_text``).
"""

from __future__ import annotations

import os
import pwd
import shutil
import socket
import subprocess
import time
from pathlib import Path

PGBOUNCER_MISSING = "pgbouncer is not installed: `apt-get install pgbouncer` (Debian's package), or leave MNEMOS_DB_POOLER unset"


def pgbouncer_binary() -> str:
    found = shutil.which("pgbouncer") or (
        "/usr/sbin/pgbouncer" if Path("/usr/sbin/pgbouncer").exists() else None
    )
    if found is None:
        raise FileNotFoundError(PGBOUNCER_MISSING)
    return found


def config_text(
    *, server_host: str, server_port: int, dbname: str, listen_port: int, folder: Path, pool_size: int = 20
) -> str:
    """A pgbouncer.ini: one database, transaction pooling, trust on loopback (the server authenticates
    nothing more than it did before the pooler; set auth_type and auth_file as for any PgBouncer)."""
    return f"""[databases]
{dbname} = host={server_host} port={server_port} dbname={dbname}

[pgbouncer]
listen_addr = 127.0.0.1
listen_port = {listen_port}
unix_socket_dir =
auth_type = trust
auth_file = {folder / "users.txt"}
pool_mode = transaction
default_pool_size = {pool_size}
max_client_conn = 500
; psycopg sends none of these but a client may; the server's own settings apply
ignore_startup_parameters = extra_float_digits,options
server_reset_query =
logfile = {folder / "pgbouncer.log"}
pidfile = {folder / "pgbouncer.pid"}
"""


class PgBouncer:
    """A pgbouncer process of its own; ``url(user)`` reaches the database through it."""

    def __init__(
        self,
        *,
        server_host: str,
        server_port: int,
        dbname: str,
        users: list[str],
        folder: Path,
        listen_port: int,
        system_user: str | None = None,
        pool_size: int = 20,
    ) -> None:
        self.folder = folder
        self.port = listen_port
        self.dbname = dbname
        folder.mkdir(parents=True, exist_ok=True)
        (folder / "users.txt").write_text("".join(f'"{user}" ""\n' for user in users), encoding="utf-8")
        self.ini = folder / "pgbouncer.ini"
        self.ini.write_text(
            config_text(
                server_host=server_host,
                server_port=server_port,
                dbname=dbname,
                listen_port=listen_port,
                folder=folder,
                pool_size=pool_size,
            ),
            encoding="utf-8",
        )
        # PgBouncer refuses to run as root: as the database's own system user where there is one.
        self.system_user = system_user if os.geteuid() == 0 else None
        if self.system_user is None and os.geteuid() == 0:
            self.system_user = "nobody"
        if self.system_user is not None:
            entry = pwd.getpwnam(self.system_user)
            for path in (folder, *folder.iterdir()):
                os.chown(path, entry.pw_uid, entry.pw_gid)
        self.process: subprocess.Popen[bytes] | None = None

    def url(self, user: str) -> str:
        return f"postgresql://{user}@127.0.0.1:{self.port}/{self.dbname}"

    def start(self, *, timeout: float = 20) -> None:
        self.process = subprocess.Popen(
            [pgbouncer_binary(), str(self.ini)],
            stdin=subprocess.DEVNULL,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.STDOUT,
            user=self.system_user,
            start_new_session=True,
        )
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if self.process.poll() is not None:
                log = (self.folder / "pgbouncer.log").read_text(errors="replace")[-2000:]
                raise RuntimeError(f"pgbouncer exited with {self.process.returncode}: {log}")
            try:
                socket.create_connection(("127.0.0.1", self.port), timeout=0.5).close()
                return
            except OSError:
                time.sleep(0.1)
        raise TimeoutError(f"pgbouncer did not listen on {self.port} within {timeout:g} s")

    def stop(self) -> None:
        process, self.process = self.process, None
        if process is None or process.poll() is not None:
            return
        process.terminate()  # SIGTERM: PgBouncer closes its connections and exits
        try:
            process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(timeout=10)
