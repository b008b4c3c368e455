"""Signed, expiring links that open the console's switch page.

A tool can only hand out such a link; the switch happens when the user who
owns the connection opens it, signed in, and presses the button.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from django.conf import settings
from django.core import signing

SALT = "mnemos.switch-link"


class SwitchLinkInvalid(Exception):
    pass


class SwitchLinkExpired(SwitchLinkInvalid):
    pass


@dataclass(frozen=True)
class SwitchRequest:
    enterprise_id: uuid.UUID
    member_id: int
    key_id: uuid.UUID
    project_id: uuid.UUID


def switch_token(*, enterprise_id: uuid.UUID, member_id: int, key_id: uuid.UUID, project_id: str) -> str:
    payload = {"e": str(enterprise_id), "m": member_id, "k": str(key_id), "p": str(project_id)}
    return signing.dumps(payload, salt=SALT, compress=True)


def switch_url(token: str) -> str:
    return f"{settings.PUBLIC_URL}/console/switch/{token}"


def switch_token_read(token: str) -> SwitchRequest:
    try:
        data = signing.loads(token, salt=SALT, max_age=settings.SWITCH_LINK_MAX_AGE)
    except signing.SignatureExpired as exc:
        raise SwitchLinkExpired(str(exc)) from exc
    except signing.BadSignature as exc:
        raise SwitchLinkInvalid(str(exc)) from exc
    try:
        return SwitchRequest(
            enterprise_id=uuid.UUID(data["e"]),
            member_id=int(data["m"]),
            key_id=uuid.UUID(data["k"]),
            project_id=uuid.UUID(data["p"]),
        )
    except (KeyError, TypeError, ValueError) as exc:
        raise SwitchLinkInvalid("malformed switch link") from exc
