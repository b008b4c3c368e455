"""The consumer's handle on the provider side of a link: in this deployment, or over HTTPS.

Both answer ``call(op, args)`` with the provider's plain dict, or raise ``ProviderRefused``
(the provider's own reason) or ``RemoteUnavailable`` (the provider deployment did not answer).
"""

from __future__ import annotations

import ssl
import uuid
from typing import Any, Protocol

import httpx
from django.conf import settings

from partners.crypto import credential_decrypt
from partners.door import side_context
from partners.models import PartnerLink
from partners.provider import provider_serve

SERVE_PATH = "/v1/partners/serve"
CONNECT_TIMEOUT_S = 2.0
READ_TIMEOUT_S = 10.0


class ProviderRefused(Exception):
    """The provider will not serve: ``reason`` names the state of the link."""

    def __init__(self, reason: str, detail: str) -> None:
        super().__init__(detail)
        self.reason = reason
        self.detail = detail


class RemoteUnavailable(Exception):
    """The provider deployment did not answer (connection error, timeout, 5xx)."""


class ProviderSide(Protocol):
    remote: bool

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]: ...


def _answer(body: dict[str, Any]) -> dict[str, Any]:
    if body.get("status") != "ok":
        raise ProviderRefused(str(body.get("reason") or "link_not_active"), str(body.get("detail") or ""))
    return body


class LocalProvider:
    """The provider is an enterprise of this deployment: its side runs under its own tenant context."""

    remote = False

    def __init__(self, link: PartnerLink) -> None:
        self.link_id = link.link_id
        self.provider_id = link.partner_org_id
        self.consumer_id = link.enterprise_id

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        with side_context(uuid.UUID(str(self.provider_id))):
            body = provider_serve(link_id=self.link_id, consumer_org_id=self.consumer_id, op=op, args=args)
        return _answer(body)


def _verify() -> ssl.SSLContext | bool:
    bundle = settings.PARTNER_CA_BUNDLE
    if bundle:
        return ssl.create_default_context(cafile=bundle)
    return True


class RemoteProvider:
    """The provider is on another Mnemos deployment, reached over HTTPS with the link's credential."""

    remote = True

    def __init__(self, link: PartnerLink) -> None:
        self.link_id = link.link_id
        self.consumer_id = link.enterprise_id
        self.url = link.remote_url.rstrip("/") + SERVE_PATH
        self.credential = credential_decrypt(link.credential_encrypted)

    def call(self, op: str, args: dict[str, Any]) -> dict[str, Any]:
        try:
            response = httpx.post(
                self.url,
                json={
                    "link_id": str(self.link_id),
                    "consumer_org_id": str(self.consumer_id),
                    "op": op,
                    "args": args,
                },
                headers={"Authorization": f"Bearer {self.credential}"},
                timeout=httpx.Timeout(READ_TIMEOUT_S, connect=CONNECT_TIMEOUT_S),
                verify=_verify(),
            )
        except httpx.HTTPError as exc:
            raise RemoteUnavailable(f"the partner org did not answer: {type(exc).__name__}") from exc
        if response.status_code >= 500:
            raise RemoteUnavailable(f"the partner org answered {response.status_code}")
        try:
            body = response.json()
        except ValueError as exc:
            raise RemoteUnavailable("the partner org answered something that is not JSON") from exc
        if response.status_code in (401, 403, 404):
            raise ProviderRefused(
                "principal_not_active", str(body.get("error") or "the partner org refused the credential")
            )
        if not isinstance(body, dict):
            raise RemoteUnavailable("the partner org answered something that is not an object")
        return _answer(body)


def provider_side(link: PartnerLink) -> ProviderSide:
    return RemoteProvider(link) if link.remote_url else LocalProvider(link)
