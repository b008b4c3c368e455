"""What every call shares: the bearer key, idempotency keys on writes, retries, errors.

A call is tried up to ``RetryPolicy.attempts`` times. 429 and 503 are retried on every operation (the
server refused before doing anything); other 5xx and broken connections only where a repeat cannot
do the work twice (a read, a PUT, a write carrying ``X-Idempotency-Key``). The wait is the answer's
``Retry-After`` when it gives one (a call whose ``Retry-After`` exceeds ``max_retry_after`` is not
retried: its error says when to come back), else an exponential back-off with jitter.
"""

from __future__ import annotations

import asyncio
import email.utils
import random
import time
import uuid
from dataclasses import dataclass
from typing import IO, Any, Self
from urllib.parse import quote

import httpx

from mnemos_client.errors import APIConnectionError, error_for

IDEMPOTENCY_HEADER = "X-Idempotency-Key"
RETRIED_ALWAYS = frozenset({429, 503})
DEFAULT_TIMEOUT = 30.0
USER_AGENT = "mnemos-client-python"

# A file to import: its bytes or a binary file object, optionally as (file name, content).
Upload = bytes | IO[bytes] | tuple[str, bytes | IO[bytes]]


@dataclass(frozen=True)
class Operation:
    """One operation of the API, as the generated table describes it."""

    operation_id: str
    method: str
    path: str
    query: tuple[str, ...] = ()
    body: str | None = None
    form: tuple[str, ...] = ()
    idempotency_key: bool = False
    retry_safe: bool = False


@dataclass(frozen=True)
class RetryPolicy:
    """``attempts`` in all (1: no retry); back-off ``backoff * 2**n`` seconds, at most ``max_backoff``."""

    attempts: int = 4
    backoff: float = 0.5
    max_backoff: float = 8.0
    max_retry_after: float = 60.0

    def delay(self, *, attempt: int, retry_after: float | None) -> float | None:
        """Seconds to wait before attempt ``attempt + 1``; None: do not retry."""
        if attempt >= self.attempts:
            return None
        if retry_after is not None:
            return retry_after if retry_after <= self.max_retry_after else None
        exponential = min(self.max_backoff, self.backoff * 2 ** (attempt - 1))
        return exponential * (0.5 + random.random() / 2)


def retry_after_seconds(response: httpx.Response) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date (RFC 9110 §10.2.3)."""
    value = response.headers.get("Retry-After")
    if value is None:
        return None
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - time.time())


@dataclass(frozen=True)
class Request:
    """One call, built once and sent as many times as the policy allows (with the same key)."""

    operation: Operation
    method: str
    url: str
    params: dict[str, Any]
    headers: dict[str, str]
    json: Any
    data: dict[str, str] | None
    files: dict[str, Any] | None

    @property
    def retry_safe(self) -> bool:
        return self.operation.retry_safe

    def send_kwargs(self) -> dict[str, Any]:
        kwargs: dict[str, Any] = {"params": self.params, "headers": self.headers}
        if self.files is not None:
            kwargs.update(data=self.data, files=self.files)
        elif self.json is not None:
            kwargs["json"] = self.json
        return kwargs


def build_request(
    operation: Operation,
    *,
    path: dict[str, str] | None = None,
    query: dict[str, Any] | None = None,
    json: dict[str, Any] | None = None,
    form: dict[str, Any] | None = None,
    idempotency_key: str | None = None,
) -> Request:
    url = operation.path
    for name, value in (path or {}).items():
        url = url.replace("{" + name + "}", quote(str(value), safe=""))
    params = {name: _form_value(value) for name, value in (query or {}).items() if value is not None}
    headers: dict[str, str] = {}
    if operation.idempotency_key:
        headers[IDEMPOTENCY_HEADER] = idempotency_key or uuid.uuid4().hex
    data: dict[str, str] | None = None
    files: dict[str, Any] | None = None
    if operation.form:
        data, files = {}, {}
        for name, value in (form or {}).items():
            if value is None:
                continue
            if name == "file":
                files[name] = value if isinstance(value, tuple) else ("upload", value)
            else:
                data[name] = _form_value(value)
    body = json if operation.body is not None else None
    return Request(operation, operation.method, url, params, headers, body, data, files)


def _form_value(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def _result(response: httpx.Response) -> Any:
    if response.is_success:
        return response.json() if response.content else None
    try:
        body = response.json()
    except ValueError:
        body = None
    raise error_for(
        response.status_code,
        body,
        text=response.text,
        request_id=response.headers.get("X-Request-Id"),
        retry_after=retry_after_seconds(response),
    )


def _retry_delay(
    request: Request, response: httpx.Response, attempt: int, policy: RetryPolicy
) -> float | None:
    status = response.status_code
    if status in RETRIED_ALWAYS or (status >= 500 and request.retry_safe):
        return policy.delay(attempt=attempt, retry_after=retry_after_seconds(response))
    return None


def _connection_retry_delay(
    request: Request, error: httpx.TransportError, attempt: int, policy: RetryPolicy
) -> float | None:
    # A refused connection sent nothing; a broken one may have done the work, so only a safe repeat.
    if isinstance(error, httpx.ConnectError | httpx.ConnectTimeout) or request.retry_safe:
        return policy.delay(attempt=attempt, retry_after=None)
    return None


def _connection_error(error: httpx.TransportError) -> APIConnectionError:
    return APIConnectionError(str(error) or type(error).__name__, status=0, code="connection_error")


def _client_options(
    base_url: str, api_key: str, timeout: float, headers: dict[str, str] | None
) -> dict[str, Any]:
    return {
        "base_url": base_url.rstrip("/"),
        "headers": {"Authorization": f"Bearer {api_key}", "User-Agent": USER_AGENT, **(headers or {})},
        "timeout": timeout,
    }


class SyncTransport:
    """The sync client's sending: ``httpx.Client`` with the retry policy."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        headers: dict[str, str] | None = None,
        transport: httpx.BaseTransport | None = None,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.http = httpx.Client(transport=transport, **_client_options(base_url, api_key, timeout, headers))

    def _call(self, operation: Operation, **parts: Any) -> Any:
        request = build_request(operation, **parts)
        attempt = 1
        while True:
            try:
                response = self.http.request(request.method, request.url, **request.send_kwargs())
            except httpx.TransportError as error:
                delay = _connection_retry_delay(request, error, attempt, self.retry)
                if delay is None:
                    raise _connection_error(error) from error
            else:
                delay = _retry_delay(request, response, attempt, self.retry)
                if delay is None:
                    return _result(response)
                response.close()
            time.sleep(delay)
            attempt += 1

    def close(self) -> None:
        self.http.close()

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


class AsyncTransport:
    """The async client's sending: ``httpx.AsyncClient`` with the retry policy."""

    def __init__(
        self,
        base_url: str,
        api_key: str,
        *,
        timeout: float = DEFAULT_TIMEOUT,
        retry: RetryPolicy | None = None,
        headers: dict[str, str] | None = None,
        transport: httpx.AsyncBaseTransport | None = None,
    ) -> None:
        self.retry = retry or RetryPolicy()
        self.http = httpx.AsyncClient(
            transport=transport, **_client_options(base_url, api_key, timeout, headers)
        )

    async def _call(self, operation: Operation, **parts: Any) -> Any:
        request = build_request(operation, **parts)
        attempt = 1
        while True:
            try:
                response = await self.http.request(request.method, request.url, **request.send_kwargs())
            except httpx.TransportError as error:
                delay = _connection_retry_delay(request, error, attempt, self.retry)
                if delay is None:
                    raise _connection_error(error) from error
            else:
                delay = _retry_delay(request, response, attempt, self.retry)
                if delay is None:
                    return _result(response)
                await response.aclose()
            await asyncio.sleep(delay)
            attempt += 1

    async def aclose(self) -> None:
        await self.http.aclose()

    async def __aenter__(self) -> Self:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.aclose()
