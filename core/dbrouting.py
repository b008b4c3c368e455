"""Reads on streaming replicas, writes on the primary (issue 22, docs/scaling.md).

``DATABASE_REPLICA_URLS`` (comma-separated PostgreSQL URLs of hot standbys of the primary, each naming
the application role or none) adds the aliases ``replica_1`` ... ``replica_n`` to ``DATABASES``. Nothing
routes to them unless a door asks, once per call, before its tenant context opens::

    door: _replica_for in accounts/door.py (tool calls) and console/decorators.py (pages)
      -> read-only tool / GET page, and not wrote_recently(...): the key's last write
                                   (AccessKey.last_write_at) or the session's is older than
                                   MNEMOS_READ_YOUR_WRITES_SECONDS
      -> replica_for_reads()       the next replica in turn that answered its last check (at most
                                   MNEMOS_REPLICA_CHECK_SECONDS old) with a lag under
                                   MNEMOS_REPLICA_MAX_LAG_SECONDS; None when none does
      -> tenant_context(read_alias=...)
                                   the call's transaction on the primary (writes: audit, counters) and a
                                   read-only one on the replica, both with the tenant's settings, so
                                   row-level security filters the replica's rows exactly as the primary's;
                                   a replica that refuses that first statement is marked down and the
                                   call reads from the primary
      -> ReplicaRouter             while the context is open, every ORM read goes to the replica and every
                                   write (and every read made for a write: select_for_update, get_or_create)
                                   to the primary; selectors' raw SQL asks ``read_connection()``

Read-your-writes: the window must cover the worst lag a replica may have and still be used, plus the age of
its last check (``settings_problem``), so a caller's read after its own write lands on the primary or on a
replica that has replayed it. Outside every door (commands, Celery tasks, migrations) nothing changes:
everything runs on the primary.
"""

from __future__ import annotations

import contextvars
import itertools
import logging
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from django.conf import settings
from django.db import DEFAULT_DB_ALIAS, connections

logger = logging.getLogger(__name__)

REPLICA_PREFIX = "replica_"

# The replica's delay: none when it has replayed all it received, else the age of the last transaction
# it replayed (an idle primary sends nothing, so "now - last replay" alone would grow forever).
LAG_SQL = (
    "SELECT pg_is_in_recovery(), CASE WHEN pg_last_wal_receive_lsn() IS NOT DISTINCT FROM "
    "pg_last_wal_replay_lsn() THEN 0 ELSE COALESCE(EXTRACT(EPOCH FROM now() - "
    "pg_last_xact_replay_timestamp()), 0) END::float8"
)

_read_alias: contextvars.ContextVar[str | None] = contextvars.ContextVar("mnemos_read_alias", default=None)


def replica_aliases() -> list[str]:
    return [alias for alias in settings.DATABASES if alias.startswith(REPLICA_PREFIX)]


def current_read_alias() -> str:
    """Where this call's reads go: its replica inside a routed context, else the primary."""
    return _read_alias.get() or DEFAULT_DB_ALIAS


def read_connection() -> Any:
    """The connection a selector's raw SQL reads on (the ORM's reads are routed by ``ReplicaRouter``)."""
    return connections[current_read_alias()]


@contextmanager
def reads_on(alias: str | None) -> Iterator[None]:
    """Route the block's reads to ``alias`` (None: the primary). Only ``tenant_context`` calls it."""
    token = _read_alias.set(alias)
    try:
        yield
    finally:
        _read_alias.reset(token)


class ReplicaRouter:
    """Reads to the call's replica while a routed context is open; writes always to the primary.

    Returns None (Django's own choice) everywhere else, so without replicas nothing changes.
    """

    def db_for_read(self, model: Any, **hints: Any) -> str | None:
        return _read_alias.get()

    def db_for_write(self, model: Any, **hints: Any) -> str | None:
        instance = hints.get("instance")
        # An object read on a replica is saved on the primary (Django would use the instance's own database).
        if instance is not None and (instance._state.db or "").startswith(REPLICA_PREFIX):
            return DEFAULT_DB_ALIAS
        if _read_alias.get() is not None:
            return DEFAULT_DB_ALIAS
        return None

    def allow_relation(self, obj1: Any, obj2: Any, **hints: Any) -> bool | None:
        # A replica holds the primary's very rows: an object read there may be related to one of the primary.
        dbs = {obj1._state.db or DEFAULT_DB_ALIAS, obj2._state.db or DEFAULT_DB_ALIAS}
        if any(db.startswith(REPLICA_PREFIX) for db in dbs) and dbs <= {DEFAULT_DB_ALIAS, *replica_aliases()}:
            return True
        return None

    def allow_migrate(self, db: str, app_label: str, **hints: Any) -> bool | None:
        return False if db.startswith(REPLICA_PREFIX) else None


def max_lag_seconds() -> float:
    return float(settings.REPLICA_MAX_LAG_SECONDS)


def check_seconds() -> float:
    return float(settings.REPLICA_CHECK_SECONDS)


def read_your_writes_seconds() -> float:
    return float(settings.READ_YOUR_WRITES_SECONDS)


def settings_problem(*, window: float, max_lag: float, check: float) -> str | None:
    """Why these three settings cannot keep read-your-writes, or None."""
    if window < max_lag + check:
        return (
            f"MNEMOS_READ_YOUR_WRITES_SECONDS ({window:g}) must be at least MNEMOS_REPLICA_MAX_LAG_SECONDS "
            f"({max_lag:g}) + MNEMOS_REPLICA_CHECK_SECONDS ({check:g}): a caller could read from a replica "
            "that has not replayed its own write yet"
        )
    return None


@dataclass
class ReplicaState:
    """What this process last learnt of one replica (at most ``check_seconds()`` old when used)."""

    alias: str
    checked_at: float = float("-inf")  # monotonic
    usable: bool = False
    lag_seconds: float | None = None
    detail: str = "not checked yet"


_states: dict[str, ReplicaState] = {}
_states_lock = threading.Lock()
_turn = itertools.count()


def _state(alias: str) -> ReplicaState:
    with _states_lock:
        return _states.setdefault(alias, ReplicaState(alias))


def replica_verdict(in_recovery: bool, lag: float) -> tuple[bool, float | None, str]:
    """(usable, lag, detail) of a replica that answered ``LAG_SQL`` with these (the router's and /healthz's)."""
    if not in_recovery:
        # A promoted replica takes writes of its own: reading there could show what the primary lacks.
        return False, None, "not a standby (promoted?)"
    if lag <= max_lag_seconds():
        return True, lag, "ok"
    return False, lag, f"lags beyond {max_lag_seconds():g} s"


def down_detail(exc: BaseException) -> str:
    return f"down ({type(exc).__name__})"


def check_replica(alias: str) -> ReplicaState:
    """Ask the replica for its lag now, on this thread's connection to it; one that does not answer is
    down until its next check."""
    try:
        with connections[alias].cursor() as cursor:
            cursor.execute(LAG_SQL)
            in_recovery, lag = cursor.fetchone()
    except Exception as exc:  # noqa: BLE001 - a replica down is a state, not an error of the call
        return _mark(alias, False, None, down_detail(exc), close=True)
    return _mark(alias, *replica_verdict(bool(in_recovery), float(lag)))


def mark_down(alias: str, exc: BaseException) -> None:
    """A replica that failed a call's first statement: skipped until its next check."""
    logger.warning("replica %s skipped: %s", alias, exc)
    _mark(alias, False, None, down_detail(exc), close=True)


def _mark(alias: str, usable: bool, lag: float | None, detail: str, *, close: bool = False) -> ReplicaState:
    if close:
        connections[alias].close()
    state = _state(alias)
    state.usable, state.lag_seconds, state.detail = usable, lag, detail
    state.checked_at = time.monotonic()
    return state


def replica_for_reads() -> str | None:
    """The next usable replica in turn (each checked at most every MNEMOS_REPLICA_CHECK_SECONDS), or None."""
    aliases = replica_aliases()
    if not aliases:
        return None
    start = next(_turn)
    now = time.monotonic()
    for i in range(len(aliases)):
        alias = aliases[(start + i) % len(aliases)]
        state = _state(alias)
        if now - state.checked_at >= check_seconds():
            state = check_replica(alias)
        if state.usable:
            return alias
    return None


def wrote_recently(last_write: float | None, *, now: float | None = None) -> bool:
    """Whether a caller whose last write was at ``last_write`` (epoch seconds) must still read the primary."""
    if last_write is None:
        return False
    return (now if now is not None else time.time()) - last_write < read_your_writes_seconds()


def reset_states() -> None:
    """Forget every replica's last check (tests)."""
    with _states_lock:
        _states.clear()
