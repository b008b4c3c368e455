"""Webhook secrets and signatures (the Standard Webhooks specification, through its own package).

A secret is ``whsec_`` + 32 random bytes in base64, shown once when the endpoint is made. Mnemos must sign
with it, so it keeps it, encrypted (Fernet, from ``cryptography``) with a key derived from the server's
``SECRET_KEY``: a database dump alone does not give the secrets away. Rotating ``SECRET_KEY`` makes the
stored secrets unreadable: rotate each endpoint's secret then (docs/events.md).
"""

from __future__ import annotations

import base64
import hashlib
import secrets
from datetime import datetime

from cryptography.fernet import Fernet
from django.conf import settings
from standardwebhooks.webhooks import Webhook

SECRET_PREFIX = "whsec_"


def _fernet() -> Fernet:
    digest = hashlib.sha256(f"mnemos-webhook-secrets:{settings.SECRET_KEY}".encode()).digest()
    return Fernet(base64.urlsafe_b64encode(digest))


def secret_new() -> str:
    return SECRET_PREFIX + base64.b64encode(secrets.token_bytes(32)).decode()


def secret_seal(secret: str) -> str:
    return _fernet().encrypt(secret.encode()).decode()


def secret_open(sealed: str) -> str:
    return _fernet().decrypt(sealed.encode()).decode()


def signed_headers(*, secret: str, message_id: str, timestamp: datetime, body: str) -> dict[str, str]:
    """The three headers of the specification: ``webhook-id``, ``webhook-timestamp``, ``webhook-signature``."""
    return {
        "webhook-id": message_id,
        "webhook-timestamp": str(int(timestamp.timestamp())),
        "webhook-signature": Webhook(secret).sign(msg_id=message_id, timestamp=timestamp, data=body),
    }
