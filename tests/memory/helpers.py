"""Calling tools the way agents do, over REST."""

from __future__ import annotations

import json
from typing import Any


def tool(client, secret: str, name: str, arguments: dict[str, Any] | None = None, **headers):
    return client.post(
        f"/v1/tools/{name}",
        data=json.dumps(arguments or {}),
        content_type="application/json",
        HTTP_AUTHORIZATION=f"Bearer {secret}",
        **headers,
    )
