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

    .venv/bin/python -m bench.guard.crossval --nested     # ~7 minutes

``--nested`` (session 54) compares ways of training the shipped model, each judged on texts it never saw: five
outer folds; in each, on the other four, (A) ``train``'s way before session 54: weights from its train side (80%),
the threshold from its validation side; (B) weights from all four folds, the threshold out of fold over them (four
inner folds, three ordinary texts allowed); (C) weights from all four folds at (A)'s threshold, ``train``'s way
since session 54. Printed: each way's recall of the short public injections and the written directives, and the
pooled benign requests and ordinary texts it rejects, over the five outer folds.

``--dropout`` (session 55; ``train.fit``) trains every model of either mode with that share of each window's
features dropped in each step; its default is ``train.DROPOUT``, the shipped model's, and ``--dropout 0`` trains as
before session 55.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import time
from collections import defaultdict
from collections.abc import Sequence

import numpy as np

from bench.guard.splits import SEED, Item, _bucket, directives, training_side
from bench.guard.train import (
    DROPOUT,
    ORDINARY,
    choose_threshold,
    fit,
    short_threshold,
    training_items,
    window_rows,
)
from memory.guard.model import SHORT, best_window, read, scored

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
    dropout: float = 0.0,
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
            rows,
            np.array(labels, dtype=np.float64),
            groups,
            l2=l2,
            iterations=iterations,
            nb_alpha=nb_alpha,
            dropout=dropout,
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


def _fitted(
    items: Sequence[Item],
    rows_of: dict[int, list[list[int]]],
    *,
    l2: float,
    iterations: int,
    nb_alpha: float,
    dropout: float = 0.0,
) -> tuple[np.ndarray, float]:
    rows = [row for item in items for row in rows_of[id(item)]]
    labels = np.array([float(item.attack) for item in items for _ in rows_of[id(item)]])
    groups = [item.dataset for item in items for _ in rows_of[id(item)]]
    w, b = fit(rows, labels, groups, l2=l2, iterations=iterations, nb_alpha=nb_alpha, dropout=dropout)
    return w.astype(np.float16).astype(np.float32), b  # as shipped


def _bars(
    judged: Sequence[tuple[Item, float, int]], *, target: float, ordinary_allowed: int
) -> tuple[float, float]:
    with contextlib.redirect_stdout(io.StringIO()):  # choose_threshold prints its pools
        bar = choose_threshold(
            [(i, s) for i, s, n in judged if n >= SHORT], target, ordinary_allowed=ordinary_allowed
        )
    return bar, short_threshold(bar, [s for i, s, n in judged if not i.attack and n < SHORT])


def nested(
    items: Sequence[Item],
    lookalikes: Sequence[Item],
    *,
    l2: float,
    iterations: int,
    nb_alpha: float,
    target: float,
    dropout: float = 0.0,
) -> str:
    """The three ways of ``--nested`` (the module's docstring), each scored on the outer fold it never saw."""
    texts = {id(i): read(i.text) for i in [*items, *lookalikes]}
    rows_of = {id(i): window_rows(i) for i in items}

    def fitted(among: Sequence[Item]) -> tuple[np.ndarray, float]:
        return _fitted(among, rows_of, l2=l2, iterations=iterations, nb_alpha=nb_alpha, dropout=dropout)

    def judged(w: np.ndarray, b: float, among: Sequence[Item]) -> list[tuple[Item, float, int]]:
        return [(i, best_window(w, b, texts[id(i)][1]), texts[id(i)][0]) for i in among]

    counts: dict[str, dict[str, list[int]]] = defaultdict(lambda: defaultdict(lambda: [0, 0]))
    for k in range(5):
        inner = [i for i in items if _bucket(SEED + "outer", i.key, 5) != k]
        looks = [i for i in lookalikes if _bucket(SEED + "outer", i.key, 5) != k]
        test = [i for i in [*items, *lookalikes] if _bucket(SEED + "outer", i.key, 5) == k]
        w_a, b_a = fitted([i for i in inner if training_side(i) == "train"])
        validation = [i for i in [*inner, *looks] if training_side(i) == "validation"]
        bars_a = _bars(judged(w_a, b_a, validation), target=target, ordinary_allowed=0)
        out_of_fold: list[tuple[Item, float, int]] = []
        for j in range(4):
            w_j, b_j = fitted([i for i in inner if _bucket(SEED + "inner", i.key, 4) != j])
            out_of_fold += judged(
                w_j, b_j, [i for i in [*inner, *looks] if _bucket(SEED + "inner", i.key, 4) == j]
            )
        w_all, b_all = fitted(inner)
        ways = {
            "A (80%, its validation threshold)": (w_a, b_a, bars_a),
            "B (all, out-of-fold threshold)": (
                w_all,
                b_all,
                _bars(out_of_fold, target=target, ordinary_allowed=3),
            ),
            "C (all, A's threshold: shipped)": (w_all, b_all, bars_a),
        }
        for way, (w, b, (bar, short_bar)) in ways.items():
            for item, score, words in judged(w, b, test):
                name = item.dataset if item.attack else "ordinary" if item.dataset in ORDINARY else "requests"
                cell = counts[way][name]
                cell[0] += score >= (bar if words >= SHORT else short_bar)
                cell[1] += 1
    lines = []
    for way, cells in counts.items():
        lines.append(way)
        for name in ("s-labs", "neuralchemy", "yanismiraoui", "directives-written", "requests", "ordinary"):
            hits, total = cells[name]
            lines.append(f"  {name}: {'rejected' if name in ('requests', 'ordinary') else 'recall'} "
                         f"{hits / max(1, total):.3f} ({hits}/{total})")  # fmt: skip
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--l2", type=float, default=2e-7)
    parser.add_argument("--iterations", type=int, default=600)
    parser.add_argument("--nb-alpha", type=float, default=1.0)
    parser.add_argument("--folds", type=int, default=5)
    parser.add_argument("--dropout", type=float, default=DROPOUT)
    parser.add_argument("--target-fp", type=float, default=0.01)
    parser.add_argument("--ordinary-allowed", type=int, default=4)
    parser.add_argument("--nested", action="store_true", help="compare ways of training (the docstring)")
    args = parser.parse_args(argv)
    started = time.perf_counter()
    items = training_items()
    if args.nested:
        options = {
            "l2": args.l2,
            "iterations": args.iterations,
            "nb_alpha": args.nb_alpha,
            "dropout": args.dropout,
        }
        print(nested(items, directives("tune"), target=args.target_fp, **options))
        print(f"{len(items)} texts in {time.perf_counter() - started:.0f} s")
        return 0
    judged = out_of_fold(
        items,
        directives("tune"),
        folds=args.folds,
        l2=args.l2,
        iterations=args.iterations,
        nb_alpha=args.nb_alpha,
        dropout=args.dropout,
    )
    print(report(judged, target=args.target_fp, ordinary_allowed=args.ordinary_allowed))
    print(f"{len(judged)} texts out of fold in {time.perf_counter() - started:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
