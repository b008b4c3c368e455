"""The learned ranker: the search's last step, a logistic regression over what the channels already know.

The hand fusion (``memory.selectors.search``: channel scores, the named-entity, named-time and neighbour
boosts) decides which memories are candidates and gives each a score; this step reorders them with nine
features a memory's rank says nothing about on its own, weighted by a model trained on conversations
whose answers are known::

    candidates (of the text, vector and entity channels) with the hand fusion's score
      ──> per candidate, the features of ``FEATURES``:
            fused         the hand fusion's score (boosts included)
            vector        the vector channel's score, min-max over its list (0 when it did not find it)
            cosine_gap    the best candidate's cosine minus this one's (a memory no one embedded yet
                          counts as the vector list's last cosine, the most it can be)
            named_time    it falls in a period the query names (as the boost reads it)
            text_rank     1 / (1 + its rank in the text channel), 0 when that channel did not find it
            vector_rank   the same in the vector channel
            neighbour     the hand fusion's score of its best ``next``-link neighbour among the candidates
            question      its content asks something (a ``?``): a turn that asks rarely holds the answer
            other_entity  the query names entities some candidates are linked to, and this one is not
      ──> z = (x - mean) / scale, per feature (the training set's)
      ──> score = sigmoid(bias + weights · z)           (0..1; only the order is meaningful)

The search reorders the hand fusion's best ``REORDER_DEPTH`` candidates this way; the others follow them
in the hand fusion's order, scored below them.

Pure functions (no models, no database): ``hybrid_rank`` reads what the features need of the reordered
candidates in one statement (``reordered_rows``: each one's cosine and whether its content asks; the
rest comes from the channels and ``candidate_links``) and calls ``rank``. When the vector channel found
nothing (the embedder down, or nothing in scope embedded yet) half the features are missing, so the hand
fusion's order stands. The weights (``data/ranker.json``: features, mean, scale, weights, bias, and the
card saying what they were trained on and how they scored) are written by ``bench/locomo/train_ranker.py``
from ``bench.locomo.ablate --dump``; the features are defined here only, so training and search agree.
Why a model and not more hand weights: bench/RESULTS.md, "A learned ranker" (issue 23).
"""

from __future__ import annotations

import functools
import json
import math
import operator
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WEIGHTS = Path(__file__).resolve().parent / "data" / "ranker.json"
FEATURES = (
    "fused",
    "vector",
    "cosine_gap",
    "named_time",
    "text_rank",
    "vector_rank",
    "neighbour",
    "question",
    "other_entity",
)
QUESTION_MARKS = ("?", "？", "¿", "؟")  # Latin, full-width (CJK), Spanish opening, Arabic
# The search reorders the hand fusion's best this many (the rest follow in its order): on the tuning
# conversations reordering the best 20, 30, 50, 80 or all of them scored within 0.001 (bench/RESULTS.md,
# "A learned ranker"); 50 keeps a margin, and what the features need is read for those rows only.
REORDER_DEPTH = 50


@dataclass(frozen=True)
class Candidates:
    """What the search knows of its candidates when the hand fusion is done (keys: memory ids)."""

    fused: Mapping[Any, float]  # the hand fusion's score, every boost included: the candidates
    text: Sequence[Any]  # the text channel's order
    vector: Sequence[tuple[Any, float]]  # the vector channel's (id, cosine), nearest first
    cosines: Mapping[Any, float]  # cosines to the query of those with a vector (the search reads reorder's)
    neighbours: Iterable[tuple[Any, Any]]  # next links between two candidates
    asks: Iterable[Any]  # candidates whose content holds a question mark
    named: Iterable[Any]  # candidates linked to an entity the query names
    timed: Iterable[Any]  # candidates in a period the query names
    reorder: Sequence[Any] | None = None  # the candidates the model orders (None: all of them)


@dataclass(frozen=True)
class Model:
    features: tuple[str, ...]
    mean: tuple[float, ...]
    scale: tuple[float, ...]
    weights: tuple[float, ...]
    bias: float
    card: dict[str, Any]

    @functools.cached_property
    def linear(self) -> tuple[tuple[float, ...], float]:
        """The standardisation folded into the weights: logit = intercept + Σ slope[i] · x[i]."""
        slope = tuple(w / s for w, s in zip(self.weights, self.scale, strict=True))
        return slope, self.bias - sum(a * m for a, m in zip(slope, self.mean, strict=True))

    def to_json(self) -> str:
        return json.dumps(
            {
                "features": list(self.features),
                "mean": list(self.mean),
                "scale": list(self.scale),
                "weights": list(self.weights),
                "bias": self.bias,
                "card": self.card,
            },
            indent=2,
            ensure_ascii=False,
        )


def asks(text: str) -> bool:
    return any(mark in text for mark in QUESTION_MARKS)


def features(c: Candidates) -> dict[Any, list[float]]:
    """Each candidate's feature vector (of ``c.reorder``'s, when given), in ``FEATURES`` order."""
    vector = list(c.vector)
    top = vector[0][1] if vector else 0.0
    last = vector[-1][1] if vector else 0.0
    spread = (top - last) or 1.0
    vector_rank = {pk: 1.0 / (1 + i) for i, (pk, _) in enumerate(vector)}
    in_vector = dict(vector)
    text_rank = {pk: 1.0 / (1 + i) for i, pk in enumerate(c.text)}
    best_neighbour: dict[Any, float] = {}
    for a, b in c.neighbours:
        if a in c.fused and b in c.fused:
            best_neighbour[a] = max(best_neighbour.get(a, 0.0), c.fused[b])
            best_neighbour[b] = max(best_neighbour.get(b, 0.0), c.fused[a])
    asking, named, timed = set(c.asks), set(c.named), set(c.timed)
    out: dict[Any, list[float]] = {}
    for pk in c.fused if c.reorder is None else c.reorder:
        fused = c.fused[pk]
        cosine = c.cosines.get(pk, in_vector.get(pk, last))
        out[pk] = [
            fused,
            (in_vector[pk] - last) / spread if pk in in_vector else 0.0,
            top - cosine,
            float(pk in timed),
            text_rank.get(pk, 0.0),
            vector_rank.get(pk, 0.0),
            best_neighbour.get(pk, 0.0),
            float(pk in asking),
            float(bool(named) and pk not in named),
        ]
    return out


@functools.cache
def load(path: Path = WEIGHTS) -> Model | None:
    """The shipped model, or None when its file is missing or was written for other features."""
    try:
        data = json.loads(path.read_text())
    except (OSError, ValueError):
        return None
    if tuple(data.get("features", ())) != FEATURES:
        return None
    return Model(
        features=FEATURES,
        mean=tuple(float(x) for x in data["mean"]),
        scale=tuple(float(x) for x in data["scale"]),
        weights=tuple(float(x) for x in data["weights"]),
        bias=float(data["bias"]),
        card=dict(data.get("card", {})),
    )


def logit(model: Model, row: Sequence[float]) -> float:
    slope, intercept = model.linear
    return intercept + sum(map(operator.mul, slope, row))


def sigmoid(value: float) -> float:
    return 1.0 / (1.0 + math.exp(-value)) if value > -700 else 0.0


def rank(c: Candidates, model: Model | None = None) -> dict[Any, float]:
    """The candidates' scores: the model's (0..1) for those it orders (``c.reorder``, or all), and below
    the lowest of those the rest in the hand fusion's order; the hand fusion's when there is no model."""
    model = model or load()
    if model is None:
        return dict(c.fused)
    out = {pk: sigmoid(logit(model, row)) for pk, row in features(c).items()}
    floor = min(out.values(), default=1.0)
    for pk, fused in c.fused.items():
        if pk not in out:
            out[pk] = floor * max(fused, 0.0) / (max(fused, 0.0) + 1.0)  # below the floor, in fused order
    return out
