"""Train the search's learned ranker (``memory.ranker``) on LoCoMo's tuning conversations.

    .venv/bin/python -m bench.locomo.ablate --dump /tmp/locomo-dump.pkl     # ~10 minutes, once
    .venv/bin/python -m bench.locomo.train_ranker /tmp/locomo-dump.pkl [--write]   # ~20 s

Every question's candidates are rebuilt from the dump as ``hybrid_rank`` builds them (the hand fusion of
``bench.locomo.offline.product``, the channels' lists, each candidate's cosine, its next links, whether it
asks, the named entities and periods), and ``memory.ranker.features`` turns them into rows. A logistic
regression is fitted on the five tuning conversations only (conv-26 … conv-43, the protocol's split):
a candidate that is a gold turn is positive; each question weighs as much as any other (its positives
share one unit, its negatives another), features standardised, L2 1e-3, full-batch gradient descent
(400 steps of 0.5; numpy, no new dependency). Nothing is chosen on the five held-out conversations:
the features were chosen by leaving each tuning conversation out in turn (bench/RESULTS.md, "A learned
ranker"), and this prints that figure, the tuning half's and the held-out half's beside the hand fusion's.
``--write`` writes the model and its card to memory/data/ranker.json. It is fitted over every candidate;
the search applies it to the hand fusion's best ``memory.ranker.REORDER_DEPTH`` (which scored the same).
"""

from __future__ import annotations

import argparse
import datetime as dt
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.embeddings.run import question_metrics, summarise
from bench.locomo.ablate import TUNE, order
from bench.locomo.data import HEADLINE
from bench.locomo.harness import ROOT
from bench.locomo.offline import Dump, product
from memory import ranker

L2 = 1e-3
STEPS = 400
RATE = 0.5


def candidates(dump: Dump, q: dict[str, Any], unit: dict[str, np.ndarray]) -> ranker.Candidates:
    fused = product(dump, q)
    query = q["query_vector"] / np.linalg.norm(q["query_vector"])
    return ranker.Candidates(
        fused=fused,
        text=q["text"],
        vector=[(d, q["vector_scores"][d]) for d in q["vector"]],
        cosines={d: float(unit[d] @ query) for d in fused if d in unit},
        neighbours=[(dump.prev[d], d) for d in fused if dump.prev.get(d) in fused],
        asks=[d for d in fused if ranker.asks(dump.turns[d][2])],
        named=q["named"],
        timed=[d for d in fused if q["windows"] and any(w.holds(dump.times[d]) for w in q["windows"])],
    )


Row = tuple[dict[str, Any], list[str], np.ndarray, np.ndarray]


def rows_of(dump: Dump) -> list[Row]:
    unit = {r: v / np.linalg.norm(v) for r, v in dump.vectors.items()}
    out = []
    for q in dump.questions:
        table = ranker.features(candidates(dump, q, unit))
        ids = list(table)
        gold = set(q["gold"])
        out.append((q, ids, np.array([table[d] for d in ids]), np.array([d in gold for d in ids], float)))
    return out


def fit(rows: Sequence[Row], card: dict[str, Any]) -> ranker.Model:
    kept = [(x, y) for _, _, x, y in rows if y.any()]
    xs = np.vstack([x for x, _ in kept])
    ys = np.concatenate([y for _, y in kept])
    weight = np.concatenate([np.where(y > 0, 1.0 / y.sum(), 1.0 / max(1.0, (1 - y).sum())) for _, y in kept])
    mean, scale = xs.mean(0), xs.std(0) + 1e-9
    z = (xs - mean) / scale
    w, b = np.zeros(z.shape[1]), 0.0
    for _ in range(STEPS):
        p = 1 / (1 + np.exp(-(z @ w + b)))
        g = (p - ys) * weight
        w -= RATE * (z.T @ g / weight.sum() + L2 * w)
        b -= RATE * g.sum() / weight.sum()
    return ranker.Model(
        features=ranker.FEATURES,
        mean=tuple(round(float(x), 6) for x in mean),
        scale=tuple(round(float(x), 6) for x in scale),
        weights=tuple(round(float(x), 6) for x in w),
        bias=round(float(b), 6),
        card=card,
    )


def figures(rows: Sequence[Row], score: Any) -> str:
    picked = [
        (q["category"], question_metrics(order(score(q, ids, x))[:10], q["gold"])) for q, ids, x, _ in rows
    ]
    return (
        f"{summarise(picked, HEADLINE)['hit@10']:.3f} / {summarise(picked, (1, 2, 3, 4, 5))['recall@10']:.3f}"
    )


def by_model(model: ranker.Model) -> Any:
    return lambda q, ids, x: {d: ranker.logit(model, list(row)) for d, row in zip(ids, x, strict=True)}


def by_fusion(q: dict[str, Any], ids: list[str], x: np.ndarray) -> dict[str, float]:
    return {d: float(row[0]) for d, row in zip(ids, x, strict=True)}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("dump", type=Path)
    parser.add_argument("--write", action="store_true", help="write memory/data/ranker.json")
    args = parser.parse_args(argv)
    rows = rows_of(Dump(args.dump))
    tune = [r for r in rows if r[0]["conv"] in TUNE]
    held = [r for r in rows if r[0]["conv"] not in TUNE]
    # Leave each tuning conversation out in turn: the figure the features were chosen by.
    left_out: list[Row] = []
    scores: dict[int, dict[str, float]] = {}
    for conv in TUNE:
        model = fit([r for r in tune if r[0]["conv"] != conv], {})
        for r in tune:
            if r[0]["conv"] == conv:
                left_out.append(r)
                scores[id(r[0])] = by_model(model)(*r[:3])
    cross = figures(left_out, lambda q, ids, x: scores[id(q)])
    model = fit(tune, {})
    table = {
        "hand fusion": {"tune": figures(tune, by_fusion), "held out": figures(held, by_fusion)},
        "learned": {
            "tune, each conversation left out": cross,
            "tune": figures(tune, by_model(model)),
            "held out": figures(held, by_model(model)),
        },
    }
    print("hit@10 (categories 1-4) / recall@10 (1-5)")
    for name, cells in table.items():
        print(f"  {name}: " + "; ".join(f"{k} {v}" for k, v in cells.items()))
    print(
        "  weights: " + ", ".join(f"{f} {w:+.3f}" for f, w in zip(model.features, model.weights, strict=True))
    )
    if args.write:
        card = {
            "trained_on": f"LoCoMo (shared/bench/locomo10.json), conversations {', '.join(TUNE)}: "
            f"{sum(len(ids) for _, ids, _, y in tune if y.any())} candidates of "
            f"{sum(1 for *_, y in tune if y.any())} questions with a gold turn among them",
            "held_out": "the other five conversations, never fitted on",
            "fit": f"logistic regression, class-balanced per question, L2 {L2}, {STEPS} steps of {RATE}",
            "figures_hit10_recall10": table,
            "written": dt.date.today().isoformat(),
            "command": "python -m bench.locomo.ablate --dump D && python -m bench.locomo.train_ranker D --write",
        }
        written = fit(tune, card)
        ranker.WEIGHTS.write_text(written.to_json() + "\n")
        print(f"wrote {ranker.WEIGHTS.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
