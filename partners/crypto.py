"""The consumer keeps the credential it presents to a remote provider, encrypted at rest.

Fernet (AES-128-CBC + HMAC-SHA256) with a key derived from ``SECRET_KEY``: a database dump alone
does not give the credential away, and rotating ``SECRET_KEY`` means re-entering the credentials.
The provider keeps only a SHA-256 digest of the credential, like access keys.
"""

from __future__ import annotations

import base64
import hashlib
import secrets

from cryptography.fernet import Fernet, InvalidToken
from django.conf import settings

from core.errors import InvalidInput

CREDENTIAL_PREFIX = "mnp_"


def _fernet() -> Fernet:
    digest = hashlib.sha256(b"mnemos-partner-credential:" + settings.SECRET_KEY.encode("utf-8")).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def credential_new() -> str:
    return CREDENTIAL_PREFIX + secrets.token_urlsafe(32)


def credential_digest(credential: str) -> str:
    return hashlib.sha256(credential.encode("utf-8")).hexdigest()


def credential_encrypt(credential: str) -> str:
    return _fernet().encrypt(credential.encode("utf-8")).decode("ascii")


def credential_decrypt(token: str) -> str:
    try:
        return _fernet().decrypt(token.encode("ascii")).decode("utf-8")
    except InvalidToken as exc:
        raise InvalidInput(
            "the stored partner credential cannot be read with this SECRET_KEY: enter it again",
            code="credential_unreadable",
        ) from exc
