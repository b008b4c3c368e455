"""Structured logs: one JSON object a line, on every process (web, worker, commands).

Every line, from a ``structlog`` logger or a plain ``logging`` one (Django's, Celery's, ours), goes through
stdlib logging to the handler ``settings.LOGGING`` names, whose formatter is ``json_formatter``: the
timestamp (UTC, ISO 8601), ``level``, ``event``, ``logger``, the ``request_id`` and ``enterprise_id`` of the
tenant context in force (or bound with ``structlog.contextvars``: a job's origin request), the fields the
caller gave (``tool``, ``status``, ``duration_ms`` ...), then ``scrub``: a field that carries memory content or
a secret is replaced by ``[filtered]`` whatever its value, and a secret-shaped string anywhere else (the
event, an exception's text) by ``[filtered:<kind>]``. docs/operations.md, "Metrics and logs".
"""

from __future__ import annotations

import logging
import re
from collections.abc import MutableMapping
from typing import Any

import structlog

# The Celery message header that carries the request a job was recorded in (core/jobs.py), read by the
# worker's door (accounts.tasks.TenantTask) and bound to the job's log lines.
REQUEST_ID_HEADER = "mnemos_request_id"
# The logger of the access lines (a tool call, an HTTP request, a job's outcome), INFO by default.
ACCESS_LOGGER = "mnemos.access"

FILTERED = "[filtered]"
# Keys whose value is memory content, a caller's input or a credential: never written, whatever it holds.
CONTENT_KEYS = frozenset(
    {
        "content",
        "summary",
        "text",
        "body",
        "arguments",
        "args",
        "kwargs",
        "input",
        "output",
        "query",
        "question",
        "answer",
        "memory",
        "memories",
        "note",
        "secret",
        "password",
        "passwd",
        "token",
        "authorization",
        "cookie",
        "api_key",
        "access_key",
        "private_key",
        "credential",
        "credentials",
    }
)
# Secret shapes redacted wherever they appear in a line (a message, an exception's text): cheap
# regular expressions for what most often leaks, not the guard's full rule set (memory.guard).
_SECRET_SHAPES = (
    ("aws", re.compile(r"\b(?:A3T[A-Z0-9]|AKIA|ASIA|ABIA|ACCA|AGPA|AIDA|AROA|ANPA|ANVA|AIPA)[A-Z0-9]{16}\b")),
    (
        "private_key",
        re.compile(r"-----BEGIN[A-Z ]*PRIVATE KEY-----[\s\S]*?(?:-----END[A-Z ]*PRIVATE KEY-----|$)"),
    ),
    ("bearer", re.compile(r"(?i)\bbearer\s+[A-Za-z0-9._~+/=-]{8,}")),
    ("github", re.compile(r"\b(?:gh[pousr]_[A-Za-z0-9]{36,}|github_pat_[A-Za-z0-9_]{40,})\b")),
    ("slack", re.compile(r"\bxox[abposr]-[A-Za-z0-9-]{10,}\b")),
    ("jwt", re.compile(r"\beyJ[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}\.[A-Za-z0-9_-]{8,}")),
    (
        "assignment",
        re.compile(r"(?i)\b(?:password|passwd|secret|token|api[_-]?key)\b\s*[:=]\s*[\"']?[^\s\"',;]{6,}"),
    ),
)


def redact_secrets(text: str) -> str:
    for kind, pattern in _SECRET_SHAPES:
        text = pattern.sub(f"[filtered:{kind}]", text)
    return text


def _scrubbed(value: Any) -> Any:
    if isinstance(value, str):
        return redact_secrets(value)
    if isinstance(value, dict):
        return {k: FILTERED if str(k).lower() in CONTENT_KEYS else _scrubbed(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrubbed(v) for v in value]
    return value


def scrub(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """Content-bearing keys filtered, secret shapes redacted in every other value (nested too)."""
    for key in list(event_dict):
        if key.lower() in CONTENT_KEYS:
            event_dict[key] = FILTERED
        else:
            event_dict[key] = _scrubbed(event_dict[key])
    return event_dict


def add_tenant(_logger: Any, _method: str, event_dict: MutableMapping[str, Any]) -> MutableMapping[str, Any]:
    """The request id and enterprise of the tenant context in force, unless the line names its own."""
    from core.tenancy import current_tenant_or_none

    ctx = current_tenant_or_none()
    if ctx is not None:
        event_dict.setdefault("request_id", ctx.request_id)
        if ctx.enterprise_id is not None:
            event_dict.setdefault("enterprise_id", str(ctx.enterprise_id))
    return event_dict


def current_request_id() -> str | None:
    """The request this code runs for: the one bound to the logs (a job's origin), else the tenant
    context's; what ``core.jobs`` puts in a job's message so the job's lines carry it."""
    bound = structlog.contextvars.get_contextvars().get("request_id")
    if bound:
        return str(bound)
    from core.tenancy import current_tenant_or_none

    ctx = current_tenant_or_none()
    return ctx.request_id if ctx is not None else None


_SHARED: list[Any] = [
    structlog.contextvars.merge_contextvars,
    structlog.stdlib.add_log_level,
    structlog.stdlib.add_logger_name,
    structlog.processors.TimeStamper(fmt="iso", utc=True, key="timestamp"),
    add_tenant,
]


def structlog_configure() -> None:
    """structlog's loggers hand their event dicts to stdlib logging (``json_formatter`` renders them)."""
    if structlog.is_configured():
        return
    structlog.configure(
        processors=[
            structlog.stdlib.filter_by_level,
            *_SHARED,
            structlog.processors.StackInfoRenderer(),
            structlog.stdlib.ProcessorFormatter.wrap_for_formatter,
        ],
        logger_factory=structlog.stdlib.LoggerFactory(),
        wrapper_class=structlog.stdlib.BoundLogger,
        cache_logger_on_first_use=True,
    )


def json_formatter() -> logging.Formatter:
    """The formatter of ``settings.LOGGING``'s handlers (``"()": "core.logs.json_formatter"``): also
    configures structlog, so every process that applies the logging settings logs the same way."""
    structlog_configure()
    return structlog.stdlib.ProcessorFormatter(
        foreign_pre_chain=[*_SHARED, structlog.stdlib.ExtraAdder()],
        processors=[
            structlog.stdlib.ProcessorFormatter.remove_processors_meta,
            structlog.processors.format_exc_info,
            scrub,
            structlog.processors.JSONRenderer(default=str, ensure_ascii=False),
        ],
    )


def access_logger() -> Any:
    return structlog.get_logger(ACCESS_LOGGER)
