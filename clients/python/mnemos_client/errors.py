"""Mnemos's refusals as exceptions: every one carries the API's ``{"error", "code"}`` body."""

from __future__ import annotations

from typing import Any


class MnemosError(Exception):
    """A refusal from Mnemos (or no answer at all: ``APIConnectionError``).

    ``status`` is the HTTP status, ``code`` the API's stable code (``invalid_key``, ``not_found``...),
    ``message`` its text, ``body`` the whole JSON body, ``request_id`` the ``X-Request-Id`` the server
    logged it under, ``retry_after`` the seconds ``Retry-After`` asked for, when it did.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int,
        code: str,
        body: dict[str, Any] | None = None,
        request_id: str | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(f"{status} {code}: {message}" if status else f"{code}: {message}")
        self.message = message
        self.status = status
        self.code = code
        self.body = body if body is not None else {"error": message, "code": code}
        self.request_id = request_id
        self.retry_after = retry_after


class APIConnectionError(MnemosError):
    """No answer: the server could not be reached, or the connection broke (``status`` 0)."""


class BadRequestError(MnemosError):
    """400: a malformed body or ``X-Idempotency-Key``."""


class AuthenticationError(MnemosError):
    """401: the access key is missing, unknown, revoked or expired."""


class PermissionDeniedError(MnemosError):
    """403: the key's scope, the subscription or the role may not."""


class NotFoundError(MnemosError):
    """404: no such object in this enterprise (another tenant's object answers the same)."""


class ConflictError(MnemosError):
    """409: the idempotency key was used with different input, or a plan limit is reached."""


class PayloadTooLargeError(MnemosError):
    """413: the body, or a text in it, is too large."""


class UnprocessableEntityError(MnemosError):
    """422: the arguments do not match the operation's schema or its rules."""


class RateLimitError(MnemosError):
    """429: the project's calls per minute are spent (retried before it is raised)."""


class InternalServerError(MnemosError):
    """500: the call was not completed and nothing was changed (``body["request_id"]`` names it)."""


class ServiceUnavailableError(MnemosError):
    """503: the database or the broker is down for now (retried, after ``Retry-After``, before it is raised)."""


BY_STATUS: dict[int, type[MnemosError]] = {
    400: BadRequestError,
    401: AuthenticationError,
    403: PermissionDeniedError,
    404: NotFoundError,
    409: ConflictError,
    413: PayloadTooLargeError,
    422: UnprocessableEntityError,
    429: RateLimitError,
    500: InternalServerError,
    503: ServiceUnavailableError,
}


def error_for(
    status: int, body: Any, *, text: str, request_id: str | None, retry_after: float | None
) -> MnemosError:
    """The exception for a refusal: the API's body when it is one, else the status and the text."""
    if isinstance(body, dict) and isinstance(body.get("error"), str):
        message, code = body["error"], str(body.get("code") or f"http_{status}")
        kept: dict[str, Any] | None = body
    else:
        # Not Mnemos's answer (a proxy's page): its first line, and a code naming the status.
        message, code, kept = (text.strip().splitlines() or [""])[0][:500], f"http_{status}", None
    cls = BY_STATUS.get(status, InternalServerError if status >= 500 else MnemosError)
    return cls(message, status=status, code=code, body=kept, request_id=request_id, retry_after=retry_after)
