"""The embedder interface shared by every backend, and the checks every vector goes through."""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from typing import Protocol


class Embedder(Protocol):
    """Turns text into L2-normalised vectors.

    ``name`` is the stable identifier of the vector space (stored beside each vector:
    vectors of two names are never compared). ``dim`` is the vector length.
    """

    name: str
    dim: int

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        """One L2-normalised vector per text, in order; batched internally."""
        ...

    def embed_query(self, text: str) -> list[float]:
        """The L2-normalised vector of a search query (asymmetric models embed it differently)."""
        ...


class EmbedderUnavailable(RuntimeError):
    """The configured embedder cannot load, is misconfigured, or did not answer."""


def clean_text(text: str) -> str:
    """Text that encodes to UTF-8 (lone surrogates replaced) and has no NUL bytes."""
    if not isinstance(text, str):
        raise TypeError(f"embedder input must be str, not {type(text).__name__}")
    return text.encode("utf-8", "replace").decode("utf-8").replace("\x00", " ")


def unit_rows(rows: Iterable[Iterable[float]], *, dim: int, who: str) -> list[list[float]]:
    """Each row re-normalised to unit length; a row of the wrong size, NaN or zero fails loudly."""
    out: list[list[float]] = []
    for row in rows:
        values = [float(v) for v in row]
        if len(values) != dim:
            raise EmbedderUnavailable(f"{who}: got a vector of {len(values)} values, expected {dim}")
        norm = math.sqrt(math.fsum(v * v for v in values))
        if not math.isfinite(norm) or norm < 1e-6:
            raise EmbedderUnavailable(f"{who}: returned a degenerate vector (norm {norm!r})")
        out.append([v / norm for v in values])
    return out


def chunks(items: Sequence[str], size: int) -> Iterable[Sequence[str]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]
