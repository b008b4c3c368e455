"""Typed clients for Mnemos's REST API (generated from its OpenAPI document)."""

from __future__ import annotations

from mnemos_client import models
from mnemos_client._generated import OPERATIONS
from mnemos_client._transport import IDEMPOTENCY_HEADER, Operation, RetryPolicy, Upload
from mnemos_client.client import AsyncClient, Client
from mnemos_client.errors import (
    APIConnectionError,
    AuthenticationError,
    BadRequestError,
    ConflictError,
    InternalServerError,
    MnemosError,
    NotFoundError,
    PayloadTooLargeError,
    PermissionDeniedError,
    RateLimitError,
    ServiceUnavailableError,
    UnprocessableEntityError,
)
from mnemos_client.models import API_VERSION

__all__ = [
    "API_VERSION",
    "IDEMPOTENCY_HEADER",
    "OPERATIONS",
    "APIConnectionError",
    "AsyncClient",
    "AuthenticationError",
    "BadRequestError",
    "Client",
    "ConflictError",
    "InternalServerError",
    "MnemosError",
    "NotFoundError",
    "Operation",
    "PayloadTooLargeError",
    "PermissionDeniedError",
    "RateLimitError",
    "RetryPolicy",
    "ServiceUnavailableError",
    "UnprocessableEntityError",
    "Upload",
    "models",
]
