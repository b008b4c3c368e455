"""One hierarchy of errors with stable codes. Messages are the seeds' exact texts where given."""

from __future__ import annotations

import logging
from typing import Any

logger = logging.getLogger(__name__)


class MnemosError(Exception):
    code = "error"
    http_status = 400

    def __init__(self, message: str, *, code: str | None = None, **extra: Any) -> None:
        super().__init__(message)
        self.message = message
        if code:
            self.code = code
        self.extra = extra

    def as_dict(self) -> dict[str, Any]:
        return {"error": self.message, "code": self.code, **self.extra}

    def http_headers(self) -> dict[str, str]:
        """The headers an HTTP answer with this error carries (every surface renders them)."""
        if self.http_status == 401:  # RFC 6750's challenge
            return {"WWW-Authenticate": 'Bearer realm="mnemos"'}
        return {}

    def record_after_rollback(self) -> None:
        """Anything the failed call must leave on record (its own transaction, after the rollback)."""


class InvalidInput(MnemosError):
    code = "invalid_input"
    http_status = 400


class Unprocessable(MnemosError):
    code = "unprocessable"
    http_status = 422


class NotAuthenticated(MnemosError):
    code = "not_authenticated"
    http_status = 401


class Forbidden(MnemosError):
    """Only for "your role here may not": a foreign object is NotFound, never this."""

    code = "forbidden"
    http_status = 403


class NotFound(MnemosError):
    code = "not_found"
    http_status = 404


class Conflict(MnemosError):
    code = "conflict"
    http_status = 409


class WriteConflict(Conflict):
    """The database cancelled the call's transaction to let other calls writing the same rows finish (a
    deadlock broken, a serialization failure) on every attempt its door made (the tool door, the console's):
    nothing was kept."""

    code = "write_conflict"


class PayloadTooLarge(MnemosError):
    code = "payload_too_large"
    http_status = 413


class RateLimited(MnemosError):
    code = "rate_limited"
    http_status = 429


class LimitExceeded(MnemosError):
    code = "limit_exceeded"
    http_status = 409


class InternalError(MnemosError):
    """An unexpected exception on a surface: logged with its traceback, answered without it."""

    code = "internal_error"
    http_status = 500


class ServiceUnavailable(MnemosError):
    """Something Mnemos needs is down for now: 503 with ``Retry-After`` (seconds), the call may be retried."""

    code = "service_unavailable"
    http_status = 503
    retry_after = 5

    def as_dict(self) -> dict[str, Any]:
        return {**super().as_dict(), "retry_after": self.retry_after}

    def http_headers(self) -> dict[str, str]:
        return {**super().http_headers(), "Retry-After": str(self.retry_after)}


class DatabaseUnavailable(ServiceUnavailable):
    code = "database_unavailable"


class BrokerUnavailable(ServiceUnavailable):
    code = "broker_unavailable"


INTERNAL_ERROR = "internal error"
DATABASE_UNAVAILABLE = "the database is unavailable: retry in a few seconds"
BROKER_UNAVAILABLE = "the job broker is unavailable: retry in a few seconds"

# SQLSTATEs that say the server cannot serve this connection now (class 08: connection exceptions; 57P01-03:
# shut down by an administrator, crash, starting up; 53300: too many connections). Every other database
# error (a constraint, a lock, a statement timeout) is about the statement, not an outage.
_OUTAGE_SQLSTATES = frozenset({"57P01", "57P02", "57P03", "53300"})
# SQLSTATEs of a transaction the server cancelled so that another could finish: 40P01 (deadlock_detected:
# two transactions each waiting for a row the other holds) and 40001 (serialization_failure). Nothing of it
# was kept, and the same work run again succeeds: PostgreSQL's own advice is to retry the transaction.
_LOCK_CONFLICT_SQLSTATES = frozenset({"40P01", "40001"})
WRITE_CONFLICT = (
    "the call met other calls writing the same rows and was cancelled so that they could finish; "
    "nothing was changed: retry it"
)


def _database_outage(exc: BaseException) -> bool:
    import psycopg
    from django.db import utils as db

    if isinstance(exc, (db.InterfaceError, psycopg.InterfaceError)):
        return True  # "connection already closed"
    if isinstance(exc, (db.OperationalError, psycopg.OperationalError)):
        # Django's wrapper carries the driver's error as its cause; the pool's PoolTimeout has no SQLSTATE,
        # nor has a refused, reset or lost connection.
        driver = exc.__cause__ if isinstance(exc.__cause__, psycopg.Error) else exc
        sqlstate = getattr(driver, "sqlstate", None)
        return sqlstate is None or sqlstate.startswith("08") or sqlstate in _OUTAGE_SQLSTATES
    return False


def lock_conflict(exc: BaseException) -> bool:
    """Whether ``exc`` (or an exception it was raised from or while handling) is the server cancelling a
    transaction to break a deadlock or a serialization failure (``_LOCK_CONFLICT_SQLSTATES``)."""
    import psycopg

    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, psycopg.Error) and current.sqlstate in _LOCK_CONFLICT_SQLSTATES:
            return True
        current = current.__cause__ or current.__context__
    return False


def _broker_outage(exc: BaseException) -> bool:
    from kombu.exceptions import OperationalError

    return isinstance(exc, OperationalError)


def unavailable_error(exc: BaseException) -> ServiceUnavailable | None:
    """The outage behind ``exc`` (itself, its cause or the exception it was raised while handling), as the
    error every surface answers: the database's (``database_unavailable``) or the broker's
    (``broker_unavailable``); None when ``exc`` is no outage."""
    seen: set[int] = set()
    current: BaseException | None = exc
    while current is not None and id(current) not in seen:
        seen.add(id(current))
        if isinstance(current, ServiceUnavailable):
            return current
        if _database_outage(current):
            return DatabaseUnavailable(DATABASE_UNAVAILABLE)
        if _broker_outage(current):
            return BrokerUnavailable(BROKER_UNAVAILABLE)
        current = current.__cause__ or current.__context__
    return None


def failure_error(
    exc: BaseException, *, request_id: str, where: str, message: str = INTERNAL_ERROR, traceback: bool = True
) -> MnemosError:
    """The error a surface answers for an exception it did not expect: itself for a MnemosError, the outage
    behind it (logged in one line), else an ``internal_error`` 500 carrying the request id, logged with that
    id and the traceback (``traceback=False`` where Django has logged it already). The answer never holds a
    traceback."""
    if isinstance(exc, MnemosError):
        return exc
    if lock_conflict(exc):
        logger.warning("%s: write_conflict, request %s (%s)", where, request_id, exc)
        return WriteConflict(WRITE_CONFLICT)
    outage = unavailable_error(exc)
    if outage is not None:
        logger.warning("%s: %s (%s: %s)", where, outage.code, type(exc).__name__, exc)
        return outage
    logger.error("%s failed, request %s", where, request_id, exc_info=exc if traceback else None)
    return InternalError(message, request_id=request_id)
