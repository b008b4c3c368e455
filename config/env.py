"""Small typed readers for settings from the environment.

Each raises ImproperlyConfigured on a value it cannot read, so a typo in the
environment stops start-up with one clear line instead of a wrong default.
"""

from __future__ import annotations

import os

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}


def env_str(name: str, default: str = "") -> str:
    return os.environ.get(name, default)


def env_bool(name: str, default: bool = False) -> bool:
    raw = os.environ.get(name)
    if raw is None:
        return default
    value = raw.strip().lower()
    if value in _TRUE:
        return True
    if value in _FALSE:
        return False
    raise ImproperlyConfigured(f"{name} must be true or false, got {raw!r}")


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """The integer in ``name``, else ``default``; below ``minimum`` (when given) is refused."""
    raw = os.environ.get(name)
    value = default
    if raw is not None and raw.strip() != "":
        try:
            value = int(raw)
        except ValueError as exc:
            raise ImproperlyConfigured(f"{name} must be an integer, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be {minimum} or more")
    return value


def env_list(name: str, default: list[str]) -> list[str]:
    raw = os.environ.get(name)
    if raw is None:
        return default
    return [item.strip() for item in raw.split(",") if item.strip()]


def web_workers() -> int:
    """uvicorn worker processes for ``manage.py serve``: ``MNEMOS_WEB_WORKERS``, else one per core and one
    more, up to 5.

    One process runs Python on one core at a time, and while it waits for the database its core can
    idle: on two cores, saves-only with 8 clients went 57 -> 85 a second from one process to two, and
    80-93 -> 98-109 from two to three (four: 95; bench/RESULTS.md). The MCP endpoint is stateless, so
    any worker answers any call.
    """
    return env_int("MNEMOS_WEB_WORKERS", min((os.cpu_count() or 1) + 1, 5), minimum=1)


def web_threads() -> int:
    """Threads a web process serves Django requests on (config/asgi_handler.py): ``MNEMOS_WEB_THREADS``,
    else the connection pool's size (``MNEMOS_DB_POOL``; more threads would only wait for a
    connection), else 8."""
    pool = env_int("MNEMOS_DB_POOL", 0)
    return env_int("MNEMOS_WEB_THREADS", pool if pool > 0 else 8, minimum=1)
