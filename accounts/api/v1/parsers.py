"""The REST API's one parser: JSON, with the size and depth limits every JSON route shares.

DRF's own ``JSONParser`` hands the body straight to ``json.load``, which recurses once per level of
nesting (a deep body was a ``RecursionError``, a 500). This one measures the depth on the text first
(``core.inputs.json_body_load``), refuses a body over ``TOOL_BODY_MAX_BYTES`` with 413 and NUL
characters or lone surrogates with 422 (``arguments_check``, as the tool door); its errors are
``core.errors`` exceptions, rendered by the REST door as ``{"error", "code"}``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import IO, Any

from django.conf import settings
from rest_framework.parsers import JSONParser

from core.errors import PayloadTooLarge
from core.inputs import BODY_TOO_LARGE, arguments_check, json_body_load


class LimitedJSONParser(JSONParser):
    def parse(
        self, stream: IO[Any], media_type: str | None = None, parser_context: Mapping[str, Any] | None = None
    ) -> Any:
        limit = settings.TOOL_BODY_MAX_BYTES
        body = stream.read(limit + 1)
        if len(body) > limit:
            raise PayloadTooLarge(BODY_TOO_LARGE, code="payload_too_large")
        encoding = (parser_context or {}).get("encoding") or settings.DEFAULT_CHARSET
        data = json_body_load(body, encoding=encoding)
        arguments_check(data)  # as the tool door: NUL or a lone surrogate is a 422 naming the field
        return data
