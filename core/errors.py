"""One hierarchy of errors with stable codes. Messages are the seeds' exact texts where given."""

from __future__ import annotations

from typing import Any


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


class PayloadTooLarge(MnemosError):
    code = "payload_too_large"
    http_status = 413


class RateLimited(MnemosError):
    code = "rate_limited"
    http_status = 429


class LimitExceeded(MnemosError):
    code = "limit_exceeded"
    http_status = 409
