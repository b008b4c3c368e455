"""OpenID Connect for the console, per enterprise, through mozilla-django-oidc (docs/sso.md).

The library reads one global configuration from settings; Mnemos has one identity provider per
enterprise. So its backend is made per sign-in from the enterprise's ``IdentityProvider`` (the issuer's
discovery document gives the endpoints) and its settings lookups answer from that, never from
settings. What the library does for us: the authorization request (state, nonce, PKCE S256, kept in
the session under the state), the code exchange at the token endpoint, the ID token's signature with
the key from the IdP's JWKS (``kid`` and ``alg`` matched) and the nonce. What this adds: the issuer,
audience, expiry and issued-at checks (the library leaves the audience unchecked), and the claims
handed to ``accounts.services.sso.sso_member_sign_in``.

The client secret is kept encrypted (Fernet, key derived from SECRET_KEY with a purpose of its own, as
``partners/crypto.py`` and ``events/signing.py`` do for theirs): a database dump alone does not give it.
"""

from __future__ import annotations

import base64
import hashlib
import ipaddress
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlencode, urlsplit

import jwt
import requests
from cryptography.fernet import Fernet
from django.conf import settings
from django.core.exceptions import SuspiciousOperation
from django.http import HttpRequest
from django.urls import reverse
from django.utils.crypto import get_random_string
from mozilla_django_oidc.auth import OIDCAuthenticationBackend
from mozilla_django_oidc.utils import (
    absolutify,
    add_state_and_verifier_and_nonce_to_session,
    generate_code_challenge,
    import_from_settings,
)

from core.errors import InvalidInput, ServiceUnavailable

SIGN_ALGORITHM = "RS256"
SCOPES = "openid email profile"
TIMEOUT_SECONDS = 10
CALLBACK_URL_NAME = "console:sso_callback"
# Which enterprise each pending sign-in (by its state) is for: the callback signs into that one only.
SESSION_SSO_STATES = "mnemos_sso_states"

ISSUER_NOT_HTTPS = "the issuer must be an https:// URL (http:// only on this machine's loopback)"
DISCOVERY_FAILED = "the identity provider's discovery document could not be read: {reason}"
DISCOVERY_ISSUER_MISMATCH = "the discovery document names issuer {found!r}, not {expected!r}"

# The library's own settings, answered per backend instead of from django.conf.settings.
_FIXED: dict[str, Any] = {
    "OIDC_RP_SCOPES": SCOPES,
    "OIDC_USE_NONCE": True,
    "OIDC_USE_PKCE": True,
    "OIDC_VERIFY_SSL": True,
    "OIDC_TIMEOUT": TIMEOUT_SECONDS,
    "OIDC_PROXY": None,
    "OIDC_CREATE_USER": True,
    "OIDC_ALLOW_UNSECURED_JWT": False,
    "OIDC_TOKEN_USE_BASIC_AUTH": False,
    "OIDC_STORE_ACCESS_TOKEN": False,
    "OIDC_STORE_ID_TOKEN": False,
    "OIDC_AUTHENTICATION_CALLBACK_URL": CALLBACK_URL_NAME,
}


def _fernet() -> Fernet:
    digest = hashlib.sha256(f"mnemos-sso-client-secret:{settings.SECRET_KEY}".encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def secret_seal(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def secret_open(sealed: str) -> str:
    return _fernet().decrypt(sealed.encode()).decode()


def issuer_normalize(issuer: str) -> str:
    """The issuer as configured (no trailing slash); https, or http on a loopback address only."""
    issuer = issuer.strip().rstrip("/")
    parts = urlsplit(issuer)
    host = parts.hostname or ""
    if parts.scheme == "https" and host:
        return issuer
    if parts.scheme == "http" and _loopback(host):
        return issuer
    raise InvalidInput(ISSUER_NOT_HTTPS, code="invalid_issuer")


def _loopback(host: str) -> bool:
    if host == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


@dataclass(frozen=True)
class Endpoints:
    issuer: str
    authorization: str
    token: str
    jwks: str
    userinfo: str


def discover(issuer: str) -> Endpoints:
    """The issuer's ``/.well-known/openid-configuration``; its ``issuer`` must be the one configured."""
    try:
        response = requests.get(f"{issuer}/.well-known/openid-configuration", timeout=TIMEOUT_SECONDS)
        response.raise_for_status()
        document = response.json()
        found = str(document.get("issuer", "")).rstrip("/")
        endpoints = Endpoints(
            issuer=str(document["issuer"]),
            authorization=str(document["authorization_endpoint"]),
            token=str(document["token_endpoint"]),
            jwks=str(document["jwks_uri"]),
            userinfo=str(document.get("userinfo_endpoint") or ""),
        )
    except (requests.RequestException, ValueError, KeyError, TypeError, AttributeError) as exc:
        raise ServiceUnavailable(
            DISCOVERY_FAILED.format(reason=type(exc).__name__), code="sso_discovery_failed"
        ) from exc
    if found != issuer:
        raise ServiceUnavailable(
            DISCOVERY_ISSUER_MISMATCH.format(found=found, expected=issuer), code="sso_discovery_failed"
        )
    return endpoints


def callback_url(request: HttpRequest) -> str:
    return absolutify(request, reverse(CALLBACK_URL_NAME))


def authorization_url(
    request: HttpRequest, *, enterprise_id: str, endpoints: Endpoints, client_id: str
) -> str:
    """The IdP's authorization request (the library's parameters: state, nonce, PKCE), remembered in the
    session with the enterprise it is for."""
    state = get_random_string(32)
    code_verifier = get_random_string(64)
    params = {
        "response_type": "code",
        "scope": SCOPES,
        "client_id": client_id,
        "redirect_uri": callback_url(request),
        "state": state,
        "nonce": get_random_string(32),
        "code_challenge": generate_code_challenge(code_verifier, "S256"),
        "code_challenge_method": "S256",
    }
    add_state_and_verifier_and_nonce_to_session(request, state, params, code_verifier)
    pending = dict(request.session.get(SESSION_SSO_STATES) or {})
    # As many as the library keeps states for (the oldest go first).
    limit = int(import_from_settings("OIDC_MAX_STATES", 50))
    pending = dict(list(pending.items())[-(limit - 1) :]) if len(pending) >= limit else pending
    pending[state] = enterprise_id
    request.session[SESSION_SSO_STATES] = pending
    return f"{endpoints.authorization}?{urlencode(params)}"


@dataclass(frozen=True)
class PendingSignIn:
    enterprise_id: str
    nonce: str
    code_verifier: str | None


def pending_sign_in(request: HttpRequest) -> PendingSignIn | None:
    """The callback's state, taken out of the session (used once); None when the session never began it."""
    state = request.GET.get("state", "")
    states = request.session.get("oidc_states") or {}
    enterprises = request.session.get(SESSION_SSO_STATES) or {}
    if not state or state not in states or state not in enterprises:
        return None
    entry = states.pop(state)
    enterprise_id = enterprises.pop(state)
    request.session["oidc_states"] = states
    request.session[SESSION_SSO_STATES] = enterprises
    return PendingSignIn(
        enterprise_id=str(enterprise_id),
        nonce=entry.get("nonce", ""),
        code_verifier=entry.get("code_verifier"),
    )


class EnterpriseOIDCBackend(OIDCAuthenticationBackend):  # type: ignore[misc]
    """The library's backend for one enterprise's IdP. ``authenticate`` returns the verified claims'
    owner through ``on_claims`` (the sign-in service), never by looking a user up by e-mail itself."""

    def __init__(self, *, endpoints: Endpoints, client_id: str, client_secret: str, on_claims: Any) -> None:
        # Not the library's __init__: it reads one global configuration from settings.
        self.OIDC_OP_TOKEN_ENDPOINT = endpoints.token
        self.OIDC_OP_USER_ENDPOINT = endpoints.userinfo
        self.OIDC_OP_JWKS_ENDPOINT = endpoints.jwks
        self.OIDC_RP_CLIENT_ID = client_id
        self.OIDC_RP_CLIENT_SECRET = client_secret
        self.OIDC_RP_SIGN_ALGO = SIGN_ALGORITHM
        self.OIDC_RP_IDP_SIGN_KEY: Any = None
        self.issuer = endpoints.issuer
        self.on_claims = on_claims
        from django.contrib.auth import get_user_model

        self.UserModel = get_user_model()

    def get_settings(self, attr: str, *args: Any) -> Any:  # type: ignore[override]
        if attr in _FIXED:
            return _FIXED[attr]
        return import_from_settings(attr, *args)

    def _verify_jws(self, payload: str, key: Any) -> dict[str, Any]:
        """The library's check of ``alg`` and the signature, plus the issuer, audience, expiry and
        issued-at the specification requires (OpenID Connect Core 3.1.3.7)."""
        header = jwt.get_unverified_header(payload)
        if header.get("alg") != self.OIDC_RP_SIGN_ALGO:
            raise SuspiciousOperation("The ID token's algorithm is not the one expected.")
        try:
            claims: dict[str, Any] = jwt.decode(
                payload,
                key,
                algorithms=[self.OIDC_RP_SIGN_ALGO],
                audience=self.OIDC_RP_CLIENT_ID,
                issuer=self.issuer,
                options={"require": ["iss", "aud", "exp", "iat", "sub"]},
                leeway=60,
            )
        except jwt.PyJWTError as exc:
            raise SuspiciousOperation(f"ID token refused: {exc}") from exc
        audiences = claims["aud"] if isinstance(claims["aud"], list) else [claims["aud"]]
        if len(audiences) > 1 and claims.get("azp") != self.OIDC_RP_CLIENT_ID:
            raise SuspiciousOperation("ID token refused: azp is not this client")
        return claims

    def get_or_create_user(self, access_token: str, id_token: str, payload: dict[str, Any]) -> Any:
        """The verified ID token's claims (with the userinfo endpoint's, for the same ``sub``) go to the
        sign-in service."""
        claims = dict(payload)
        if self.OIDC_OP_USER_ENDPOINT and access_token:
            userinfo = self.get_userinfo(access_token, id_token, payload)
            if str(userinfo.get("sub", "")) != str(payload["sub"]):
                raise SuspiciousOperation("userinfo's sub is not the ID token's")
            claims = {**userinfo, **payload}
        return self.on_claims(claims)
