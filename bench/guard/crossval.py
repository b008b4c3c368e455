"""Out-of-fold scores of the poisoning model on the tuning part: how a change to its features or its training is
chosen without the held-out halves (session 53).

    .venv/bin/python -m bench.guard.crossval [--l2 2e-7] [--iterations 600] [--folds 5]

The tuning texts ``bench.guard.train`` learns from (both its train and validation sides) are split into folds by
each text's key (a fixed seed, as ``splits``); a model is trained on all folds but one and scores the one left out,
so every tuning text gets a score from a model that never saw it. The directive look-alikes written for tuning
(``directives("tune")``) are scored by the model of their own fold and never trained on, as in ``train``. The
threshold is ``train.choose_threshold``'s rule over all of these scores: at most ``--target-fp`` of the pooled
benign requests, and ``--ordinary-allowed`` of the ordinary writing (four: the validation fifth allows none of a
fifth as many texts). Printed: the threshold, each attack set's recall and each benign set's rejections.
Figures: bench/RESULTS.md (session 53) and docs/guard.md ("Tried and not kept in session 53").
"""

from __future__ import annotations

import argparse
import time
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from bench.guard.splits import SEED, Item, _bucket, directives
from bench.guard.train import choose_threshold, fit, short_threshold, training_items, window_rows
from memory.guard.model import SHORT, scored

ATTACKS = ("s-labs", "neuralchemy", "yanismiraoui", "directives-written", "cyberseceval", "bipia-bare")
BENIGN = (
    "notinject",
    "requests-benign",
    "s-labs-benign",
    "neuralchemy-benign",
    "directives-tune",
    "locomo-turns",
    "notes-credentials",
)


def fold(item: Item, folds: int) -> int:
    return _bucket(SEED + "fold", item.key, folds)


def out_of_fold(
    items: Sequence[Item],
    lookalikes: Sequence[Item],
    *,
    folds: int,
    l2: float,
    iterations: int,
    nb_alpha: float,
) -> list[tuple[Item, float, int]]:
    """(item, score, words of prose) for every item, each scored by the model of the folds it is not in."""
    rows_of = {id(i): window_rows(i) for i in items}
    out: list[tuple[Item, float, int]] = []
    for k in range(folds):
        rows: list[list[int]] = []
        labels: list[int] = []
        groups: list[str] = []
        for item in items:
            if fold(item, folds) == k:
                continue
            for row in rows_of[id(item)]:  # an attack's first windows only (train.window_rows)
                rows.append(row)
                labels.append(int(item.attack))
                groups.append(item.dataset)
        w, b = fit(
            rows, np.array(labels, dtype=np.float64), groups, l2=l2, iterations=iterations, nb_alpha=nb_alpha
        )
        w = w.astype(np.float16).astype(np.float32)  # as shipped
        for item in [*items, *lookalikes]:
            if fold(item, folds) == k:
                out.append((item, *scored(w, b, item.text)))
    return out


def report(judged: Sequence[tuple[Item, float, int]], *, target: float, ordinary_allowed: int) -> str:
    threshold = choose_threshold(
        [(item, score) for item, score, words in judged if words >= SHORT],
        target,
        ordinary_allowed=ordinary_allowed,
    )
    short_bar = short_threshold(
        threshold, [score for item, score, words in judged if not item.attack and words < SHORT]
    )
    counts: dict[tuple[str, bool], list[int]] = defaultdict(lambda: [0, 0])
    for item, score, words in judged:
        cell = counts[(item.dataset, item.attack)]
        cell[0] += score >= (threshold if words >= SHORT else short_bar)
        cell[1] += 1
    lines = [f"threshold {threshold:.3f} (short texts {short_bar:.3f})"]
    lines += [f"  {name}: recall {counts[(name, True)][0] / max(1, counts[(name, True)][1]):.3f} "
              f"({counts[(name, True)][0]}/{counts[(name, True)][1]})" for name in ATTACKS]  # fmt: skip
    lines += [f"  {name}: rejected {counts[(name, False)][0]}/{counts[(name, False)][1]}" for name in BENIGN]
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--l2", type=float, default=2e-7)
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--nb-alpha", type=float, default=1.0)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--target-fp", type=float, default=0.01)
    parser.add_argument("--ordinary-allowed", type=int, default=4)
    args = parser.parse_args(argv)
    started = time.perf_counter()
    items = training_items()
    judged = out_of_fold(
        items,
        directives("tune"),
        folds=args.folds,
        l2=args.l2,
        iterations=args.iterations,
        nb_alpha=args.nb_alpha,
    )
    print(report(judged, target=args.target_fp, ordinary_allowed=args.ordinary_allowed))
    print(f"{len(judged)} texts out of fold in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
