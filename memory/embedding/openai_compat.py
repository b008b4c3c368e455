"""An embedder behind an OpenAI-compatible ``POST /v1/embeddings`` endpoint (stdlib HTTP only).

Spec: ``openai:<base_url>|<model>`` or ``openai:<base_url>|<model>|<dim>``.
``base_url`` is the API root as OpenAI clients take it (``https://api.openai.com/v1``); a root
without ``/v1`` gets it appended, and a URL already ending in ``/embeddings`` is used as is.
The key comes from ``MNEMOS_EMBEDDER_API_KEY`` (sent as ``Authorization: Bearer``; none sent
when unset, for local servers). ``MNEMOS_EMBEDDER_TIMEOUT`` sets the per-request timeout in
seconds (default 30). Without ``<dim>`` the dimension is learned from the first answer (reading
``dim`` before any call sends one probe request). Vectors are re-normalised here, since not
every compatible server normalises. No prefixes are added: queries and passages are sent as is.
"""

from __future__ import annotations

import http.client
import json
import os
import threading
import time
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Sequence
from typing import Any

from .base import EmbedderUnavailable, chunks, clean_text, unit_rows

API_KEY_ENV = "MNEMOS_EMBEDDER_API_KEY"
TIMEOUT_ENV = "MNEMOS_EMBEDDER_TIMEOUT"
BATCH = 64
_RETRY_STATUS = {429, 500, 502, 503, 504}
_ATTEMPTS = 2


def endpoint_for(base_url: str) -> str:
    url = base_url.strip().rstrip("/")
    parsed = urllib.parse.urlsplit(url)
    if parsed.scheme not in ("http", "https") or not parsed.netloc:
        raise EmbedderUnavailable(
            f"openai embedder: base URL must be http(s)://host[:port][/path], got {base_url!r}"
        )
    if url.endswith("/embeddings"):
        return url
    if not parsed.path.rstrip("/").endswith("/v1"):
        url += "/v1"
    return url + "/embeddings"


class OpenAIEmbedder:
    def __init__(self, base_url: str, model: str, dim: int | None = None) -> None:
        if not model.strip():
            raise EmbedderUnavailable(
                "openai embedder: the spec names no model ('openai:<base_url>|<model>')"
            )
        if dim is not None and dim <= 0:
            raise EmbedderUnavailable(f"openai embedder: dimension must be positive, got {dim}")
        self.url = endpoint_for(base_url)
        self.model = model.strip()
        self.name = f"openai/{self.model}"
        self._dim = dim
        self._lock = threading.Lock()
        try:
            self._timeout = float(os.environ.get(TIMEOUT_ENV) or 30.0)
        except ValueError as exc:
            raise EmbedderUnavailable(f"{TIMEOUT_ENV} must be a number of seconds") from exc

    @property
    def dim(self) -> int:
        if self._dim is None:
            self._request(["dimension probe"])
        assert self._dim is not None
        return self._dim

    @dim.setter
    def dim(self, value: int) -> None:
        self._dim = value

    def _post(self, body: bytes) -> Any:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        key = os.environ.get(API_KEY_ENV)
        if key:
            headers["Authorization"] = f"Bearer {key}"
        who = f"openai embedder {self.model!r} at {self.url}"
        last = ""
        for attempt in range(_ATTEMPTS):
            if attempt:
                time.sleep(0.5)
            request = urllib.request.Request(self.url, data=body, headers=headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self._timeout) as response:
                    return json.loads(response.read().decode("utf-8"))
            except urllib.error.HTTPError as exc:
                detail = exc.read(300).decode("utf-8", "replace").strip()
                last = f"HTTP {exc.code}: {detail}"
                if exc.code not in _RETRY_STATUS:
                    break
            except (OSError, http.client.HTTPException) as exc:  # URLError, timeouts, resets
                last = f"{type(exc).__name__}: {getattr(exc, 'reason', exc)}"
            except (ValueError, UnicodeDecodeError) as exc:
                last = f"answer is not JSON ({exc})"
                break
        raise EmbedderUnavailable(f"{who} did not answer: {last}")

    def _request(self, texts: Sequence[str]) -> list[list[float]]:
        body = json.dumps({"model": self.model, "input": list(texts)}).encode()
        answer = self._post(body)
        who = f"openai embedder {self.model!r} at {self.url}"
        try:
            data = sorted(answer["data"], key=lambda item: int(item.get("index", 0)))
            vectors = [item["embedding"] for item in data]
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise EmbedderUnavailable(f"{who}: answer has no data[].embedding ({exc!r})") from exc
        if len(vectors) != len(texts):
            raise EmbedderUnavailable(f"{who}: sent {len(texts)} texts, got {len(vectors)} vectors")
        if not vectors or not isinstance(vectors[0], list):
            raise EmbedderUnavailable(f"{who}: embeddings must be float arrays")
        with self._lock:
            if self._dim is None:
                self._dim = len(vectors[0])
            dim = self._dim
        return unit_rows(vectors, dim=dim, who=who)

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed_passages takes a sequence of texts, not one str")
        out: list[list[float]] = []
        # OpenAI refuses empty strings; a blank text is sent as one space.
        for batch in chunks([clean_text(t) or " " for t in texts], BATCH):
            out.extend(self._request(batch))
        return out

    def embed_query(self, text: str) -> list[float]:
        return self._request([clean_text(text) or " "])[0]
