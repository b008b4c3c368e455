"""The read path at scale: one project grown to each size, searched, asked and listed through the API.

    .venv/bin/python -m bench.scale.run --sizes 10000,100000[,1000000] [--sample 3000] [--queries 200]
                                        [--profile N] [--omp-passive]

On a throwaway embedded cluster (config.settings_test), one enterprise on the ``enterprise`` plan,
one project, one all-scope access key, one task (for memory.ask), one web server (uvicorn).

Rows (bulk-loaded as the owner role, RLS satisfied with the enterprise's ``app.enterprise_id``):

- ``--sample`` distinct LoCoMo turns (seeded random choice over all ten conversations), each passed
  through Memory Guard (``guard_check``; the stored text is the guarded text) and embedded once by the
  real default embedder on the text the archivist embeds (``embedding_text``: summary, newline,
  content). The vectors are cached in bench/out/scale/.
- They are COPYed into a staging table with the vectors, beside 997 Gaussian noise vectors scaled to
  length ``--noise`` (default 0.15). Row g (0-based) of the project takes turn ``g mod S`` and noise
  ``g mod 997`` (S and 997 coprime, so every (turn, noise) pair is distinct below S x 997 rows):
  ``embedding = l2_normalize(turn vector + noise)`` (cosine to its turn ~0.989; two copies of one
  turn ~0.978; distinct turns' nearest neighbours sit near 0.93), summary = the text cut to 500,
  content = the text, timestamp = 2023-01-01 + 30 s x g. ``INSERT ... SELECT`` over
  ``generate_series`` writes them into memory_memory with every column the app sets
  (enterprise, project, workspace ``default`` for even g and ``archive`` for odd g, since the
  enterprise plan allows 1,000,000 per workspace and the save measured at 1M must pass; team,
  author, access key, kind fact, layer project, visibility project, status unverified,
  guard_version, embedding_model, embedding_dim 384;
  ``search_vector`` is generated), and one memory_memoryentity link to the turn's speaker (an
  Entity made through the app). Every ``--task-every``-th row (default 10th) is a task-layer note
  of the bench task (layer task, visibility project, as memory.train writes), so memory.ask in a
  run has its own notes to find.
- Before each load the GIN (search_vector) and HNSW indexes are dropped; after it they are rebuilt
  with their own definitions (``pg_get_indexdef``), each timed, then ANALYZE.

At each size, through HTTP: ``search_memory`` (top_k 10, LoCoMo questions, 50 warm-ups, query
embedding included), ``GET /v1/tasks/<id>/memory/ask?purpose=<question>``, ``list_memory_timeline``
(the domain, limit 20) and ``save_memory``; in process: each search channel timed, whether the vector
query uses the HNSW index, HNSW recall@10 against an exact scan, the archivist's neighbour query and
the write path's plan-limit counts; with ``--profile N``, cProfile over N in-process calls of
search_memory, list_memory_timeline and save_memory through the tool door. Database, table and
index sizes from PostgreSQL. The index builds run with ``--maintenance-work-mem`` (default 4GB, a
session setting; the server's own is 64MB) and at most ``--index-timeout`` seconds (default 1800):
a build that does not finish ends the run there, reported as not measured.

JSON summary in bench/out/scale/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import sys
import time
import uuid
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
import numpy.typing as npt

from bench.locomo.data import DEFAULT_DATA, load
from bench.locomo.harness import (
    ROOT,
    Api,
    BenchTenant,
    build_tenant,
    fmt_ms,
    latency_summary,
    prepare_database,
    product_functions,
    setup_django,
)
from bench.locomo.run import load_avg, web_server

OUT = ROOT / "bench" / "out" / "scale"
NOISE_POOL = 997
WARMUP = 50
HNSW_INDEX = "memory_embedding_hnsw_384"
GIN_INDEX = "memory_search_vector"

Matrix = npt.NDArray[np.float32]


@dataclass(frozen=True)
class SampleTurn:
    speaker: str
    text: str  # guarded


# --------------------------------------------------------------------------- the sample


def sample_turns(n: int, seed: int, data: Path) -> tuple[list[SampleTurn], list[str]]:
    """n distinct turns (guarded) and every LoCoMo question (the query pool)."""
    from memory.guard import guard_check

    convs, _ = load(data)
    seen: dict[str, SampleTurn] = {}
    for conv in convs:
        for turn in conv.turns:
            seen.setdefault(turn.text, SampleTurn(speaker=turn.speaker, text=turn.text))
    pool = list(seen.values())
    picked = random.Random(seed).sample(pool, min(n, len(pool)))
    guarded = [SampleTurn(speaker=t.speaker, text=guard_check(t.text).text) for t in picked]
    questions = [q.text for c in convs for q in c.questions]
    return guarded, questions


def embed_sample(turns: Sequence[SampleTurn], seed: int) -> tuple[Matrix, str, float]:
    """The real embedder's passage vectors for the archivist's text of each turn (cached)."""
    from memory.embedding import get_embedder
    from memory.models import Memory
    from memory.services.archivist import embedding_text

    embedder = get_embedder()
    cache = OUT / f"sample-{embedder.name.replace('/', '_')}-{len(turns)}-{seed}.npy"
    if cache.exists():
        return np.load(cache), embedder.name, 0.0
    texts = [embedding_text(Memory(summary=t.text[:500], content=t.text)) for t in turns]
    start = time.perf_counter()
    # Vectors bench.locomo.ablate cached for every LoCoMo turn (same text, same embedder) are reused.
    from bench.locomo.ablate import cached_vectors

    convs, _ = load(DEFAULT_DATA)
    all_texts = [embedding_text(Memory(summary=t.text[:500], content=t.text)) for c in convs for t in c.turns]
    known = cached_vectors(all_texts)
    by_text = dict(zip(all_texts, known[0], strict=True)) if known is not None else {}
    missing = [text for text in texts if text not in by_text]
    if missing:
        by_text.update(
            zip(missing, np.asarray(embedder.embed_passages(missing), dtype=np.float32), strict=True)
        )
    matrix = np.asarray([by_text[text] for text in texts], dtype=np.float32)
    took = time.perf_counter() - start
    OUT.mkdir(parents=True, exist_ok=True)
    np.save(cache, matrix)
    return matrix, embedder.name, took


def vector_literal(row: Sequence[float]) -> str:
    return "[" + ",".join(f"{v:.7f}" for v in row) + "]"


# --------------------------------------------------------------------------- the owner's connection


def owner_connect() -> Any:
    import psycopg
    from django.conf import settings

    conf = settings.DATABASES["owner"]
    return psycopg.connect(
        dbname=conf["NAME"],
        user=conf["USER"],
        password=conf.get("PASSWORD") or None,
        host=conf.get("HOST") or None,
        port=conf.get("PORT") or None,
        autocommit=True,
    )


def in_tenant(cur: Any, enterprise_id: uuid.UUID) -> None:
    """RLS is forced on the owner too: name the enterprise for this transaction."""
    cur.execute("SELECT set_config('app.enterprise_id', %s, true)", [str(enterprise_id)])


@dataclass
class Place:
    enterprise_id: uuid.UUID
    project_id: uuid.UUID
    workspace_id: uuid.UUID
    archive_workspace_id: uuid.UUID
    team_id: int
    member_id: int
    key_id: uuid.UUID
    task_id: uuid.UUID
    entity_ids: dict[str, int]


def make_place(tenant: BenchTenant, speakers: set[str]) -> Place:
    from accounts.models import Project
    from accounts.services.workspaces import workspace_get_or_create
    from core.tenancy import tenant_context
    from memory.services.memories import entity_get_or_create
    from memory.services.tasks import task_create

    bench_project = next(iter(tenant.projects.values()))
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        project = Project.objects.get(pk=bench_project.project_id)
        workspace = workspace_get_or_create(project=project, name="default")
        archive = workspace_get_or_create(project=project, name="archive")
        task = task_create(project=project, name="answer questions", goal="Answer questions about people")
        entities = {s: entity_get_or_create(name=s, type="person")[0].pk for s in sorted(speakers)}
    return Place(
        enterprise_id=tenant.enterprise_id,
        project_id=project.pk,
        workspace_id=workspace.pk,
        archive_workspace_id=archive.pk,
        team_id=tenant.team_id,
        member_id=tenant.member_id,
        key_id=bench_project.key_id,
        task_id=task.pk,
        entity_ids=entities,
    )


def stage(
    conn: Any, place: Place, turns: Sequence[SampleTurn], vectors: Matrix, noise: float, seed: int
) -> float:
    """The staging tables: the sample (text, speaker's entity, vector) and the noise pool."""
    rng = np.random.default_rng(seed)
    pool = rng.standard_normal((NOISE_POOL, vectors.shape[1])).astype(np.float32)
    pool *= noise / np.linalg.norm(pool, axis=1, keepdims=True)
    start = time.perf_counter()
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS bench_scale_sample, bench_scale_noise")
        cur.execute(
            "CREATE UNLOGGED TABLE bench_scale_sample (i int PRIMARY KEY, text text, entity_id bigint, v vector)"
        )
        cur.execute("CREATE UNLOGGED TABLE bench_scale_noise (j int PRIMARY KEY, v vector)")
        with cur.copy("COPY bench_scale_sample (i, text, entity_id, v) FROM STDIN") as copy:
            for i, (turn, row) in enumerate(zip(turns, vectors, strict=True)):
                copy.write_row((i, turn.text, place.entity_ids[turn.speaker], vector_literal(row.tolist())))
        with cur.copy("COPY bench_scale_noise (j, v) FROM STDIN") as copy:
            for j, row in enumerate(pool):
                copy.write_row((j, vector_literal(row.tolist())))
    return time.perf_counter() - start


def index_defs(conn: Any) -> dict[str, str]:
    with conn.cursor() as cur:
        cur.execute(
            "SELECT indexname, indexdef FROM pg_indexes WHERE tablename = 'memory_memory' AND indexname = ANY(%s)",
            [[HNSW_INDEX, GIN_INDEX]],
        )
        return dict(cur.fetchall())


def load_rows(
    conn: Any, place: Place, *, start: int, stop: int, sample_size: int, model: str, task_every: int
) -> dict[str, float]:
    """Rows start..stop-1 of the project (and their entity links), indexes dropped first."""
    from memory.guard import RULES_VERSION

    timings: dict[str, float] = {}
    with conn.cursor() as cur:
        for name in (HNSW_INDEX, GIN_INDEX):
            cur.execute(f"DROP INDEX IF EXISTS {name}")
        t0 = time.perf_counter()
        with conn.transaction():
            in_tenant(cur, place.enterprise_id)
            cur.execute("DROP TABLE IF EXISTS bench_scale_rows")
            cur.execute(
                "CREATE UNLOGGED TABLE bench_scale_rows AS SELECT g, gen_random_uuid() AS id FROM "
                "generate_series(%s::bigint, %s::bigint) AS g",
                [start, stop - 1],
            )
            cur.execute(
                """
                INSERT INTO memory_memory (
                    id, enterprise_id, project_id, workspace_id, team_id, author_id, access_key_id, task_id,
                    role_id, created_at, timestamp, summary, content, kind, layer, visibility, scope, source,
                    status, confidence, derived_from, source_forgotten, redactions, guard_version,
                    embedding, embedding_model, embedding_dim
                )
                SELECT r.id, %(enterprise)s, %(project)s,
                    CASE WHEN r.g %% 2 = 0 THEN %(workspace)s::uuid ELSE %(archive)s::uuid END, %(team)s, %(member)s, %(key)s,
                    CASE WHEN r.g %% %(task_every)s = 0 THEN %(task)s::uuid END,
                    NULL, ts, ts, left(s.text, 500), s.text, 'fact',
                    CASE WHEN r.g %% %(task_every)s = 0 THEN 'task' ELSE 'project' END,
                    'project', 'shared', 'owner', 'unverified', 0.5, '{}', false, '[]', %(guard)s,
                    l2_normalize(s.v + n.v), %(model)s, 384
                FROM bench_scale_rows r
                CROSS JOIN LATERAL (SELECT timestamptz '2023-01-01 00:00:00+00' + r.g * interval '30 seconds' AS ts) t
                JOIN bench_scale_sample s ON s.i = r.g %% %(sample)s
                JOIN bench_scale_noise n ON n.j = r.g %% %(pool)s
                """,
                {
                    "enterprise": place.enterprise_id,
                    "project": place.project_id,
                    "workspace": place.workspace_id,
                    "archive": place.archive_workspace_id,
                    "team": place.team_id,
                    "member": place.member_id,
                    "key": place.key_id,
                    "task": place.task_id,
                    "task_every": task_every,
                    "guard": RULES_VERSION,
                    "model": model,
                    "sample": sample_size,
                    "pool": NOISE_POOL,
                },
            )
            t1 = time.perf_counter()
            cur.execute(
                """
                INSERT INTO memory_memoryentity (enterprise_id, memory_id, entity_id)
                SELECT %s, r.id, s.entity_id FROM bench_scale_rows r JOIN bench_scale_sample s ON s.i = r.g %% %s
                """,
                [place.enterprise_id, sample_size],
            )
            t2 = time.perf_counter()
        timings["insert_memories_s"] = t1 - t0
        timings["insert_entity_links_s"] = t2 - t1
    return timings


def build_indexes(
    conn: Any, defs: dict[str, str], *, maintenance_mem: str | None, timeout_s: int
) -> dict[str, Any]:
    out: dict[str, Any] = {}
    with conn.cursor() as cur:
        if maintenance_mem:
            cur.execute(f"SET maintenance_work_mem = '{maintenance_mem}'")
        cur.execute(f"SET statement_timeout = '{timeout_s}s'")
        for name in (GIN_INDEX, HNSW_INDEX):
            start = time.perf_counter()
            try:
                cur.execute(defs[name])
                out[f"{name}_build_s"] = time.perf_counter() - start
            except Exception as exc:  # noqa: BLE001 - a timed-out build is a result to report
                out[f"{name}_build_s"] = None
                out[f"{name}_error"] = f"{type(exc).__name__}: {exc}".strip()[:300]
                out["hnsw_missing"] = name == HNSW_INDEX
                break
        cur.execute("SET statement_timeout = 0")
        start = time.perf_counter()
        cur.execute("ANALYZE memory_memory")
        cur.execute("ANALYZE memory_memoryentity")
        out["analyze_s"] = time.perf_counter() - start
    return out


def prewarm(
    tables: Sequence[str] = ("memory_memory", "memory_memoryentity", "memory_termstat"),
) -> dict[str, Any]:
    """Read the loaded tables and all their indexes into shared buffers (pg_prewarm, as the superuser of
    the embedded server), and say how many MiB that was.

    COPY and CREATE INDEX write through a small ring of buffers and leave almost nothing cached, where
    rows saved through the save path (and the HNSW index they are added to) are written into shared
    buffers and stay there while they fit: without this the first minutes of searches read what a
    running server holds from the kernel's cache. Off with ``--no-prewarm``.
    """
    import psycopg
    from django.conf import settings

    from core.dbserver import superuser_settings

    conf = superuser_settings(settings.DATABASES)
    if conf is None:
        return {"prewarm_skipped": "DATABASE_URL: not the embedded server"}
    start = time.perf_counter()
    with (
        psycopg.connect(
            dbname=conf["NAME"], user=conf["USER"], host=conf["HOST"], port=conf["PORT"], autocommit=True
        ) as su,
        su.cursor() as cur,
    ):
        cur.execute("CREATE EXTENSION IF NOT EXISTS pg_prewarm")
        cur.execute(
            """
            SELECT coalesce(sum(pg_prewarm(c.oid)), 0) FROM pg_class c
            WHERE c.relkind IN ('r', 'i', 't') AND c.oid IN (
                SELECT t.oid FROM pg_class t WHERE t.relname = ANY(%(tables)s)
                UNION SELECT t.reltoastrelid FROM pg_class t WHERE t.relname = ANY(%(tables)s)
                UNION SELECT i.indexrelid FROM pg_index i JOIN pg_class t ON t.oid = i.indrelid
                    WHERE t.relname = ANY(%(tables)s)
            )
            """,
            {"tables": list(tables)},
        )
        row = cur.fetchone()
    blocks = row[0] if row else 0
    return {"prewarm_mib": int(blocks) * 8 / 1024, "prewarm_s": time.perf_counter() - start}


def sizes_now(conn: Any) -> dict[str, float]:
    mib = 1024 * 1024
    with conn.cursor() as cur:
        cur.execute(
            "SELECT pg_database_size(current_database()), pg_total_relation_size('memory_memory'), "
            "pg_relation_size('memory_memory'), "
            "coalesce(pg_relation_size(to_regclass(%s)), 0), coalesce(pg_relation_size(to_regclass(%s)), 0), "
            "pg_total_relation_size('memory_memoryentity')",
            [HNSW_INDEX, GIN_INDEX],
        )
        db, total, heap, hnsw, gin, links = cur.fetchone()
    return {
        "database_mib": db / mib,
        "memory_table_total_mib": total / mib,
        "memory_heap_mib": heap / mib,
        "hnsw_index_mib": hnsw / mib,
        "gin_index_mib": gin / mib,
        "entity_links_total_mib": links / mib,
    }


def server_settings(conn: Any) -> dict[str, str]:
    names = (
        "server_version",
        "shared_buffers",
        "work_mem",
        "maintenance_work_mem",
        "max_parallel_maintenance_workers",
        "max_parallel_workers_per_gather",
        "effective_cache_size",
        "jit",
    )
    out = {}
    with conn.cursor() as cur:
        for name in names:
            cur.execute(f"SHOW {name}")
            out[name] = str(cur.fetchone()[0])
        cur.execute("SELECT extversion FROM pg_extension WHERE extname = 'vector'")
        out["pgvector"] = str(cur.fetchone()[0])
    return out


# --------------------------------------------------------------------------- measurements


def timed_calls(call: Callable[[str], float], queries: Sequence[str], warmup: int) -> list[float]:
    for q in queries[:warmup]:
        call(q)
    return [call(q) for q in queries[warmup:]]


def api_measures(
    out: dict[str, Any],
    base: str,
    tenant: BenchTenant,
    place: Place,
    queries: Sequence[str],
    n_search: int,
    n_ask: int,
    n_timeline: int,
) -> None:
    """Into ``out`` as each finishes (a refused call is recorded, and the other tools still run)."""
    from bench.locomo.harness import ApiError

    secret = next(iter(tenant.projects.values())).secret
    api = Api(base, timeout=600)
    hits: list[int] = []
    evidence: list[int] = []

    def search(q: str) -> float:
        body, ms = api.tool(secret, "search_memory", {"query": q, "top_k": 10})
        hits.append(len(body["hits"]))
        return ms

    def ask(q: str) -> float:
        body, ms = api.get(secret, f"/v1/tasks/{place.task_id}/memory/ask", {"purpose": q})
        evidence.append(len(body["evidence"]))
        return ms

    def timeline(_: str) -> float:
        return api.tool(secret, "list_memory_timeline", {})[1]

    def save(q: str) -> float:
        text = f"Bench: a note about {q}"
        args = {"summary": text, "content": text, "entities": [{"name": "Bench", "type": "person"}]}
        return api.tool(secret, "save_memory", args)[1]

    plan = (
        ("search", search, WARMUP, n_search),
        ("ask", ask, 10, n_ask),
        ("timeline", timeline, 5, n_timeline),
        ("save", save, 5, 30),
    )
    try:
        for name, call, warmup, n in plan:
            try:
                out[f"{name}_ms"] = latency_summary(timed_calls(call, queries[: warmup + n], warmup))
            except ApiError as exc:
                out[f"{name}_error"] = str(exc)
    finally:
        api.close()
    if hits:
        out["search_hits_mean"] = sum(hits) / len(hits)
    if evidence:
        out["ask_evidence_mean"] = sum(evidence) / len(evidence)


def in_process_measures(
    tenant: BenchTenant, place: Place, queries: Sequence[str], n: int, n_recall: int
) -> dict[str, Any]:
    """Each search channel timed, the vector plan, HNSW recall against an exact scan, the archivist's
    neighbour query and the write path's limit counts, as the app role in the tenant's context."""
    from django.db import connection

    from accounts.models import AccessKey, Member
    from core.tenancy import tenant_context
    from memory.embedding import get_embedder
    from memory.models import Memory
    from memory.selectors import search as product
    from memory.services.archivist import archivist_similar
    from memory.services.memories import MemoryDraft, _check_limits

    embedder = get_embedder()
    timings: dict[str, list[float]] = {k: [] for k in ("embed_query", "text_sql", "vector_sql", "entity")}
    text_rows: list[int] = []
    candidate_rows: list[int] = []
    recall: list[float] = []
    turn_recall: list[float] = []
    out: dict[str, Any] = {}
    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        member = Member.objects.get(pk=place.member_id)
        key = AccessKey.objects.select_related("project", "project__enterprise__plan", "workspace").get(
            pk=place.key_id
        )
        memories = product.scoped_memories(product.scope_for_key(member=member, key=key))
        vectors = [embedder.embed_query(q) for q in queries[:5]]  # warm
        for i, q in enumerate(queries[:n]):
            t0 = time.perf_counter()
            product._text_channel(memories, q, product.CHANNEL_DEPTH, project_ids=(place.project_id,))
            t1 = time.perf_counter()
            vector = embedder.embed_query(q)
            t2 = time.perf_counter()
            nearest = product.nearest_memories(memories, vector, product.CHANNEL_DEPTH)
            t3 = time.perf_counter()
            product._entity_channel(memories, product.entities_in(q), product.CHANNEL_DEPTH)
            t4 = time.perf_counter()
            for name, ms in zip(timings, (t2 - t1, t1 - t0, t3 - t2, t4 - t3), strict=True):
                timings[name].append(ms * 1000)
            if i < 20:
                # How many memories hold any of the query's lexemes, and how many the BM25 channel scores.
                weights = product.term_weights(q, project_ids=(place.project_id,))
                text_rows.append(sum(weights.docs.values()))
                chosen = weights.candidate_lexemes()
                candidate_rows.append(sum(weights.docs[x] for x in chosen))
            if i < n_recall:
                approx = [pk for pk, _ in nearest[:10]]
                with connection.cursor() as cursor:
                    cursor.execute("SET LOCAL enable_indexscan = off")
                    cursor.execute("SET LOCAL enable_bitmapscan = off")
                exact = [pk for pk, _ in product.nearest_memories(memories, vector, 10)]
                with connection.cursor() as cursor:
                    cursor.execute("RESET enable_indexscan")
                    cursor.execute("RESET enable_bitmapscan")
                recall.append(len(set(approx) & set(exact)) / max(1, len(exact)))
                # Rows are perturbed copies of sample turns: did the index find the same turns?
                text_of = dict(Memory.objects.filter(pk__in=approx + exact).values_list("pk", "content"))
                exact_turns = {text_of[pk] for pk in exact}
                turn_recall.append(
                    len({text_of[pk] for pk in approx} & exact_turns) / max(1, len(exact_turns))
                )
        out["channels_ms"] = {k: latency_summary(v) for k, v in timings.items()}
        out["text_rows_matching_any_word"] = latency_summary([float(x) for x in text_rows])
        out["text_rows_scored_by_bm25"] = latency_summary([float(x) for x in candidate_rows])
        out["hnsw_recall_at_10_vs_exact"] = sum(recall) / len(recall) if recall else None
        out["hnsw_turn_recall_at_10_vs_exact"] = sum(turn_recall) / len(turn_recall) if turn_recall else None
        # Does the vector channel's SQL use the HNSW index?
        literal = "[" + ",".join(f"{v:.7f}" for v in vectors[0]) + "]"
        from django.db.models.expressions import RawSQL

        qs = (
            memories.filter(embedding_dim=product.VECTOR_DIM)
            .annotate(
                distance=RawSQL("(memory_memory.embedding::vector(384)) <=> %s::vector(384)", [literal])
            )
            .order_by("distance")
            .values_list("pk", "distance")[: product.CHANNEL_DEPTH]
        )
        sql, params = qs.query.sql_with_params()
        with connection.cursor() as cursor:
            cursor.execute("SELECT set_config('hnsw.iterative_scan', 'relaxed_order', true)")
            cursor.execute("SELECT set_config('hnsw.ef_search', '100', true)")
            cursor.execute("EXPLAIN " + sql, params)
            plan = "\n".join(str(r[0]) for r in cursor.fetchall())
        out["vector_plan_uses_hnsw"] = HNSW_INDEX in plan
        out["vector_plan"] = [line[:160] for line in plan.splitlines()[:3]]
        # The archivist's SIMILAR query (memory/services/archivist.py: archivist_similar), for a few memories.
        sims = []
        for memory in (
            Memory.objects.filter(project_id=place.project_id)
            .exclude(embedding__isnull=True)
            .order_by("?")[:5]
        ):
            start = time.perf_counter()
            archivist_similar(memory)  # the real step: its neighbour query and the links it writes
            sims.append((time.perf_counter() - start) * 1000)
        out["archivist_similar_query_ms"] = latency_summary(sims)
        # The write path's plan-limit counts (memory/services/memories.py: _check_limits).
        from accounts.models import Workspace

        draft = MemoryDraft(
            project=key.project,
            workspace=Workspace.objects.get(pk=place.workspace_id),
            author=member,
            access_key=key,
            content="x",
        )
        limits = []
        for _ in range(5):
            start = time.perf_counter()
            _check_limits(draft)
            limits.append((time.perf_counter() - start) * 1000)
        out["write_limit_counts_ms"] = latency_summary(limits)
    return out


def hold_cluster(tenant: BenchTenant, place: Place) -> None:
    """Keep the loaded cluster up for experiments from other processes, which attach to it with
    ``MNEMOS_PGDATA`` (and config.settings_test) as written in bench/out/scale/hold.json."""
    info = {
        "MNEMOS_PGDATA": os.environ.get("MNEMOS_PGDATA", ""),
        "secret": next(iter(tenant.projects.values())).secret,
        "enterprise_id": str(place.enterprise_id),
        "project_id": str(place.project_id),
        "member_id": place.member_id,
        "key_id": str(place.key_id),
        "task_id": str(place.task_id),
    }
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "hold.json").write_text(json.dumps(info, indent=1), encoding="utf-8")
    print(f"holding the cluster: {OUT / 'hold.json'}; Ctrl-C ends", flush=True)
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        pass


def profile_tools(secret: str, queries: Sequence[str], n: int) -> dict[str, list[dict[str, Any]]]:
    """cProfile over ``n`` in-process calls of each read/write tool through the tool door
    (``core.dispatch.tool_dispatch``, the same path as REST minus HTTP): the product functions
    with the most cumulative time, in ms per call."""
    import cProfile

    from core.dispatch import tool_dispatch

    calls: dict[str, Callable[[str], dict[str, Any]]] = {
        "search_memory": lambda q: {"query": q, "top_k": 10},
        "list_memory_timeline": lambda q: {},
        "save_memory": lambda q: {
            "summary": f"Bench: {q}",
            "content": f"Bench: {q}",
            "entities": [{"name": "Bench", "type": "person"}],
        },
    }
    out: dict[str, list[dict[str, Any]]] = {}
    for name, arguments in calls.items():
        profiler = cProfile.Profile()
        profiler.enable()
        for q in queries[:n]:
            outcome = tool_dispatch(secret=secret, name=name, arguments=arguments(q), surface="rest")
            if outcome.error is not None:
                raise RuntimeError(f"{name}: {outcome.error}")
        profiler.disable()
        OUT.mkdir(parents=True, exist_ok=True)
        profiler.dump_stats(OUT / f"profile-{name}.pstats")  # for pstats / snakeviz: every function
        out[name] = product_functions(profiler, per=n, unit="call", top=18)
    return out


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated memory counts, ascending")
    parser.add_argument(
        "--sample", type=int, default=3000, help="distinct LoCoMo turns embedded (default 3000)"
    )
    parser.add_argument("--noise", type=float, default=0.15, help="length of the noise added to each vector")
    parser.add_argument("--task-every", type=int, default=10, help="every n-th row is a task-layer note")
    parser.add_argument("--queries", type=int, default=200, help="measured search_memory calls per size")
    parser.add_argument("--asks", type=int, default=100, help="measured memory.ask calls per size")
    parser.add_argument(
        "--timelines", type=int, default=50, help="measured list_memory_timeline calls per size"
    )
    parser.add_argument(
        "--recall-queries", type=int, default=30, help="queries checked against an exact scan"
    )
    parser.add_argument(
        "--maintenance-work-mem",
        default="4GB",
        help="the index builds' session maintenance_work_mem ('' keeps the server's 64MB)",
    )
    parser.add_argument(
        "--omp-passive",
        action="store_true",
        help="run the web server with OMP_WAIT_POLICY=PASSIVE (default: the environment as it is)",
    )
    parser.add_argument("--index-timeout", type=int, default=1800, help="seconds allowed per index build")
    parser.add_argument(
        "--profile", type=int, default=0, help="also profile N in-process calls of each tool per size"
    )
    parser.add_argument(
        "--hold",
        action="store_true",
        help="after the last size keep the cluster up (bench/out/scale/hold.json says how to attach) until Ctrl-C",
    )
    parser.add_argument(
        "--no-prewarm",
        dest="prewarm",
        action="store_false",
        help="measure right after the bulk load, with the tables not yet in shared buffers (see prewarm())",
    )
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    summary_path = OUT / f"summary-{'-'.join(str(s) for s in sizes)}.json"

    wall = time.perf_counter()
    setup_django()
    prepare_database()
    turns, questions = sample_turns(args.sample, args.seed, args.data)
    vectors, model, embed_s = embed_sample(turns, args.seed)
    print(
        f"sample: {len(turns)} distinct turns, embedded by {model} in {embed_s:.0f} s "
        f"({'cached' if not embed_s else f'{len(turns) / embed_s:.1f} passages/s'}); load {load_avg():.2f}",
        flush=True,
    )
    queries = questions[:]
    random.Random(args.seed).shuffle(queries)
    tenant = build_tenant(slug=f"scale-{uuid.uuid4().hex[:6]}", project_slugs=["scale"], plan="enterprise")
    place = make_place(tenant, {t.speaker for t in turns})
    conn = owner_connect()
    defs = index_defs(conn)
    summary: dict[str, Any] = {
        "settings": vars(args) | {"data": str(args.data)},
        "embedder": model,
        "sample_embed_s": embed_s,
        "server": server_settings(conn),
        "index_definitions": defs,
        "cores": os.cpu_count(),
        "sizes": {},
    }
    print(f"server: {json.dumps(summary['server'])}", flush=True)
    summary["stage_s"] = stage(conn, place, turns, vectors, args.noise, args.seed)

    loaded = 0
    with web_server({"OMP_WAIT_POLICY": "PASSIVE"} if args.omp_passive else None) as base:
        for size in sizes:
            print(f"\n== {size:,} memories", flush=True)
            result: dict[str, Any] = {"load_avg_start": load_avg()}
            result |= load_rows(
                conn,
                place,
                start=loaded,
                stop=size,
                sample_size=len(turns),
                model=model,
                task_every=args.task_every,
            )
            loaded = size
            print(f"rows: {json.dumps({k: round(v, 1) for k, v in result.items()})}", flush=True)
            result |= build_indexes(
                conn, defs, maintenance_mem=args.maintenance_work_mem or None, timeout_s=args.index_timeout
            )
            result |= sizes_now(conn)
            if args.prewarm:
                result |= prewarm()
            print(
                "indexes: "
                + json.dumps(
                    {
                        k: (round(v, 1) if isinstance(v, float) else v)
                        for k, v in result.items()
                        if "build" in k or "error" in k or "mib" in k
                    }
                ),
                flush=True,
            )
            if result.get("hnsw_missing"):
                result["not_measured"] = "the HNSW build did not finish within --index-timeout"
                summary["sizes"][str(size)] = result
                print(
                    f"HNSW build over {size:,} did not finish in {args.index_timeout} s: not measured",
                    flush=True,
                )
                break
            api_measures(result, base, tenant, place, queries, args.queries, args.asks, args.timelines)
            summary["sizes"][str(size)] = result
            print(
                "API: "
                + "; ".join(
                    f"{name} {fmt_ms(result[f'{name}_ms'])}"
                    if f"{name}_ms" in result
                    else f"{name} refused: {result.get(f'{name}_error')}"
                    for name in ("search", "ask", "timeline", "save")
                )
                + f"; ask evidence {result.get('ask_evidence_mean', 0):.1f}",
                flush=True,
            )
            result |= in_process_measures(tenant, place, queries, min(args.queries, 100), args.recall_queries)
            print(
                "in process: "
                + "; ".join(f"{k} {fmt_ms(v)}" for k, v in result["channels_ms"].items())
                + f"; rows matching any query word p50 {result['text_rows_matching_any_word']['p50']:.0f}"
                + f"; HNSW recall@10 {result['hnsw_recall_at_10_vs_exact']:.3f}"
                + f" (same turns: {result['hnsw_turn_recall_at_10_vs_exact']:.3f})"
                + f"; plan uses HNSW: {result['vector_plan_uses_hnsw']}"
                + f"; archivist neighbour query {fmt_ms(result['archivist_similar_query_ms'])}"
                + f"; write limit counts {fmt_ms(result['write_limit_counts_ms'])}",
                flush=True,
            )
            if args.profile:
                secret = next(iter(tenant.projects.values())).secret
                result["profile"] = profile_tools(secret, queries, args.profile)
                for tool, rows in result["profile"].items():
                    print(
                        f"profile {tool}: "
                        + "; ".join(f"{r['function']} {r['ms_per_call']:.1f}" for r in rows[:8]),
                        flush=True,
                    )
            result["load_avg_end"] = load_avg()
            summary["sizes"][str(size)] = result
            OUT.mkdir(parents=True, exist_ok=True)
            summary_path.write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
        if args.hold:
            hold_cluster(tenant, place)
    conn.close()
    summary["wall_s"] = time.perf_counter() - wall
    OUT.mkdir(parents=True, exist_ok=True)
    summary_path.write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    print(f"\nsummary in {summary_path.relative_to(ROOT)}; wall {summary['wall_s']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
