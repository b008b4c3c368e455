"""HTTP pieces of the platform: the REST surface of the tool registry (``POST /v1/tools/<name>`` for
every tool), the bearer key and request id every door reads, and the error body.

A thin adapter: parse the body, hand it to the tool door (``tool_dispatch``),
render the outcome. The door authenticates, checks the subscription, the rate
limit and the scope, and runs the handler in the tenant's transaction.
"""

from __future__ import annotations

import re
import uuid
from typing import Any

from django.conf import settings
from django.core.exceptions import RequestDataTooBig
from django.http import HttpRequest, JsonResponse
from django.utils.decorators import method_decorator
from django.views import View
from django.views.decorators.csrf import csrf_exempt

from core.dispatch import tool_dispatch
from core.errors import InvalidInput, MnemosError, PayloadTooLarge, failure_error
from core.inputs import BODY_TOO_LARGE, json_body_load
from core.tenancy import request_id_fits

IDEMPOTENCY_HEADER = "X-Idempotency-Key"
INVALID_IDEMPOTENCY_KEY = "invalid X-Idempotency-Key"
_PRINTABLE_ASCII = re.compile(r"^[\x20-\x7e]{1,256}$")


def request_id_from(raw: str | None) -> str | None:
    """The caller's X-Request-Id when it fits the audit (1-64 printable ASCII), else None (a fresh one).
    A tracing header that a proxy may set is no reason to refuse the call."""
    return raw if request_id_fits(raw) else None


def bearer_secret(header: str | None) -> str | None:
    if not header:
        return None
    scheme, _, value = header.partition(" ")
    if scheme.lower() != "bearer" or not value.strip():
        return None
    return value.strip()


def idempotency_key_from(request: HttpRequest) -> str | None:
    """1-256 printable ASCII characters, or absent."""
    raw = request.headers.get(IDEMPOTENCY_HEADER)
    if raw is None:
        return None
    if not _PRINTABLE_ASCII.match(raw):
        raise InvalidInput(INVALID_IDEMPOTENCY_KEY, code="invalid_idempotency_key")
    return raw


def request_body(request: HttpRequest) -> bytes:
    """The raw body, at most ``TOOL_BODY_MAX_BYTES`` (413 beyond, Django's own limit included)."""
    try:
        body = request.body
    except RequestDataTooBig as exc:
        raise PayloadTooLarge(BODY_TOO_LARGE, code="payload_too_large") from exc
    if len(body) > settings.TOOL_BODY_MAX_BYTES:
        raise PayloadTooLarge(BODY_TOO_LARGE, code="payload_too_large")
    return body


def json_arguments(request: HttpRequest) -> dict[str, Any]:
    body = request_body(request)
    if not body.strip():
        return {}
    data = json_body_load(body)
    if not isinstance(data, dict):
        raise InvalidInput("request body must be a JSON object of the tool's arguments", code="invalid_json")
    return data


def error_response(error: MnemosError) -> JsonResponse:
    """``{"error", "code", ...}`` with the error's status and headers (``WWW-Authenticate``, ``Retry-After``)."""
    return JsonResponse(error.as_dict(), status=error.http_status, headers=error.http_headers())


def failure_response(request: HttpRequest, exc: BaseException, *, traceback: bool = True) -> JsonResponse:
    """The JSON answer for an exception no door caught (``handler500``): the outage behind it (503), else
    ``internal_error`` (500) with the request id that the log line carries (``traceback``: with it)."""
    request_id = request_id_from(request.headers.get("X-Request-Id")) or uuid.uuid4().hex
    where = f"{request.method} {request.path}"
    return error_response(failure_error(exc, request_id=request_id, where=where, traceback=traceback))


@method_decorator(csrf_exempt, name="dispatch")
class ToolCallView(View):
    """Call one tool with its JSON arguments. Goes through the tool door."""

    tenant_door = True
    http_method_names = ["post"]

    def post(self, request: HttpRequest, name: str, task_id: str | None = None) -> JsonResponse:
        try:
            idempotency_key = idempotency_key_from(request)
            arguments = json_arguments(request)
        except MnemosError as exc:
            return error_response(exc)
        outcome = tool_dispatch(
            secret=bearer_secret(request.headers.get("Authorization")),
            name=name,
            arguments=arguments,
            surface="rest",
            idempotency_key=idempotency_key,
            request_id=request_id_from(request.headers.get("X-Request-Id")),
            task_id=task_id,
        )
        if outcome.error is not None:
            return error_response(outcome.error)
        return JsonResponse(outcome.output or {}, json_dumps_params={"ensure_ascii": False})
