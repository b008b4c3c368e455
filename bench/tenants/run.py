"""Many tenants in one primary: a plain memory table against one hash-partitioned by enterprise (issue 22).

    .venv/bin/python -m bench.tenants.run [--rows 1000000] [--enterprises 1000] [--partitions 16] [--queries 150]

A simulation in SQL on the embedded PostgreSQL 18 + pgvector (a database of its own, ``mnemos_sim``), with
the columns the read path filters and ranks on: enterprise, project, visibility layer, a tsvector, a
vector(384). Tenant sizes follow Zipf's law (s = 1.1): a few enterprises hold most rows and the median
one a few hundred, as in any multi-tenant service (the run reports the largest and the median). Vectors are clustered (one of 1,000 centres plus one
of 1,000 offsets, so every row is distinct and neighbours are real neighbours); texts draw ten words from
a 5,000-word Zipf vocabulary.

Two layouts, the same rows, the same indexes (b-tree on enterprise/project/visibility, GIN on the
tsvector, HNSW m 16 / ef_construction 64 on the vector):

    plain         one table, one HNSW graph for every tenant (Mnemos today)
    partitioned   PARTITION BY HASH (enterprise_id), N partitions, each with its own indexes

Measured for each: load and index build times, sizes; then for tenants in three size classes (small:
under 500 rows; medium: 500-20,000; the largest) the read path's two statements: the text channel
(tenant + visibility + tsquery, ranked, 50 rows) and the vector channel (tenant + visibility, 10 nearest,
``hnsw.iterative_scan = relaxed_order`` as Mnemos sets it) with its recall@10 against an exact scan, and
which plan PostgreSQL chose. A JSON summary goes to bench/out/tenants/.
"""

from __future__ import annotations

import argparse
import json
import os
import random
import time
from collections.abc import Sequence
from typing import Any

import numpy as np
import psycopg

from bench.locomo.harness import ROOT, cpu_model, latency_summary, setup_django

OUT = ROOT / "bench" / "out" / "tenants"
DIM = 384
CENTRES = 1000
VOCABULARY = 5000
WORDS_PER_ROW = 10
SIM_DB = "mnemos_sim"


def _sizes(rows: int, enterprises: int, s: float = 1.1) -> list[int]:
    weights = np.array([1.0 / (rank**s) for rank in range(1, enterprises + 1)])
    sizes = np.maximum(1, np.floor(weights / weights.sum() * rows)).astype(int)
    sizes[0] += rows - int(sizes.sum())
    return [int(x) for x in sizes]


def _vectors(n: int, rng: np.random.Generator, scale: float) -> list[str]:
    raw = rng.standard_normal((n, DIM)).astype(np.float32)
    raw /= np.linalg.norm(raw, axis=1, keepdims=True)
    raw *= scale
    return ["[" + ",".join(f"{v:.5f}" for v in row) + "]" for row in raw]


def _connect(server: Any, dbname: str) -> psycopg.Connection[Any]:
    from core.dbserver import SUPERUSER

    return psycopg.connect(host=server.host, port=server.port, user=SUPERUSER, dbname=dbname, autocommit=True)


def _prepare(server: Any, rng: np.random.Generator) -> None:
    with _connect(server, "postgres") as conn:
        conn.execute(f"DROP DATABASE IF EXISTS {SIM_DB}")
        conn.execute(f"CREATE DATABASE {SIM_DB}")
    with _connect(server, SIM_DB) as conn:
        conn.execute("CREATE EXTENSION vector")
        conn.execute(f"CREATE TABLE centre (k int PRIMARY KEY, v vector({DIM}))")
        conn.execute(f"CREATE TABLE offset_ (k int PRIMARY KEY, v vector({DIM}))")
        with conn.cursor() as cur:
            cur.executemany(
                "INSERT INTO centre VALUES (%s, %s)", list(enumerate(_vectors(CENTRES, rng, 1.0)))
            )
            cur.executemany(
                "INSERT INTO offset_ VALUES (%s, %s)", list(enumerate(_vectors(CENTRES, rng, 0.35)))
            )
        conn.execute("CREATE TABLE word (k int PRIMARY KEY, w text)")
        conn.execute(f"INSERT INTO word SELECT g, 'w' || g FROM generate_series(0, {VOCABULARY - 1}) g")


def _create(conn: psycopg.Connection[Any], table: str, partitions: int) -> None:
    columns = (
        "id bigint NOT NULL, enterprise_id int NOT NULL, project_id int NOT NULL, visibility smallint NOT NULL, "
        f"tsv tsvector NOT NULL, embedding vector({DIM}) NOT NULL"
    )
    if partitions:
        conn.execute(f"CREATE TABLE {table} ({columns}) PARTITION BY HASH (enterprise_id)")
        for i in range(partitions):
            conn.execute(
                f"CREATE TABLE {table}_p{i} PARTITION OF {table} FOR VALUES WITH (MODULUS {partitions}, REMAINDER {i})"
            )
    else:
        conn.execute(f"CREATE TABLE {table} ({columns})")


def _load(conn: psycopg.Connection[Any], table: str, sizes: Sequence[int]) -> float:
    """The same rows into either layout: one INSERT ... SELECT over the tenants' row numbers."""
    conn.execute("DROP TABLE IF EXISTS tenant_size")
    conn.execute("CREATE TABLE tenant_size (enterprise_id int, n int)")
    with conn.cursor() as cur:
        cur.executemany("INSERT INTO tenant_size VALUES (%s, %s)", list(enumerate(sizes, start=1)))
    start = time.perf_counter()
    # Word k of a row: a Zipf draw by inverse transform of a hashed uniform (deterministic per row).
    conn.execute(
        f"""
        INSERT INTO {table}
        SELECT row_number() OVER (), t.enterprise_id, t.enterprise_id * 10 + (g % 3), (g % 4)::smallint,
               (SELECT to_tsvector('simple', string_agg(w.w, ' ')) FROM generate_series(1, {WORDS_PER_ROW}) j
                  JOIN word w ON w.k = least({VOCABULARY - 1},
                     floor(exp(ln({VOCABULARY}) * ((hashint8(g * 131 + j + t.enterprise_id * 7919) & 65535) / 65536.0))) - 1)::int),
               c.v + o.v
        FROM tenant_size t, generate_series(1, t.n) g,
             LATERAL (SELECT v FROM centre WHERE k = ((t.enterprise_id * 37 + g / 50) % {CENTRES})) c,
             LATERAL (SELECT v FROM offset_ WHERE k = ((g * 7919 + t.enterprise_id) % {CENTRES})) o
        """
    )
    return time.perf_counter() - start


def _index(conn: psycopg.Connection[Any], table: str) -> dict[str, float]:
    took: dict[str, float] = {}
    for name, ddl in (
        ("btree", f"CREATE INDEX ON {table} (enterprise_id, project_id, visibility)"),
        ("gin", f"CREATE INDEX ON {table} USING gin (tsv)"),
        (
            "hnsw",
            f"CREATE INDEX ON {table} USING hnsw (embedding vector_cosine_ops) WITH (m = 16, ef_construction = 64)",
        ),
    ):
        start = time.perf_counter()
        conn.execute(ddl)
        took[name] = time.perf_counter() - start
    conn.execute(f"ANALYZE {table}")
    return took


def _size_mb(conn: psycopg.Connection[Any], table: str) -> dict[str, float]:
    row = conn.execute(
        """
        SELECT sum(pg_table_size(c.oid)), sum(pg_indexes_size(c.oid))
        FROM pg_class c WHERE c.relname = %s OR c.relname LIKE %s AND c.relkind = 'r'
        """,
        [table, f"{table}_p%"],
    ).fetchone()
    assert row is not None
    return {"table_mb": float(row[0] or 0) / 2**20, "indexes_mb": float(row[1] or 0) / 2**20}


def _plan(conn: psycopg.Connection[Any], sql: str, params: Sequence[Any]) -> str:
    text = "\n".join(r[0] for r in conn.execute("EXPLAIN " + sql, params).fetchall())
    if "hnsw" in text.lower() or "embedding_idx" in text:
        return "hnsw"
    if "Bitmap" in text or "Index Scan" in text or "Index Only" in text:
        return "btree+sort"
    return "seq"


def _queries(
    conn: psycopg.Connection[Any], table: str, tenants: dict[str, list[int]], queries: int, rng: random.Random
) -> dict[str, Any]:
    conn.execute("SET hnsw.iterative_scan = relaxed_order")
    conn.execute("SET hnsw.ef_search = 100")
    conn.execute("SET jit = off")
    text_sql = (
        f"SELECT id FROM {table} WHERE enterprise_id = %s AND visibility <= 2 AND tsv @@ to_tsquery('simple', %s) "
        "ORDER BY ts_rank(tsv, to_tsquery('simple', %s)) DESC LIMIT 50"
    )
    vector_sql = f"SELECT id FROM {table} WHERE enterprise_id = %s AND visibility <= 2 ORDER BY embedding <=> %s::vector LIMIT 10"
    out: dict[str, Any] = {}
    for bucket, ids in tenants.items():
        text_ms: list[float] = []
        vector_ms: list[float] = []
        recalls: list[float] = []
        plans: dict[str, int] = {}
        for i in range(queries):
            enterprise = ids[i % len(ids)]
            words = " | ".join(f"w{rng.randint(0, 200)}" for _ in range(3))
            start = time.perf_counter()
            conn.execute(text_sql, [enterprise, words, words]).fetchall()
            text_ms.append((time.perf_counter() - start) * 1000)
            query = conn.execute(
                f"SELECT embedding::text FROM {table} WHERE enterprise_id = %s OFFSET %s LIMIT 1",
                [enterprise, rng.randint(0, 20)],
            ).fetchone()
            if query is None:
                continue
            start = time.perf_counter()
            found = [r[0] for r in conn.execute(vector_sql, [enterprise, query[0]]).fetchall()]
            vector_ms.append((time.perf_counter() - start) * 1000)
            if i < 30:  # the exact answer and the plan, for the first 30 of each class
                plan = _plan(conn, vector_sql, [enterprise, query[0]])
                plans[plan] = plans.get(plan, 0) + 1
                with conn.transaction():
                    conn.execute("SET LOCAL enable_indexscan = off")
                    exact = [r[0] for r in conn.execute(vector_sql, [enterprise, query[0]]).fetchall()]
                recalls.append(len(set(found) & set(exact)) / max(1, len(exact)))
        out[bucket] = {
            "tenants": len(ids),
            "text_ms": latency_summary(text_ms),
            "vector_ms": latency_summary(vector_ms),
            "vector_recall_at_10": sum(recalls) / max(1, len(recalls)),
            "vector_plans": plans,
        }
    return out


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rows", type=int, default=1_000_000)
    parser.add_argument("--enterprises", type=int, default=1000)
    parser.add_argument("--partitions", type=int, default=16)
    parser.add_argument("--queries", type=int, default=150)
    args = parser.parse_args(argv)
    setup_django()
    from django.conf import settings

    from core.dbserver import Server

    default = settings.DATABASES["default"]
    server = Server(host=default["HOST"], port=int(default["PORT"]), embedded=True)
    rng = np.random.default_rng(7)
    _prepare(server, rng)
    sizes = _sizes(args.rows, args.enterprises)
    order = sorted(range(1, args.enterprises + 1), key=lambda e: sizes[e - 1])
    tenants = {
        "small (<500 rows)": [e for e in order if sizes[e - 1] < 500][-40:],
        "medium (500-20,000)": [e for e in order if 500 <= sizes[e - 1] <= 20_000][-40:],
        f"largest ({max(sizes):,} rows)": [order[-1]],
    }
    results: dict[str, Any] = {
        "args": vars(args),
        "largest_tenant_rows": max(sizes),
        "median_tenant_rows": int(np.median(sizes)),
        "layouts": {},
    }
    with _connect(server, SIM_DB) as conn:
        conn.execute("SET maintenance_work_mem = '2GB'")
        conn.execute("SET max_parallel_maintenance_workers = 1")
        for layout, partitions in (("plain", 0), ("partitioned", args.partitions)):
            table = f"sim_{layout}"
            _create(conn, table, partitions)
            load_s = _load(conn, table, sizes)
            build = _index(conn, table)
            size = _size_mb(conn, table)
            print(f"{layout}: load {load_s:.0f} s, indexes {build}, {size}", flush=True)
            reads = _queries(conn, table, tenants, args.queries, random.Random(11))
            results["layouts"][layout] = {"load_s": load_s, "index_s": build, **size, "reads": reads}
            print(json.dumps(reads, default=float)[:1500], flush=True)
            conn.execute(f"DROP TABLE {table}")  # the next layout has the disk and the cache to itself
    with _connect(server, "postgres") as conn:
        conn.execute(f"DROP DATABASE {SIM_DB}")
    results["cpu"] = cpu_model()
    results["cores"] = os.cpu_count()
    OUT.mkdir(parents=True, exist_ok=True)
    out = OUT / f"tenants-{time.strftime('%Y%m%d-%H%M%S')}.json"
    out.write_text(json.dumps(results, indent=2, default=float))
    print(f"summary: {out}")


if __name__ == "__main__":
    main()
