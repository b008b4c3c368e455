"""Small typed readers for settings from the environment.

Each raises ImproperlyConfigured on a value it cannot read, so a typo in the
environment stops start-up with one clear line instead of a wrong default.
"""

from __future__ import annotations

import math
import os
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from django.core.exceptions import ImproperlyConfigured

_TRUE = {"1", "true", "yes", "on"}
_FALSE = {"0", "false", "no", "off", ""}
T = TypeVar("T", int, float)


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


def _env_number(name: str, default: T, parse: Callable[[str], T], what: str, minimum: T | None) -> T:
    """``parse(name's value)``, else ``default``; a value it refuses is "must be {what}", one below
    ``minimum`` (a default too) "must be {minimum} or more"."""
    raw = os.environ.get(name)
    value = default
    if raw is not None and raw.strip() != "":
        try:
            value = parse(raw)
        except ValueError as exc:
            raise ImproperlyConfigured(f"{name} must be {what}, got {raw!r}") from exc
    if minimum is not None and value < minimum:
        raise ImproperlyConfigured(f"{name} must be {minimum} or more")
    return value


def env_int(name: str, default: int, *, minimum: int | None = None) -> int:
    """The integer in ``name``, else ``default``; below ``minimum`` (when given) is refused."""
    return _env_number(name, default, int, "an integer", minimum)


def _finite(raw: str) -> float:
    value = float(raw)
    if not math.isfinite(value):
        raise ValueError(raw)
    return value


def env_float(name: str, default: float, *, minimum: float | None = None) -> float:
    """The finite number in ``name``, else ``default``; below ``minimum`` (when given) is refused."""
    return _env_number(name, default, _finite, "a number", minimum)


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


def worker_processes() -> int:
    """Celery pool processes for ``manage.py serve``: ``MNEMOS_WORKER_CONCURRENCY``, else one per core,
    up to 4.

    The default embedder runs on one core a process (``OMP_NUM_THREADS=1``) and the pool is niced, so a
    process a core takes the CPU the web server leaves and not what it needs. On two cores, 16 unpaced
    clients for 3 minutes left 3,656 memories without a vector, drained in 97 s by two processes; one
    process embeds at half that pace (bench/RESULTS.md, issue 18). Four bounds the embedders' memory and
    the database connections on a larger machine.
    """
    return env_int("MNEMOS_WORKER_CONCURRENCY", min(os.cpu_count() or 1, 4), minimum=1)


def web_threads() -> int:
    """Threads a web process serves Django requests on (config/asgi.py, a2wsgi's pool): ``MNEMOS_WEB_THREADS``,
    else the connection pool's size (``MNEMOS_DB_POOL``; more threads would only wait for a
    connection), else 8."""
    pool = env_int("MNEMOS_DB_POOL", 0)
    return env_int("MNEMOS_WEB_THREADS", pool if pool > 0 else 8, minimum=1)


# The header a TLS-terminating proxy sets on the requests it forwards (Django's SECURE_PROXY_SSL_HEADER).
FORWARDED_PROTO_HTTPS = ("HTTP_X_FORWARDED_PROTO", "https")
ONE_YEAR_SECONDS = 365 * 24 * 3600


@dataclass(frozen=True)
class TransportSecurity:
    """What the cookies and the HSTS header say about HTTPS (config/settings.py applies it)."""

    secure_cookies: bool
    hsts_seconds: int
    hsts_include_subdomains: bool
    hsts_preload: bool
    proxy_ssl_header: tuple[str, str] | None


def transport_security(*, public_url: str) -> TransportSecurity:
    """Secure cookies and HSTS: on by default when the deployment says it is served over HTTPS
    (``public_url`` is https://, or ``MNEMOS_BEHIND_HTTPS_PROXY`` says a proxy terminates TLS and sets
    ``X-Forwarded-Proto``); off for the embedded ``http://127.0.0.1``, where a Secure cookie would never
    come back and sign-in would fail.

    HSTS defaults to a year (the common production value, and the preload list's minimum): Django
    sends it only on requests that arrived over HTTPS, so a plain-http deployment never pins itself.
    It binds the whole host, every port: ``MNEMOS_HSTS_SECONDS=0`` turns it off, a small value tries
    it out. Subdomains and preload reach beyond this deployment, so they stay the operator's choice.
    """
    behind_proxy = env_bool("MNEMOS_BEHIND_HTTPS_PROXY", False)
    https = behind_proxy or public_url.strip().lower().startswith("https://")
    hsts_seconds = env_int("MNEMOS_HSTS_SECONDS", ONE_YEAR_SECONDS if https else 0, minimum=0)
    include_subdomains = env_bool("MNEMOS_HSTS_INCLUDE_SUBDOMAINS", False)
    preload = env_bool("MNEMOS_HSTS_PRELOAD", False)
    if preload and not (include_subdomains and hsts_seconds >= ONE_YEAR_SECONDS):
        raise ImproperlyConfigured(
            "MNEMOS_HSTS_PRELOAD needs MNEMOS_HSTS_INCLUDE_SUBDOMAINS=true and MNEMOS_HSTS_SECONDS of "
            f"{ONE_YEAR_SECONDS} or more (the preload list refuses less)"
        )
    return TransportSecurity(
        secure_cookies=env_bool("MNEMOS_SECURE_COOKIES", https),
        hsts_seconds=hsts_seconds,
        hsts_include_subdomains=include_subdomains,
        hsts_preload=preload,
        proxy_ssl_header=FORWARDED_PROTO_HTTPS if behind_proxy else None,
    )
