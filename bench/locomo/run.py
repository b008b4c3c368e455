"""LoCoMo through Mnemos's public API, over real HTTP, with the BM25 baseline in the same run.

    .venv/bin/python -m bench.locomo.run [--limit N] [--archivist after|during|reindex|live] [--clients C]
                                         [--entities speaker|none] [--no-chain] [--no-analysis]
                                         [--no-passive-pass]

Protocol: shared/bench/README.md. On a throwaway embedded cluster (config.settings_test):

1. One enterprise on the ``enterprise`` plan (6,000 calls/min/project; the ``team`` plan's 600 would
   throttle a bulk ingest), one admin member with no Main target, one project and one access key per
   conversation. The web server is uvicorn on the ASGI app (tests/live.py: running_web).
2. Ingest: every turn, in order, with ``POST /v1/tools/save_memory``: summary = the turn's text cut
   to 500 characters, content = the text, ``prev_event_id`` = the session's previous turn (``--no-chain``:
   none), entities = the speaker as a person (``--entities none``:
   none), timestamp = the session's date plus one second per turn. Memory Guard is on (it always is).
   ``--archivist live``: per conversation, its turns saved (one client, ``--live-rate`` a second: by
   default the team plan's 600 calls a minute, an agent at its limit; 0: as fast as the API answers) and
   right after its last save every one of its questions searched (the row "Mnemos live"), with a real
   worker as ``manage.py serve`` starts one (one process a core) embedding behind, no cached vectors and
   no waiting; then the next conversation. Once every vector is in, the questions are asked again (the
   steady-state row, "Mnemos search_memory (API)"): both figures from one run over the same memories.
3. Vectors: ``--archivist reindex`` (default) calls ``embedding_reindex()`` in process, in batches;
   ``after`` starts a real Celery worker once the ingest is done and times how long it takes until
   every memory has its vector; ``during`` runs the worker throughout. With the default filesystem
   broker the worker takes one task per second (kombu's polling interval) and every save sends two
   (archivist + key touch), so ``after``/``during`` on all ten conversations takes hours: use
   ``--limit 1``, or ``--broker redis://...`` (see RESULTS.md).
4. Search: 50 warm-up queries, then every question verbatim with ``search_memory`` (top_k 10), one
   client, the web server alone (the worker is stopped first). Latency = the HTTP call, client side.
   A second latency-only pass over 300 questions restarts the web server with
   ``OMP_WAIT_POLICY=PASSIVE`` (``--no-passive-pass`` skips it): see RESULTS.md for why.
5. The BM25 baseline: rank-bm25 0.2.2 BM25Okapi over exactly the same turn texts, lower-cased
   ``[a-z0-9]+`` tokens, per conversation.
6. Analysis (``--no-analysis`` skips it): the search's channels called in process on the loaded data
   (``memory.selectors.search``'s text, vector and entity channels, the member's read scope), scored
   alone and fused in several ways, each channel timed; it tells which channel helps or hurts.

Per-question JSONL and a JSON summary go to bench/out/locomo/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import statistics
import sys
import threading
import time
import uuid
from collections import defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.embeddings.run import METRICS, question_metrics, stem_tokenizer, summarise
from bench.locomo.data import CATEGORY_NAMES, DEFAULT_DATA, HEADLINE, Conversation, Question, load
from bench.locomo.harness import (
    ROOT,
    Api,
    ApiError,
    BenchTenant,
    build_tenant,
    fmt_ms,
    latency_summary,
    pct,
    prepare_database,
    setup_django,
)

OUT = ROOT / "bench" / "out" / "locomo"
RRF_K = 60
DEPTH = 100
WARMUP = 50
LIVE = "Mnemos live (searched right after each conversation's saves)"
PASSIVE_PASS = 300
_TOKEN = re.compile(r"[a-z0-9]+")


def bm25_tokens(text: str) -> list[str]:
    return _TOKEN.findall(text.lower())


def load_avg() -> float:
    return os.getloadavg()[0] if hasattr(os, "getloadavg") else float("nan")


# --------------------------------------------------------------------------- ingest


@dataclass
class Ingested:
    memory_to_turn: dict[str, str] = field(default_factory=dict)  # event_id -> "conv-26/D1:3"
    latencies: list[float] = field(default_factory=list)
    wall_s: float = 0.0
    vector_pending_at_save: int = 0
    # Turns the guard refused (422 guard_rejected): "conv-41/D19:3" -> the reason. An agent gets the same
    # refusal; the turn is not stored, its questions can only miss it, and the next turn chains to the
    # last one stored.
    refused: dict[str, str] = field(default_factory=dict)


def save_arguments(turn_text: str, speaker: str, timestamp: str, *, entities: bool) -> dict[str, Any]:
    return {
        "summary": turn_text[:500],
        "content": turn_text,
        "entities": [{"name": speaker, "type": "person"}] if entities else [],
        "timestamp": timestamp,
    }


def ingest(
    api_factory: Callable[[], Api],
    tenant: BenchTenant,
    convs: Sequence[Conversation],
    *,
    clients: int,
    entities: bool,
    chain: bool = True,
    rate: float = 0.0,
) -> tuple[Ingested, int]:
    """Every turn of every conversation, in order within its conversation; conversations are dealt
    to ``clients`` threads round-robin; ``rate`` > 0: a client's i-th save starts no sooner than i / rate
    seconds after its first. Returns what was saved and the 429 retries."""
    result = Ingested()
    lock = threading.Lock()
    errors: list[BaseException] = []
    retries = 0

    def work(mine: Sequence[Conversation]) -> None:
        nonlocal retries
        api = api_factory()
        began, sent = time.monotonic(), 0
        try:
            for conv in mine:
                secret = tenant.projects[conv.sample_id].secret
                previous: tuple[int, str] | None = None
                for turn in conv.turns:
                    arguments = save_arguments(
                        turn.text, turn.speaker, turn.timestamp.isoformat(), entities=entities
                    )
                    if chain and previous is not None and previous[0] == turn.session:
                        # The turn continues the session's previous one (save_memory's prev_event_id).
                        arguments["prev_event_id"] = previous[1]
                    if rate > 0:
                        delay = began + sent / rate - time.monotonic()
                        if delay > 0:
                            time.sleep(delay)
                    sent += 1
                    try:
                        body, ms = api.tool(secret, "save_memory", arguments)
                    except ApiError as exc:
                        if exc.code != "guard_rejected":
                            raise
                        with lock:
                            result.refused[f"{conv.sample_id}/{turn.id}"] = str(exc)
                        continue
                    previous = (turn.session, str(body["event_id"]))
                    with lock:
                        result.memory_to_turn[body["event_id"]] = f"{conv.sample_id}/{turn.id}"
                        result.latencies.append(ms)
                        result.vector_pending_at_save += bool(body.get("vector_pending"))
        except BaseException as exc:  # noqa: BLE001 - handed to the main thread
            errors.append(exc)
        finally:
            with lock:
                retries += api.retries_429
            api.close()

    shares = [list(convs[i::clients]) for i in range(clients)]
    threads = [threading.Thread(target=work, args=(share,)) for share in shares if share]
    start = time.perf_counter()
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    result.wall_s = time.perf_counter() - start
    if errors:
        raise errors[0]
    return result, retries


def pending_vectors(tenant: BenchTenant) -> tuple[int, int]:
    """(memories without a vector, memories) in the bench enterprise."""
    from core.tenancy import tenant_context
    from memory.models import Memory

    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        live = Memory.objects.filter(forgotten_at__isnull=True)
        return live.filter(embedding__isnull=True).count(), live.count()


def wait_for_vectors(tenant: BenchTenant, *, timeout_s: float) -> tuple[float, list[tuple[float, int]]]:
    """Seconds until no memory lacks a vector, and the (t, pending) curve sampled every second."""
    start = time.perf_counter()
    curve: list[tuple[float, int]] = []
    while True:
        pending, _ = pending_vectors(tenant)
        elapsed = time.perf_counter() - start
        curve.append((round(elapsed, 1), pending))
        if pending == 0:
            return elapsed, curve
        if elapsed > timeout_s:
            raise RuntimeError(f"{pending} memories still without a vector after {timeout_s:.0f} s")
        time.sleep(1.0)


def prefill_vectors(tenant: BenchTenant, convs: Sequence[Conversation], *, chain: bool = True) -> int:
    """Vectors bench.locomo.ablate cached for the same texts with the same embedder, written as the
    archivist writes them (embedding, model, dimension); the rest are left to the reindex. Returns how
    many were filled. The vectors are the embedder's own output: this only skips recomputing them. A
    memory's text is the product's (``embedding_text`` with ``embedding_contexts``); the cache's list is
    what ablate embedded (a turn's context: the session's previous turn when chained), so a memory whose
    text differs from it finds no row and is left to the reindex."""
    from bench.locomo.ablate import cached_vectors
    from core.tenancy import tenant_context
    from memory.models import Memory
    from memory.services.archivist import embedding_contexts, embedding_text

    texts = []
    for conv in convs:
        for before, turn in zip((None, *conv.turns), conv.turns, strict=False):
            context = (
                before.text[:500] if chain and before is not None and before.session == turn.session else ""
            )
            texts.append(embedding_text(Memory(summary=turn.text[:500], content=turn.text), context))
    cached = cached_vectors(texts)
    if cached is None:
        return 0
    matrix, model = cached
    by_text = {text: row for text, row in zip(texts, matrix, strict=True)}
    filled = 0
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        waiting = list(Memory.objects.filter(embedding__isnull=True))
        contexts = embedding_contexts(waiting)
        for memory in waiting:
            row = by_text.get(embedding_text(memory, contexts.get(memory.pk, "")))
            if row is None:
                continue
            memory.embedding, memory.embedding_model, memory.embedding_dim = row.tolist(), model, len(row)
            memory.save(update_fields=["embedding", "embedding_model", "embedding_dim"])
            filled += 1
    return filled


def reindex_in_process(tenant: BenchTenant) -> float:
    from core.tenancy import tenant_context
    from memory.services.maintenance import embedding_reindex

    start = time.perf_counter()
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        embedding_reindex()
    return time.perf_counter() - start


@contextmanager
def maybe_worker(enabled: bool, *, as_serve: bool = False) -> Iterator[None]:
    """A real Celery worker while the block runs: one pool process, or (``as_serve``) what ``manage.py
    serve`` starts by default (one process a core, with beat)."""
    if not enabled:
        yield
        return
    from core.env import worker_processes
    from tests.live import worker_process

    concurrency = worker_processes() if as_serve else 1
    with worker_process(concurrency=concurrency, beat=as_serve, prefix="locomo", start_timeout=90):
        yield


def ingest_live(
    base: str,
    tenant: BenchTenant,
    convs: Sequence[Conversation],
    items: Sequence[tuple[str, Question]],
    *,
    entities: bool,
    chain: bool,
    rate: float,
) -> tuple[Ingested, int, list[Asked], list[dict[str, Any]]]:
    """``--archivist live``: per conversation, its turns saved (one client, ``rate`` a second; 0: as fast as
    the API answers) and at once every one
    of its questions searched, the archivist embedding behind as it can; then the next conversation.
    Returns the saves, 429 retries, the answers, and per conversation how many of its memories still
    lacked a vector when its searches began and ended."""
    result, retries = Ingested(), 0
    asked: list[Asked] = []
    pending: list[dict[str, Any]] = []
    api = Api(base)
    for sample_id, q in random.Random(7).sample(list(items), min(WARMUP, len(items))):
        # the query path warm (models, connections) before anything is saved
        api.tool(tenant.projects[sample_id].secret, "search_memory", {"query": q.text, "top_k": 10})
    for conv in convs:
        part, r = ingest(
            lambda: Api(base), tenant, [conv], clients=1, entities=entities, chain=chain, rate=rate
        )
        result.memory_to_turn |= part.memory_to_turn
        result.refused |= part.refused
        result.latencies += part.latencies
        result.wall_s += part.wall_s
        retries += r
        before, _ = pending_vectors(tenant)
        asked += ask_all(
            api, tenant, [(c, q) for c, q in items if c == conv.sample_id], result.memory_to_turn
        )
        after, _ = pending_vectors(tenant)
        pending.append(
            {"conversation": conv.sample_id, "without_vector_at_first_search": before, "at_last": after}
        )
    api.close()
    return result, retries, asked, pending


@contextmanager
def web_server(extra_env: dict[str, str] | None = None) -> Iterator[str]:
    """tests/live.py's running_web, with extra environment for the server process only.

    It runs as ``manage.py serve`` runs it: its connections from a pool of 8 (without one, each
    request opens a connection: ~13 ms more per search, measured at 100k memories) and serve's number
    of uvicorn workers (core.env.web_workers)."""
    from core.env import web_workers
    from tests.live import running_web

    env = {"MNEMOS_DB_POOL": "8", "MNEMOS_WEB_WORKERS": str(web_workers()), **(extra_env or {})}
    saved = {k: os.environ.get(k) for k in env}

    def restore() -> None:  # the child has its copy; the bench process keeps its own
        for k, v in saved.items():
            if v is None:
                os.environ.pop(k, None)
            else:
                os.environ[k] = v
        saved.clear()

    os.environ.update(env)
    try:
        with running_web() as base:
            restore()
            yield base
    finally:
        restore()


# --------------------------------------------------------------------------- search


@dataclass
class Asked:
    conv: str
    question: Question
    top: list[str]
    channels: list[list[str]]
    latency_ms: float


def ask_all(
    api: Api, tenant: BenchTenant, items: Sequence[tuple[str, Question]], turn_of: dict[str, str]
) -> list[Asked]:
    out = []
    for conv, q in items:
        body, ms = api.tool(tenant.projects[conv].secret, "search_memory", {"query": q.text, "top_k": 10})
        top, channels = [], []
        for hit in body["hits"]:
            ref = turn_of.get(hit["event_id"], "?/?")
            top.append(ref.split("/", 1)[1] if ref.startswith(conv + "/") else f"other:{ref}")
            channels.append(hit["channels"])
        out.append(Asked(conv=conv, question=q, top=top, channels=channels, latency_ms=ms))
    return out


# --------------------------------------------------------------------------- BM25 baseline


def bm25_class() -> Any:
    """rank-bm25's BM25Okapi when installed, else bench/embeddings' re-implementation of its scores."""
    try:
        from rank_bm25 import BM25Okapi
    except ImportError:  # not a product dependency
        from bench.embeddings.run import BM25Okapi as Same

        class BM25Okapi(Same):  # type: ignore[no-redef]
            def get_scores(self, query: Sequence[str]) -> Any:
                return self.scores(query)

    return BM25Okapi


def bm25_rankings(convs: Sequence[Conversation]) -> tuple[dict[tuple[str, str], list[str]], list[float]]:
    """rank-bm25's BM25Okapi: top 100 turn ids per (conversation, question), and per-query ms."""
    BM25Okapi = bm25_class()
    out: dict[tuple[str, str], list[str]] = {}
    latencies: list[float] = []
    for conv in convs:
        ids = [t.id for t in conv.turns]
        index = BM25Okapi([bm25_tokens(t.text) for t in conv.turns])
        for q in conv.questions:
            start = time.perf_counter()
            scores = index.get_scores(bm25_tokens(q.text))
            order = sorted(range(len(ids)), key=lambda i: -scores[i])[:DEPTH]  # stable: ties by turn order
            latencies.append((time.perf_counter() - start) * 1000)
            out[(conv.sample_id, q.text)] = [ids[i] for i in order]
    return out, latencies


# --------------------------------------------------------------------------- in-process analysis


def rrf(rankings: Sequence[tuple[Sequence[str], float]]) -> list[str]:
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in rankings:
        for rank, doc in enumerate(ranking):
            scores[doc] += weight / (RRF_K + rank + 1)
    return sorted(scores, key=lambda d: (-scores[d], d))


def analyse(
    tenant: BenchTenant, convs: Sequence[Conversation], turn_of: dict[str, str]
) -> tuple[dict[tuple[str, str], dict[str, list[str]]], dict[str, list[float]]]:
    """The product's channels in process, per question: text, vector, entity (top 100 each), their
    timings, and the stemmed BM25 the embeddings bench found strongest, for fusion what-ifs."""
    from accounts.models import AccessKey, Member
    from core.tenancy import tenant_context
    from memory.embedding import get_embedder
    from memory.selectors import search as product

    embedder = get_embedder()
    stem = stem_tokenizer()
    BM25Okapi = bm25_class()

    channels: dict[tuple[str, str], dict[str, list[str]]] = {}
    timings: dict[str, list[float]] = defaultdict(list)
    for conv in convs:
        stem_index = BM25Okapi([stem(t.text) for t in conv.turns]) if stem else None
        ids = [t.id for t in conv.turns]
        bench_project = tenant.projects[conv.sample_id]
        for q in conv.questions:
            ranked: dict[str, list[str]] = {}

            def turns(pks: Sequence[uuid.UUID], prefix: str = conv.sample_id + "/") -> list[str]:
                refs = [turn_of.get(str(pk), "?/?") for pk in pks]
                return [r.split("/", 1)[1] for r in refs if r.startswith(prefix)]

            with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
                member = Member.objects.get(pk=tenant.member_id)
                key = AccessKey.objects.get(pk=bench_project.key_id)
                memories = product.scoped_memories(product.scope_for_key(member=member, key=key))
                t0 = time.perf_counter()
                scope = product.scope_for_key(member=member, key=key)
                text = product._text_channel(memories, q.text, DEPTH, project_ids=scope.project_ids)
                ranked["text"] = turns([pk for pk, _ in text])
                t1 = time.perf_counter()
                vector = embedder.embed_query(q.text)
                t2 = time.perf_counter()
                ranked["vector"] = turns([pk for pk, _ in product.nearest_memories(memories, vector, DEPTH)])
                t3 = time.perf_counter()
                found = product.entities_in(q.text)
                ranked["entity"] = turns(product._entity_channel(memories, found, DEPTH))
                t4 = time.perf_counter()
                ranked["product"] = turns(
                    product.hybrid_rank(
                        memories=memories, query=q.text, depth=DEPTH, project_ids=scope.project_ids
                    ).ids
                )
            timings["text_sql"].append((t1 - t0) * 1000)
            timings["embed_query"].append((t2 - t1) * 1000)
            timings["vector_sql"].append((t3 - t2) * 1000)
            timings["entity"].append((t4 - t3) * 1000)
            if stem_index is not None and stem is not None:
                scores = stem_index.get_scores(stem(q.text))
                order = sorted(range(len(ids)), key=lambda i: -scores[i])[:DEPTH]
                ranked["bm25-stem"] = [ids[i] for i in order if scores[i] > 0]
            channels[(conv.sample_id, q.text)] = ranked
    return channels, dict(timings)


def what_ifs(ranked: dict[str, list[str]], bm25: list[str]) -> dict[str, list[str]]:
    """Rankings recomputed from the channels: the product's fusion and variants of it."""
    out = {
        "hybrid_rank (the product)": ranked["product"],
        "text (BM25 in SQL) only": ranked["text"],
        "vector only": ranked["vector"],
        "entity only": ranked["entity"],
        "RRF text + vector (the previous fusion)": rrf([(ranked["text"], 1.0), (ranked["vector"], 1.0)]),
        "vector + BM25": rrf([(ranked["vector"], 1.0), (bm25, 1.0)]),
    }
    if "bm25-stem" in ranked:
        out["stemmed BM25 alone"] = ranked["bm25-stem"]
        out["vector + stemmed BM25"] = rrf([(ranked["vector"], 1.0), (ranked["bm25-stem"], 1.0)])
        out["vector + stemmed BM25 (2:1 lexical)"] = rrf(
            [(ranked["vector"], 0.5), (ranked["bm25-stem"], 1.0)]
        )
    return out


# --------------------------------------------------------------------------- reporting


def score(rows: Sequence[tuple[int, Sequence[str], Sequence[str]]]) -> dict[str, dict[str, float]]:
    """rows: (category, top ids, gold). Headline 1-4, each category, and fractional recall over 1-5."""
    scored = [(c, question_metrics(list(top), list(gold))) for c, top, gold in rows]
    out = {"1-4": summarise(scored, HEADLINE), "1-5": summarise(scored, (1, 2, 3, 4, 5))}
    for c in (1, 2, 3, 4, 5):
        out[str(c)] = summarise(scored, (c,))
    return out


def table(systems: dict[str, dict[str, dict[str, float]]]) -> str:
    lines = [
        "| system | " + " | ".join(METRICS) + " |",
        "|---|" + "---|" * len(METRICS),
    ]
    for name, s in systems.items():
        lines.append(f"| {name} | " + " | ".join(f"{s['1-4'][m]:.3f}" for m in METRICS) + " |")
    lines += [
        "",
        "| system | "
        + " | ".join(
            f"{c} {CATEGORY_NAMES[c]} (n={int(next(iter(systems.values()))[str(c)]['n'])})"
            for c in (1, 2, 3, 4, 5)
        )
        + " | recall@10 over 1-5 |",
        "|---|" + "---|" * 6,
    ]
    for name, s in systems.items():
        lines.append(
            f"| {name} | "
            + " | ".join(f"{s[str(c)]['hit@10']:.3f}" for c in (1, 2, 3, 4, 5))
            + f" | {s['1-5']['recall@10']:.3f} |"
        )
    return "\n".join(lines)


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None, help="the first N conversations (of 10)")
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    parser.add_argument("--archivist", choices=("after", "during", "reindex", "live"), default="reindex")
    parser.add_argument(
        "--broker",
        default=None,
        help="CELERY_BROKER_URL for the worker and web server (default: the filesystem broker, as in the tests)",
    )
    parser.add_argument("--clients", type=int, default=1, help="concurrent ingest clients (default 1)")
    parser.add_argument("--entities", choices=("speaker", "none"), default="speaker")
    parser.add_argument(
        "--no-chain",
        action="store_true",
        help="save turns without prev_event_id (by default a turn continues its session's previous turn)",
    )
    parser.add_argument(
        "--cached-vectors",
        action="store_true",
        help="with --archivist reindex: reuse the vectors bench.locomo.ablate cached for identical texts",
    )
    parser.add_argument(
        "--live-rate",
        type=float,
        default=10.0,
        help="--archivist live: saves a second (default 10: the team plan's 600 calls a minute; 0: unpaced)",
    )
    parser.add_argument("--no-analysis", action="store_true")
    parser.add_argument("--no-passive-pass", action="store_true")
    parser.add_argument("--vector-timeout", type=float, default=1800.0)
    args = parser.parse_args(argv)

    wall = time.perf_counter()
    convs, dropped = load(args.data, args.limit)
    n_turns = sum(len(c.turns) for c in convs)
    items = [(c.sample_id, q) for c in convs for q in c.questions]
    print(
        f"LoCoMo: {len(convs)} conversations, {n_turns} turns, {len(items)} questions "
        f"({dropped} dropped for lack of gold); {os.cpu_count()} cores, load {load_avg():.2f}",
        flush=True,
    )
    if args.broker:
        os.environ["CELERY_BROKER_URL"] = args.broker
        os.environ["MNEMOS_CELERY_QUEUE"] = (
            f"mnemos-bench-{uuid.uuid4().hex[:8]}"  # private on a shared broker
        )
    setup_django()
    db_s = prepare_database()
    tenant = build_tenant(
        slug=f"locomo-{uuid.uuid4().hex[:6]}", project_slugs=[c.sample_id for c in convs], plan="enterprise"
    )
    print(f"cluster + migrations {db_s:.1f} s; enterprise {tenant.enterprise_id}", flush=True)
    summary: dict[str, Any] = {
        "conversations": [c.sample_id for c in convs],
        "turns": n_turns,
        "questions": len(items),
        "dropped_questions": dropped,
        "settings": vars(args) | {"data": str(args.data)},
        "cores": os.cpu_count(),
        "omp_env": {k: v for k, v in os.environ.items() if k.startswith("OMP_")},
        "load_avg": {"start": load_avg()},
    }

    # ---- ingest, vectors, search: the public API over HTTP
    live: list[Asked] = []
    with web_server() as base:
        with maybe_worker(args.archivist in ("during", "live"), as_serve=args.archivist == "live"):
            load_before = load_avg()
            if args.archivist == "live":
                ingested, retries, live, live_pending = ingest_live(
                    base,
                    tenant,
                    convs,
                    items,
                    entities=args.entities == "speaker",
                    chain=not args.no_chain,
                    rate=args.live_rate,
                )
                summary["live"] = {
                    "search_latency_ms": latency_summary([a.latency_ms for a in live]),
                    "pending": live_pending,
                }
                print(f"live: {json.dumps(summary['live'])}", flush=True)
            else:
                ingested, retries = ingest(
                    lambda: Api(base),
                    tenant,
                    convs,
                    clients=args.clients,
                    entities=args.entities == "speaker",
                    chain=not args.no_chain,
                )
            rate = n_turns / ingested.wall_s
            lat = latency_summary(ingested.latencies)
            print(
                f"ingest: {n_turns} save_memory calls in {ingested.wall_s:.1f} s = {rate:.1f} memories/s "
                f"({args.clients} client(s), worker {args.archivist}); call {fmt_ms(lat)}; 429 retries {retries}; "
                f"refused by the guard {len(ingested.refused)}",
                flush=True,
            )
            summary["ingest"] = {
                "memories": n_turns,
                "wall_s": ingested.wall_s,
                "memories_per_s": rate,
                "latency_ms": lat,
                "retries_429": retries,
                "refused_by_guard": ingested.refused,
                "clients": args.clients,
                "load_avg_before": load_before,
                "load_avg_after": load_avg(),
            }
            vectors: dict[str, Any] = {"mode": args.archivist}
            if args.archivist in ("during", "live"):
                pending, _ = pending_vectors(tenant)
                drain_s, curve = wait_for_vectors(tenant, timeout_s=args.vector_timeout)
                vectors |= {
                    "pending_at_ingest_end": pending,
                    "after_ingest_s": drain_s,
                    "from_first_save_s": ingested.wall_s + drain_s,
                }
        if args.archivist == "after":
            with maybe_worker(True):
                drain_s, curve = wait_for_vectors(tenant, timeout_s=args.vector_timeout)
            vectors |= {
                "worker_drain_s": drain_s,
                "archivist_memories_per_s": n_turns / drain_s,
                "from_first_save_s": ingested.wall_s + drain_s,
                "curve": curve[:: max(1, len(curve) // 60)],
            }
        elif args.archivist == "reindex":
            if args.cached_vectors:
                vectors["prefilled_from_cache"] = prefill_vectors(tenant, convs, chain=not args.no_chain)
            drain_s = reindex_in_process(tenant)
            vectors |= {
                "reindex_s": drain_s,
                "memories_per_s": n_turns / drain_s,
                "from_first_save_s": ingested.wall_s + drain_s,
            }
        summary["vectors"] = vectors
        print(f"vectors: {json.dumps({k: v for k, v in vectors.items() if k != 'curve'})}", flush=True)

        api = Api(base)
        rng = random.Random(7)
        for conv, q in rng.sample(items, min(WARMUP, len(items))):
            api.tool(tenant.projects[conv].secret, "search_memory", {"query": q.text, "top_k": 10})
        load_before = load_avg()
        asked = ask_all(api, tenant, items, ingested.memory_to_turn)
        api.close()
        search_lat = latency_summary([a.latency_ms for a in asked])
        summary["search_latency_ms"] = search_lat | {
            "load_avg_before": load_before,
            "load_avg_after": load_avg(),
        }
        print(f"search_memory over HTTP, {len(asked)} queries after {WARMUP} warm-ups: {fmt_ms(search_lat)}")

    if not args.no_passive_pass:
        sample = random.Random(11).sample(items, min(PASSIVE_PASS, len(items)))
        with web_server({"OMP_WAIT_POLICY": "PASSIVE"}) as base:
            api = Api(base)
            for conv, q in sample[:WARMUP]:
                api.tool(tenant.projects[conv].secret, "search_memory", {"query": q.text, "top_k": 10})
            passive = ask_all(api, tenant, sample, ingested.memory_to_turn)
            api.close()
        passive_lat = latency_summary([a.latency_ms for a in passive])
        summary["search_latency_ms_omp_passive"] = passive_lat | {"load_avg_after": load_avg()}
        print(
            f"the same, web server with OMP_WAIT_POLICY=PASSIVE, {len(passive)} queries: {fmt_ms(passive_lat)}"
        )

    # ---- the BM25 baseline over the same texts
    bm25, bm25_lat = bm25_rankings(convs)
    summary["bm25_latency_ms"] = latency_summary(bm25_lat)
    systems: dict[str, dict[str, dict[str, float]]] = {
        "Mnemos search_memory (API)": score([(a.question.category, a.top, a.question.gold) for a in asked]),
        "BM25 (rank-bm25 0.2.2)": score([(q.category, bm25[(c, q.text)], q.gold) for c, q in items]),
    }
    if live:
        systems[LIVE] = score([(a.question.category, a.top, a.question.gold) for a in live])

    # ---- channels in process
    analysis: dict[tuple[str, str], dict[str, list[str]]] = {}
    if not args.no_analysis:
        start = time.perf_counter()
        channels, timings = analyse(tenant, convs, ingested.memory_to_turn)
        summary["channel_timings_ms"] = {k: latency_summary(v) for k, v in timings.items()}
        for c, q in items:
            analysis[(c, q.text)] = what_ifs(channels[(c, q.text)], bm25[(c, q.text)])
        names = list(next(iter(analysis.values())))
        for name in names:
            systems[f"in process: {name}"] = score(
                [(q.category, analysis[(c, q.text)][name], q.gold) for c, q in items]
            )
        same = sum(
            a.top == analysis[(a.conv, a.question.text)]["hybrid_rank (the product)"][:10] for a in asked
        )
        summary["fused_matches_api"] = same / len(asked)
        print(
            f"\nanalysis in {time.perf_counter() - start:.0f} s; the recomputed fusion matches the API's "
            f"top 10 on {same}/{len(asked)} questions; channel timings: "
            + "; ".join(f"{k} {fmt_ms(latency_summary(v))}" for k, v in timings.items())
        )
    summary["systems"] = systems

    print(f"\nRetrieval, categories 1-4 (n = {int(systems['BM25 (rank-bm25 0.2.2)']['1-4']['n'])})\n")
    print(table(systems))

    OUT.mkdir(parents=True, exist_ok=True)
    tag = f"limit{args.limit}" if args.limit else "all"
    live_top = {(a.conv, a.question.text): a.top for a in live}
    with (OUT / f"locomo-{tag}.jsonl").open("w", encoding="utf-8") as fh:
        for a in asked:
            record = {
                "conversation": a.conv,
                "question": a.question.text,
                "category": a.question.category,
                "gold": list(a.question.gold),
                "mnemos_top10": a.top,
                "mnemos_channels": a.channels,
                "latency_ms": round(a.latency_ms, 2),
                "bm25_top10": bm25[(a.conv, a.question.text)][:10],
            }
            if live:
                record["live_top10"] = live_top[(a.conv, a.question.text)]
            if analysis:
                record["in_process_top10"] = {
                    k: v[:10] for k, v in analysis[(a.conv, a.question.text)].items()
                }
            fh.write(json.dumps(record, ensure_ascii=False) + "\n")
    summary["wall_s"] = time.perf_counter() - wall
    summary["load_avg"]["end"] = load_avg()
    (OUT / f"summary-{tag}.json").write_text(json.dumps(summary, indent=1), encoding="utf-8")
    print(
        f"\nper-question JSONL and summary in {OUT.relative_to(ROOT)}/ (locomo-{tag}.jsonl, summary-{tag}.json); "
        f"wall {summary['wall_s']:.0f} s; search p50 {statistics.median([a.latency_ms for a in asked]):.1f} ms, "
        f"p95 {pct([a.latency_ms for a in asked], 95):.1f} ms"
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
