"""LoCoMo ranking ablations in process: the product's channels on the loaded data, fused many ways.

    .venv/bin/python -m bench.locomo.ablate [--limit N] [--no-chain] [--no-context] [--dump FILE]

Faster than bench.locomo.run (no HTTP): the turns are bulk-inserted with the ORM as the app role
(the term-statistics triggers fire as on any insert), one project per conversation, the speaker as
an entity, and, unless ``--no-chain``, a ``next`` link between consecutive turns of a session (what
``save_memory``'s ``prev_event_id`` records). Vectors come from the default embedder over the text
the archivist embeds, cached in bench/out/locomo/. Then every question runs through the product's
channels (``memory.selectors.search``: BM25 text, vector, entity) and through ``hybrid_rank`` itself,
and the variants below are scored on the tuning split (conv-26 … conv-43, the protocol's tuning
conversations), the held-out split (the other five) and all ten. Choose on "tune", confirm on "held out".
"""

from __future__ import annotations

import argparse
import functools
import hashlib
import itertools
import json
import pickle
import sys
import time
import uuid
from collections import defaultdict
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import numpy as np

from bench.embeddings.run import question_metrics, summarise
from bench.locomo.data import DEFAULT_DATA, HEADLINE, Conversation, load
from bench.locomo.harness import ROOT, BenchTenant, build_tenant, pct, prepare_database, setup_django

OUT = ROOT / "bench" / "out" / "locomo"
DEPTH = 100
TUNE = ("conv-26", "conv-30", "conv-41", "conv-42", "conv-43")


def _cache_path(texts: Sequence[str], model: str) -> Path:
    digest = hashlib.sha256(("\x00".join(texts) + model).encode()).hexdigest()[:16]
    return OUT / f"vectors-{digest}.npy"


def cached_vectors(texts: Sequence[str]) -> tuple[np.ndarray, str] | None:
    """The cached vectors of exactly these texts by the default embedder, if a run left them."""
    from memory.embedding import get_embedder

    name = get_embedder().name
    path = _cache_path(texts, name)
    return (np.load(path), name) if path.exists() else None


def vectors_for(texts: Sequence[str]) -> tuple[np.ndarray, str]:
    from memory.embedding import get_embedder

    embedder = get_embedder()
    cached = cached_vectors(texts)
    if cached is not None:
        return cached
    path = _cache_path(texts, embedder.name)
    start = time.perf_counter()
    rows: list[list[float]] = []
    for i in range(0, len(texts), 64):
        rows.extend(embedder.embed_passages(list(texts[i : i + 64])))
    matrix = np.asarray(rows, dtype=np.float32)
    OUT.mkdir(parents=True, exist_ok=True)
    np.save(path, matrix)
    print(f"embedded {len(texts)} passages in {time.perf_counter() - start:.0f} s", flush=True)
    return matrix, embedder.name


TIMES: dict[str, Any] = {}  # ref -> the turn's timestamp (for the named-time boost)
VECTORS: dict[str, np.ndarray] = {}  # ref -> the vector bulk_load stored (for query-side feedback)
PRF = ((3, 0.5), (3, 1.0), (5, 0.5), (5, 1.0), (10, 0.5))  # (top k of the product's ranking, beta)


@functools.cache
def _conversation_vectors(conversation: str) -> tuple[list[str], np.ndarray]:
    """A conversation's refs and their unit vectors, stacked once (VECTORS is filled before any question)."""
    refs = [r for r in VECTORS if r.startswith(conversation + "/")]
    matrix = np.stack([VECTORS[r] for r in refs])
    return refs, matrix / np.maximum(np.linalg.norm(matrix, axis=1, keepdims=True), 1e-9)


def feedback_scores(
    query: np.ndarray, ranking: Sequence[str], conversation: str, k: int, beta: float
) -> dict[str, float]:
    """Rocchio on the vector channel: the query moved towards the mean of the product's top ``k``, then
    cosine against every turn of the conversation; the best DEPTH, as the vector channel returns them."""
    refs, unit = _conversation_vectors(conversation)
    top = [VECTORS[r] for r in ranking[:k] if r in VECTORS]
    moved = query + beta * np.mean(top, axis=0) if top else query
    sims = unit @ (moved / (np.linalg.norm(moved) or 1.0))
    best = np.argsort(-sims)[:DEPTH]
    return {refs[i]: float(sims[i]) for i in best}


def bulk_load(
    tenant: BenchTenant, convs: Sequence[Conversation], *, chain: bool, context: bool = True
) -> dict[str, str]:
    """Every turn as a memory (summary = the text cut to 500, content = the text); memory id -> ref."""
    from accounts.models import Member, Project, Workspace
    from core.tenancy import tenant_context
    from memory.models import LinkKind, Memory, MemoryEntity, MemoryLink
    from memory.services.archivist import embedding_contexts, embedding_text
    from memory.services.memories import entity_get_or_create

    turn_of: dict[str, str] = {}
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        member = Member.objects.get(pk=tenant.member_id)
        drafts: list[tuple[Memory, str, str, int]] = []
        for conv in convs:
            project = Project.objects.get(pk=tenant.projects[conv.sample_id].project_id)
            workspace, _ = Workspace.objects.get_or_create(
                project=project, name="default", defaults={"enterprise_id": tenant.enterprise_id}
            )
            for turn in conv.turns:
                memory = Memory(
                    enterprise_id=tenant.enterprise_id,
                    project=project,
                    workspace=workspace,
                    team_id=project.team_id,
                    author=member,
                    timestamp=turn.timestamp,
                    summary=turn.text[:500],
                    content=turn.text,
                )
                drafts.append((memory, f"{conv.sample_id}/{turn.id}", turn.speaker, turn.session))
                TIMES[f"{conv.sample_id}/{turn.id}"] = turn.timestamp
        Memory.objects.bulk_create([m for m, _, _, _ in drafts], batch_size=1000)
        speakers = {name: entity_get_or_create(name=name, type="person")[0] for _, _, name, _ in drafts}
        MemoryEntity.objects.bulk_create(
            [
                MemoryEntity(enterprise_id=tenant.enterprise_id, memory=m, entity=speakers[name])
                for m, _, name, _ in drafts
            ],
            batch_size=2000,
        )
        links = []
        for (a, ref_a, _, session_a), (b, ref_b, _, session_b) in itertools.pairwise(drafts):
            same_session = ref_a.split("/")[0] == ref_b.split("/")[0] and session_a == session_b
            if chain and same_session:
                links.append(MemoryLink(enterprise_id=tenant.enterprise_id, kind=LinkKind.NEXT, src=a, dst=b))
        MemoryLink.objects.bulk_create(links, batch_size=2000)
        # The vectors of the text the archivist embeds: with the previous turn as context when chained
        # (``context=False``: as before contexts, for the ablation).
        memories = [m for m, _, _, _ in drafts]
        contexts = embedding_contexts(memories) if context else {}
        matrix, model = vectors_for([embedding_text(m, contexts.get(m.pk, "")) for m in memories])
        for (memory, ref, _, _), vector in zip(drafts, matrix, strict=True):
            VECTORS[ref] = vector
            memory.embedding = vector.tolist()
            memory.embedding_model = model
            memory.embedding_dim = len(vector)
        Memory.objects.bulk_update(
            memories, ["embedding", "embedding_model", "embedding_dim"], batch_size=500
        )
        for memory, ref, _, _ in drafts:
            turn_of[str(memory.pk)] = ref
    return turn_of


def rrf(rankings: Sequence[tuple[Sequence[str], float]], k: int = 60) -> dict[str, float]:
    scores: dict[str, float] = defaultdict(float)
    for ranking, weight in rankings:
        for rank, doc in enumerate(ranking):
            scores[doc] += weight / (k + rank + 1)
    return scores


def order(scores: dict[str, float]) -> list[str]:
    return sorted(scores, key=lambda d: (-scores[d], d))


def with_neighbours(scores: dict[str, float], prev: dict[str, str], alpha: float) -> dict[str, float]:
    """Each candidate gains alpha x its best sequence neighbour's score (candidates only: a neighbour no
    channel found is not added, as the product cannot vouch that it is visible without another query)."""
    nxt = {v: k for k, v in prev.items()}
    out = dict(scores)
    for doc in scores:
        near = max(scores.get(prev.get(doc, ""), 0.0), scores.get(nxt.get(doc, ""), 0.0))
        out[doc] += alpha * near
    return out


def with_directed_neighbours(
    scores: dict[str, float], prev: dict[str, str], from_prev: float, from_next: float
) -> dict[str, float]:
    """A candidate gains from_prev x its predecessor's score plus from_next x its successor's."""
    nxt = {v: k for k, v in prev.items()}
    return {
        doc: value
        + from_prev * scores.get(prev.get(doc, ""), 0.0)
        + from_next * scores.get(nxt.get(doc, ""), 0.0)
        for doc, value in scores.items()
    }


def with_expansion(
    scores: dict[str, float], prev: dict[str, str], beta: float, top: int = 20
) -> dict[str, float]:
    """The sequence neighbours of the ``top`` best candidates that no channel found join the ranking with
    beta x that candidate's score (the product would have to check them against the visibility filter)."""
    nxt = {v: k for k, v in prev.items()}
    out = dict(scores)
    for doc in order(scores)[:top]:
        for near in (prev.get(doc), nxt.get(doc)):
            if near and near not in scores:
                out[near] = max(out.get(near, 0.0), beta * scores[doc])
    return out


def score_fusion(ch: dict[str, Any], vector_weight: float) -> dict[str, float]:
    """Each channel's scores min-max normalised over its own list, then added with weights."""
    fused: dict[str, float] = defaultdict(float)
    for name, weight in (("text_scores", 1.0), ("vector_scores", vector_weight)):
        scores = ch[name]
        if not scores:
            continue
        lo, hi = min(scores.values()), max(scores.values())
        for doc, value in scores.items():
            fused[doc] += weight * (value - lo) / ((hi - lo) or 1.0)
    return fused


def linear(ranking: Sequence[str], depth: int = DEPTH) -> dict[str, float]:
    return {doc: 1.0 - rank / depth for rank, doc in enumerate(ranking)}


def variants(ch: dict[str, Any], prev: dict[str, str]) -> dict[str, list[str]]:
    bm25, vec, ent = ch["text"], ch["vector"], ch["entity"]
    out: dict[str, list[str]] = {
        "product hybrid_rank": ch["product"],
        "BM25 alone": bm25,
        "vector alone": vec,
        "RRF k=60: BM25 1 + vector 1 (before)": order(rrf([(bm25, 1.0), (vec, 1.0)])),
    }
    like_product = score_fusion(ch, 0.75)
    for doc, value in linear(ent).items():
        like_product[doc] = like_product.get(doc, 0.0) + 0.25 * value
    like_product = {doc: v + 0.5 * (doc in ch["named"]) for doc, v in like_product.items()}
    without_time = with_neighbours(like_product, prev, 0.5)
    out["product's fusion without the named-time boost"] = order(without_time)
    for boost in (0.5, 0.75, 1.0):
        timed = {
            doc: v + boost * any(w.holds(TIMES[doc]) for w in ch["windows"])
            for doc, v in like_product.items()
        }
        name = (
            "product's fusion, recomputed"
            if boost == 0.75
            else f"product's fusion, named-time boost {boost:g}"
        )
        out[name] = order(with_neighbours(timed, prev, 0.5))
    like_product = with_neighbours(like_product, prev, 0.5)
    for (k, beta), vector_scores in ch.get("prf", {}).items():
        moved = score_fusion({**ch, "vector_scores": vector_scores}, 0.75)
        for doc, value in linear(ent).items():
            moved[doc] = moved.get(doc, 0.0) + 0.25 * value
        moved = {doc: v + 0.5 * (doc in ch["named"]) for doc, v in moved.items()}
        out[f"product's fusion, vector channel with feedback from its top {k}, beta {beta:g}"] = order(
            with_neighbours(moved, prev, 0.5)
        )
    for beta in (0.3, 0.5, 0.7, 0.85):
        for top in (5, 10, 20):
            out[f"product's fusion + neighbour expansion {beta:g} of top {top}"] = order(
                with_expansion(like_product, prev, beta, top)
            )
    for wv in (0.75, 1.0):
        fused = score_fusion(ch, wv)
        out[f"score fusion: BM25 1 + vector {wv:g}"] = order(fused)
        for alpha in (0.2, 0.3, 0.4, 0.5):
            out[f"score fusion: BM25 1 + vector {wv:g}, neighbours {alpha:g}"] = order(
                with_neighbours(fused, prev, alpha)
            )
        for boost in (0.1, 0.2, 0.3, 0.5):
            named = {doc: value + boost * (doc in ch["named"]) for doc, value in fused.items()}
            out[f"score fusion: BM25 1 + vector {wv:g}, named-entity boost {boost:g}, neighbours 0.5"] = (
                order(with_neighbours(named, prev, 0.5))
            )
        for fp, fn in ((0.5, 0.25), (0.25, 0.5), (0.5, 0.5), (0.4, 0.4), (0.6, 0.3)):
            out[f"score fusion: BM25 1 + vector {wv:g}, prev {fp:g} / next {fn:g}"] = order(
                with_directed_neighbours(fused, prev, fp, fn)
            )
        with_entity = dict(fused)
        for doc, value in linear(ent).items():
            with_entity[doc] = with_entity.get(doc, 0.0) + 0.25 * value
        out[f"score fusion: BM25 1 + vector {wv:g} + entity 0.25, neighbours 0.3"] = order(
            with_neighbours(with_entity, prev, 0.3)
        )
    return out


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--limit", type=int, default=None)
    parser.add_argument("--no-chain", action="store_true")
    parser.add_argument(
        "--no-context", action="store_true", help="embed each turn alone (as before embedding_contexts)"
    )
    parser.add_argument(
        "--dump",
        type=Path,
        default=None,
        help="pickle every question's channels, the turns' texts, times, links and vectors to FILE "
        "(to try a fusion offline, without loading and embedding again)",
    )
    args = parser.parse_args(argv)
    convs, _ = load(DEFAULT_DATA, args.limit)
    setup_django()
    prepare_database()
    tenant = build_tenant(slug=f"ablate-{uuid.uuid4().hex[:6]}", project_slugs=[c.sample_id for c in convs])
    start = time.perf_counter()
    turn_of = bulk_load(tenant, convs, chain=not args.no_chain, context=not args.no_context)
    print(f"loaded {len(turn_of)} memories in {time.perf_counter() - start:.0f} s", flush=True)

    from accounts.models import AccessKey, Member
    from core.tenancy import tenant_context
    from memory.embedding import get_embedder
    from memory.models import MemoryEntity
    from memory.selectors import search as product
    from memory.timewords import named_windows

    embedder = get_embedder()
    prev: dict[str, str] = {}
    for conv in convs:
        for a, b in itertools.pairwise(conv.turns):
            if a.session == b.session and not args.no_chain:
                prev[f"{conv.sample_id}/{b.id}"] = f"{conv.sample_id}/{a.id}"
    rows: dict[str, list[tuple[str, int, list[str], list[str]]]] = defaultdict(list)
    dumped: list[dict[str, Any]] = []
    timings: dict[str, list[float]] = defaultdict(list)
    for conv in convs:
        bench_project = tenant.projects[conv.sample_id]
        for q in conv.questions:
            with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
                member = Member.objects.get(pk=tenant.member_id)
                key = AccessKey.objects.get(pk=bench_project.key_id)
                scope = product.scope_for_key(member=member, key=key)
                memories = product.scoped_memories(scope)

                def refs(pks: Sequence[Any]) -> list[str]:
                    return [turn_of.get(str(pk), "?/?") for pk in pks]

                t0 = time.perf_counter()
                text = product._text_channel(memories, q.text, DEPTH, project_ids=scope.project_ids)
                t1 = time.perf_counter()
                vector = embedder.embed_query(q.text)
                nearest = product.nearest_memories(memories, vector, DEPTH)
                t2 = time.perf_counter()
                query_entities = product.entities_in(q.text)
                entity = product._entity_channel(memories, query_entities, DEPTH)
                t3 = time.perf_counter()
                ranked = product.hybrid_rank(
                    memories=memories, query=q.text, depth=DEPTH, project_ids=scope.project_ids
                )
                t4 = time.perf_counter()
            timings["text"].append((t1 - t0) * 1000)
            timings["vector (with embedding)"].append((t2 - t1) * 1000)
            timings["entity"].append((t3 - t2) * 1000)
            timings["hybrid_rank"].append((t4 - t3) * 1000)
            candidates = {pk for pk, _ in text} | {pk for pk, _ in nearest}
            with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
                named = set(
                    MemoryEntity.objects.filter(
                        entity__in=query_entities, memory_id__in=candidates
                    ).values_list("memory_id", flat=True)
                )
            ch: dict[str, Any] = {
                "named": set(refs(list(named))),
                "text": refs([pk for pk, _ in text]),
                "text_scores": {turn_of[str(pk)]: s for pk, s in text},
                "vector": refs([pk for pk, _ in nearest]),
                "vector_scores": {turn_of[str(pk)]: s for pk, s in nearest},
                "entity": refs(entity),
                "product": refs(ranked.ids),
                "windows": named_windows(q.text),
            }
            query_vector = np.asarray(vector, dtype=np.float32)
            ch["prf"] = {
                (k, beta): feedback_scores(query_vector, ch["product"], conv.sample_id, k, beta)
                for k, beta in PRF
            }
            gold = [f"{conv.sample_id}/{g}" for g in q.gold]
            if args.dump:
                dumped.append(
                    {"conv": conv.sample_id, "category": q.category, "question": q.text, "gold": gold}
                    | {k: v for k, v in ch.items() if k != "prf"}
                    | {"query_vector": query_vector}
                )
            for name, top in variants(ch, prev).items():
                rows[name].append((conv.sample_id, q.category, top[:10], gold))
    if args.dump:
        texts = {f"{c.sample_id}/{t.id}": (t.speaker, t.session, t.text) for c in convs for t in c.turns}
        payload = {"questions": dumped, "times": TIMES, "prev": prev, "vectors": VECTORS, "turns": texts}
        args.dump.write_bytes(pickle.dumps(payload))
    print(
        "timings (ms, p50/p95): "
        + "; ".join(f"{k} {pct(v, 50):.1f}/{pct(v, 95):.1f}" for k, v in timings.items()),
        flush=True,
    )
    splits = {
        "tune": lambda c: c in TUNE,
        "held out": lambda c: c not in TUNE,
        "all": lambda c: True,
    }
    print("\n| variant | " + " | ".join(f"{s} hit@10 1-4 | {s} recall@10 1-5" for s in splits) + " |")
    print("|---|" + "---|---|" * len(splits))
    results: dict[str, dict[str, dict[str, float]]] = {}
    for name, scored in rows.items():
        cells = []
        results[name] = {}
        for split, keep in splits.items():
            metrics = [(cat, question_metrics(top, gold)) for c, cat, top, gold in scored if keep(c)]
            head = summarise(metrics, HEADLINE)
            all5 = summarise(metrics, (1, 2, 3, 4, 5))
            results[name][split] = {"hit@10": head["hit@10"], "recall@10_1-5": all5["recall@10"]}
            cells.append(f"{head['hit@10']:.3f} | {all5['recall@10']:.3f}")
        print(f"| {name} | " + " | ".join(cells) + " |")
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "ablate.json").write_text(
        json.dumps({"chain": not args.no_chain, "context": not args.no_context, "results": results}, indent=1)
    )
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
