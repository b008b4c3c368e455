"""Structured reads at scale: query_memory_graph and query_memories_with_sql over one project.

    .venv/bin/python -m bench.graph.run [--sizes 10000,100000] [--queries 100] [--only seed,shares,sql,profile]

On a throwaway embedded cluster (config.settings_test), one enterprise on the ``enterprise`` plan, one
project, one all-scope access key, one web server (uvicorn), all calls through ``POST /v1/tools/<name>``.

Rows: bench/scale's bulk loader (``bench.scale.run``: ``sample_turns``, ``embed_sample``, ``make_place``,
``stage``, ``load_rows``, ``build_indexes``), imported as is: ``--sample`` distinct guarded LoCoMo turns,
real vectors plus noise, row g takes turn ``g mod S``; every row gets a ``memory_memoryentity`` link to its
turn's speaker. This bench adds, per turn, up to ``--names-per-turn`` capitalised names written inside a
sentence (``Caroline``, ``Boston``, ``Potter``; weekdays, months and a few function words left out),
folded as the app folds them (``memory.text.fold``); the new entities are COPYed into
``memory_entity`` and the links INSERTed into ``memory_memoryentity`` as the owner role, with the
enterprise set (RLS), for every loaded row whose turn names any.

At each size, after warm-up, through HTTP:

- ``seed``: the seed's example, ``START a = events(text: $q, k: 3) MATCH (a)-[:PARTICIPATED_IN]-(e)
  -[:PARTICIPATED_IN]-(b) RETURN b, count(DISTINCT e) AS shared ORDER BY shared DESC LIMIT 20``, with
  ``$q`` the LoCoMo questions (shuffled, seeded);
- ``shares``: ``START a = events(entity: $name, k: 20) MATCH (a)-[r:SHARES]-(b) RETURN count(DISTINCT b)``
  over the ``--names`` most linked entities, in turn;
- ``sql``: ``query_memories_with_sql`` on five queries (count by layer; memories x memory_entities x
  entities grouped by name, and the same without agent.memories; the newest 50; a keyword count),
  interleaved with ``tool_dispatch`` in process (no HTTP), ``sql_run`` in process (the tool alone), the same
  text run raw as the owner role in a tenant transaction (the tool's ``app.sql_*`` settings set, so the
  agent views return the same rows) and the equivalent over the base tables. The tool's overhead = tool -
  raw (same text); ``--sql-budget-s`` bounds the time spent per query and size.

Then, in process (the app role, one tenant transaction per call, as the door runs it), ``--profile`` calls
of each graph query with every SQL statement and every query embedding timed, to say where the time goes.

Machine load (1-minute load average) is taken before and after each block. JSON summary in
bench/out/graph/ (git-ignored).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import sys
import time
import uuid
from collections import Counter, defaultdict
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.graph.sql import SQL_QUERIES, explain, sql_measures, sql_settings
from bench.locomo.data import DEFAULT_DATA
from bench.locomo.harness import (
    ROOT,
    Api,
    BenchTenant,
    build_tenant,
    fmt_ms,
    latency_summary,
    prepare_database,
    setup_django,
)
from bench.locomo.run import load_avg, web_server
from bench.scale.run import (
    Place,
    SampleTurn,
    build_indexes,
    embed_sample,
    in_tenant,
    index_defs,
    load_rows,
    make_place,
    owner_connect,
    sample_turns,
    server_settings,
    sizes_now,
    stage,
)

OUT = ROOT / "bench" / "out" / "graph"
ALL_BLOCKS = ("seed", "shares", "sql", "profile")

SEED_QUERY = (
    "START a = events(text: $q, k: 3) MATCH (a)-[:PARTICIPATED_IN]-(e) -[:PARTICIPATED_IN]-(b) "
    "RETURN b, count(DISTINCT e) AS shared ORDER BY shared DESC LIMIT 20"
)
SHARES_QUERY = "START a = events(entity: $name, k: 20) MATCH (a)-[r:SHARES]-(b) RETURN count(DISTINCT b)"

# --------------------------------------------------------------------------- entities in the turns

_CAPITALISED = re.compile(r"\b[A-Z][a-z]{2,}\b")
NOT_NAMES = frozenset(
    re.findall(
        r"\w+",
        """
    The This That These Those There Then They Their What When Where Which While Who Why How And But
    Also Just Really Yeah Yes Wow Thanks Thank Hey Hello Good Great Sure Well Not Its
    Monday Tuesday Wednesday Thursday Friday Saturday Sunday Mon Tue Wed Thu Fri Sat Sun
    January February March April May June July August September October November December
    """,
    )
)


def names_in(turn: SampleTurn, speakers: frozenset[str], limit: int) -> list[str]:
    """Up to ``limit`` capitalised words written inside a sentence (speakers' names anywhere)."""
    body = turn.text.split(": ", 1)[1] if ": " in turn.text else turn.text
    found: dict[str, None] = {}
    for match in _CAPITALISED.finditer(body):
        word = match.group()
        if word in NOT_NAMES or word == turn.speaker:
            continue
        before = body[: match.start()].rstrip()
        sentence_start = not before or before[-1] in ".!?\"'(:[-"
        if sentence_start and word not in speakers:
            continue
        found[word] = None
        if len(found) >= limit:
            break
    return list(found)


@dataclass
class Names:
    """The sample's name links: turn index -> entity ids (beside its speaker's)."""

    links: list[tuple[int, int]]
    new_entities: int
    turns_with_names: int
    top: list[tuple[str, int]] = field(default_factory=list)


def stage_names(conn: Any, place: Place, turns: Sequence[SampleTurn], per_turn: int) -> Names:
    """The names' entities (those the speakers do not already cover) and a staging table of links."""
    from memory.text import fold

    speakers = frozenset(t.speaker for t in turns)
    per_turn_names = [names_in(t, speakers, per_turn) for t in turns]
    spelling: dict[str, str] = {}
    for names in per_turn_names:
        for name in names:
            spelling.setdefault(fold(name), name)
    with conn.cursor() as cur, conn.transaction():
        # COPY cannot write a table under row-level security: COPY to a staging table, then INSERT.
        cur.execute("DROP TABLE IF EXISTS bench_graph_entities")
        cur.execute("CREATE UNLOGGED TABLE bench_graph_entities (name text, key text PRIMARY KEY, type text)")
        with cur.copy("COPY bench_graph_entities (name, key, type) FROM STDIN") as copy:
            for key, name in sorted(spelling.items()):
                copy.write_row((name, key, "person" if name in speakers else "name"))
        in_tenant(cur, place.enterprise_id)
        cur.execute(
            "INSERT INTO memory_entity (enterprise_id, name, key, type, deprecated, created_at) "
            "SELECT %s, name, key, type, false, timestamptz '2023-01-01 00:00:00+00' FROM bench_graph_entities "
            "ON CONFLICT (enterprise_id, key) DO NOTHING",
            [place.enterprise_id],
        )
        fresh = cur.rowcount
        cur.execute("SELECT key, id FROM memory_entity WHERE key = ANY(%s)", [list(spelling)])
        ids = {str(k): int(i) for k, i in cur.fetchall()}
    links = sorted(
        {(i, ids[fold(name)]) for i, names in enumerate(per_turn_names) for name in names}
        - {(i, place.entity_ids[t.speaker]) for i, t in enumerate(turns)}
    )
    with conn.cursor() as cur:
        cur.execute("DROP TABLE IF EXISTS bench_graph_names")
        cur.execute(
            "CREATE UNLOGGED TABLE bench_graph_names (i int, entity_id bigint, PRIMARY KEY (i, entity_id))"
        )
        with cur.copy("COPY bench_graph_names (i, entity_id) FROM STDIN") as copy:
            for row in links:
                copy.write_row(row)
    counts = Counter(name for names in per_turn_names for name in names)
    return Names(
        links=links,
        new_entities=fresh,
        turns_with_names=sum(1 for names in per_turn_names if names),
        top=counts.most_common(15),
    )


def link_names(conn: Any, place: Place, sample_size: int) -> float:
    """Name links for the rows load_rows just wrote (bench_scale_rows holds their g -> id)."""
    start = time.perf_counter()
    with conn.cursor() as cur, conn.transaction():
        in_tenant(cur, place.enterprise_id)
        cur.execute(
            "INSERT INTO memory_memoryentity (enterprise_id, memory_id, entity_id) "
            "SELECT %s, r.id, n.entity_id FROM bench_scale_rows r JOIN bench_graph_names n ON n.i = r.g %% %s "
            "ON CONFLICT DO NOTHING",
            [place.enterprise_id, sample_size],
        )
    with conn.cursor() as cur:
        cur.execute("ANALYZE memory_memoryentity")
        cur.execute("ANALYZE memory_entity")
    return time.perf_counter() - start


def graph_shape(conn: Any, place: Place, top: int) -> dict[str, Any]:
    """Counts of the loaded graph, and the ``top`` most linked entities (the shares names)."""
    with conn.cursor() as cur, conn.transaction():
        in_tenant(cur, place.enterprise_id)
        cur.execute("SELECT count(*) FROM memory_memory WHERE project_id = %s", [place.project_id])
        memories = int(cur.fetchone()[0])
        cur.execute(
            "SELECT count(*), count(DISTINCT memory_id), count(DISTINCT entity_id) FROM memory_memoryentity"
        )
        links, linked, entities = (int(v) for v in cur.fetchone())
        cur.execute(
            "SELECT count(*) FILTER (WHERE n >= 2), count(*) FILTER (WHERE n >= 3), max(n) "
            "FROM (SELECT memory_id, count(*) AS n FROM memory_memoryentity GROUP BY memory_id) x"
        )
        two, three, most = (int(v or 0) for v in cur.fetchone())
        cur.execute(
            "SELECT e.name, count(*) AS n FROM memory_memoryentity me JOIN memory_entity e ON e.id = me.entity_id "
            "GROUP BY e.name ORDER BY n DESC, e.name LIMIT %s",
            [top],
        )
        frequent = [(str(n), int(c)) for n, c in cur.fetchall()]
        cur.execute(
            "SELECT percentile_disc(ARRAY[0.5, 0.9, 1.0]) WITHIN GROUP (ORDER BY n) "
            "FROM (SELECT entity_id, count(*) AS n FROM memory_memoryentity GROUP BY entity_id) x"
        )
        per_entity = [int(v) for v in cur.fetchone()[0]]
    return {
        "memories": memories,
        "entity_links": links,
        "memories_with_entities": linked,
        "memories_with_2plus_entities": two,
        "memories_with_3plus_entities": three,
        "max_entities_per_memory": most,
        "entities_linked": entities,
        "links_per_entity_p50_p90_max": per_entity,
        "frequent_entities": frequent,
    }


# --------------------------------------------------------------------------- measuring


def timed_calls(call: Callable[[int], float], n: int, warmup: int) -> list[float]:
    for i in range(warmup):
        call(i)
    return [call(warmup + i) for i in range(n)]


@contextmanager
def load_window(out: dict[str, Any], name: str) -> Iterator[None]:
    before = load_avg()
    start = time.perf_counter()
    yield
    out[f"{name}_load_avg"] = [round(before, 2), round(load_avg(), 2)]
    out[f"{name}_wall_s"] = round(time.perf_counter() - start, 1)


def graph_api(
    api: Api,
    secret: str,
    blocks: set[str],
    questions: Sequence[str],
    names: Sequence[str],
    n: int,
    warmup: int,
) -> dict[str, Any]:
    out: dict[str, Any] = {}

    def graph(query: str, params: dict[str, Any], seen: dict[str, Any]) -> float:
        body, ms = api.tool(secret, "query_memory_graph", {"query": query, "params": params})
        if body.get("error"):
            raise RuntimeError(f"query refused: {body}")
        seen["rows"].append(int(body["row_count"]))
        seen["walk_rows"].append(int(body["budget"]["walk_rows"]))
        seen["start_returned"].append(int(body["start"]["returned"]))
        seen["partial"] += bool(body["partial"])
        for cut in body["truncated"] or []:
            seen["caps"][f"{cut['stage']}:{cut['cap']}"] += 1
        columns, rows = body["columns"], body["rows"]
        if rows and "shared" in columns:
            seen["value"].append(max(int(r[columns.index("shared")]) for r in rows))
        elif rows and len(columns) == 1:
            seen["value"].append(int(rows[0][0]))
        return ms

    def fresh() -> dict[str, Any]:
        return {
            "rows": [],
            "walk_rows": [],
            "start_returned": [],
            "partial": 0,
            "caps": Counter(),
            "value": [],
        }

    def mean(xs: Sequence[float]) -> float | None:
        return sum(xs) / len(xs) if xs else None

    def digest(seen: dict[str, Any], measured: int) -> dict[str, Any]:
        return {
            "rows_mean": mean(seen["rows"]),
            "walk_rows_mean": mean(seen["walk_rows"]),
            "walk_rows_max": max(seen["walk_rows"], default=None),
            "start_returned_mean": mean(seen["start_returned"]),
            "partial_share": seen["partial"] / max(1, len(seen["rows"])),
            "truncated_caps": dict(seen["caps"]),
            "value_mean": mean(seen["value"]),
            "value_max": max(seen["value"], default=None),
            "calls": len(seen["rows"]),
            "measured": measured,
        }

    if "seed" in blocks:
        seen = fresh()
        with load_window(out, "seed"):
            out["seed_ms"] = latency_summary(
                timed_calls(
                    lambda i: graph(SEED_QUERY, {"q": questions[i % len(questions)]}, seen), n, warmup
                )
            )
        out["seed_result"] = digest(seen, n)
        print(f"  seed example: {fmt_ms(out['seed_ms'])}; {json.dumps(out['seed_result'])}", flush=True)
    if "shares" in blocks:
        seen = fresh()
        with load_window(out, "shares"):
            out["shares_ms"] = latency_summary(
                timed_calls(lambda i: graph(SHARES_QUERY, {"name": names[i % len(names)]}, seen), n, warmup)
            )
        out["shares_result"] = digest(seen, n)
        print(
            f"  shared-entity count: {fmt_ms(out['shares_ms'])}; {json.dumps(out['shares_result'])}",
            flush=True,
        )
    return out


# --------------------------------------------------------------------------- where the graph time goes


def _label(sql: str) -> str:
    s = " ".join(sql.split())
    marks = (
        ("PARTITION BY me1.memory_id", "SHARES hop"),
        ("me.entity_id AS src, me.memory_id AS dst", "PARTICIPATED_IN hop entity->events"),
        ("me.memory_id AS src, me.entity_id AS dst", "PARTICIPATED_IN hop event->entities"),
        ("WITH RECURSIVE back", "order_index"),
        ("SAVEPOINT", "savepoints"),
        ('"memory_entityrename"', "entity renames"),
        ("statement_timeout", "set statement_timeout"),
        ("set_config", "set_config"),
        ("to_tsquery", "start: text channel"),
        ("websearch_to_tsquery", "start: text channel"),
        ("ts_rank", "start: text channel"),
        ("<=>", "start: vector channel / cosines"),
        ('FROM "memory_entity"', "entity lookup / load"),
        ('"memory_memoryentity"', "start: entity scope / entity channel"),
        ('SELECT "memory_memory"."id", "memory_memory"."summary"', "event load"),
        ("accounts_", "accounts lookups"),
    )
    for mark, label in marks:
        if mark in s:
            return label
    return "other: " + s[:80]


def graph_profile(
    tenant: BenchTenant, place: Place, questions: Sequence[str], names: Sequence[str], n: int
) -> dict[str, Any]:
    """graph_query in process, one tenant transaction per call; each statement and query embedding timed."""
    from django.db import connection

    from accounts.models import AccessKey, Member
    from core.tenancy import tenant_context
    from memory.embedding import get_embedder
    from memory.graph import graph_query
    from memory.selectors.search import scope_for_key, scoped_memories

    embedder = get_embedder()
    original = embedder.embed_query
    statements: dict[str, list[float]] = defaultdict(list)
    embeds: list[float] = []

    def timed_embed(text: str) -> list[float]:
        start = time.perf_counter()
        try:
            return original(text)
        finally:
            embeds.append((time.perf_counter() - start) * 1000)

    def wrapper(execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        start = time.perf_counter()
        try:
            return execute(sql, params, many, context)
        finally:
            statements[_label(sql)].append((time.perf_counter() - start) * 1000)

    out: dict[str, Any] = {}
    cases = {
        "seed": (SEED_QUERY, [{"q": q} for q in questions]),
        "shares": (SHARES_QUERY, [{"name": name} for name in names]),
    }
    embedder.embed_query = timed_embed  # type: ignore[method-assign]
    try:
        for case, (query, params) in cases.items():
            totals: list[float] = []
            statements.clear()
            embeds.clear()
            for i in range(n + 3):
                if i == 3:  # three warm-ups
                    statements.clear()
                    embeds.clear()
                    totals.clear()
                start = time.perf_counter()
                with (
                    connection.execute_wrapper(wrapper),
                    tenant_context(enterprise_id=tenant.enterprise_id, door="bench"),
                ):
                    member = Member.objects.get(pk=place.member_id)
                    key = AccessKey.objects.get(pk=place.key_id)
                    visible = scoped_memories(scope_for_key(member=member, key=key))
                    graph_query(visible=visible, query=query, params=params[i % len(params)])
                totals.append((time.perf_counter() - start) * 1000)
            sql_total = sum(sum(v) for v in statements.values())
            embed_total = sum(embeds)
            wall = sum(totals)
            out[case] = {
                "total_ms": latency_summary(totals),
                "per_call_mean_ms": {
                    "sql": sql_total / n,
                    "embed_query": embed_total / n,
                    "python_and_driver": (wall - sql_total - embed_total) / n,
                },
                "embed_query_calls_per_call": len(embeds) / n,
                "statements_per_call": sum(len(v) for v in statements.values()) / n,
                "statements": {
                    label: {
                        "calls_per_call": len(v) / n,
                        "mean_ms": sum(v) / len(v),
                        "ms_per_call": sum(v) / n,
                    }
                    for label, v in sorted(statements.items(), key=lambda kv: -sum(kv[1]))
                },
            }
            top = list(out[case]["statements"].items())[:4]
            print(
                f"  profile {case}: {fmt_ms(out[case]['total_ms'])}; per call "
                + json.dumps({k: round(v, 1) for k, v in out[case]["per_call_mean_ms"].items()})
                + f"; embeds/call {out[case]['embed_query_calls_per_call']:.1f}"
                + f"; statements/call {out[case]['statements_per_call']:.1f}; top "
                + "; ".join(
                    f"{label} {s['ms_per_call']:.1f} ms ({s['calls_per_call']:.1f}x)" for label, s in top
                ),
                flush=True,
            )
    finally:
        embedder.embed_query = original  # type: ignore[method-assign]
    return out


# --------------------------------------------------------------------------- main


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=(__doc__ or "").split("\n\n")[0])
    parser.add_argument("--sizes", default="10000,100000", help="comma-separated memory counts, ascending")
    parser.add_argument(
        "--queries", type=int, default=100, help="measured calls per query and size (default 100)"
    )
    parser.add_argument("--warmup", type=int, default=20, help="unmeasured calls first (default 20)")
    parser.add_argument(
        "--only", default=",".join(ALL_BLOCKS), help=f"which blocks to run (default {','.join(ALL_BLOCKS)})"
    )
    parser.add_argument(
        "--sql-timeout-ms",
        type=int,
        default=20_000,
        help="the SQL tool's timeout_ms, and the raw runs' (20000)",
    )
    parser.add_argument(
        "--sql-budget-s", type=float, default=45, help="seconds of measuring per SQL query and size (45)"
    )
    parser.add_argument("--min-rounds", type=int, default=3, help="measured rounds of a SQL query at least")
    parser.add_argument("--profile", type=int, default=20, help="in-process profiled calls per graph query")
    parser.add_argument(
        "--names", type=int, default=20, help="the most linked entities the shares query uses"
    )
    parser.add_argument("--names-per-turn", type=int, default=3, help="capitalised names linked per turn")
    parser.add_argument(
        "--sample", type=int, default=3000, help="distinct LoCoMo turns (bench/scale's --sample)"
    )
    parser.add_argument("--noise", type=float, default=0.15)
    parser.add_argument("--task-every", type=int, default=10)
    parser.add_argument("--maintenance-work-mem", default="1GB")
    parser.add_argument("--index-timeout", type=int, default=1800)
    parser.add_argument("--seed", type=int, default=7)
    parser.add_argument("--data", type=Path, default=DEFAULT_DATA)
    args = parser.parse_args(argv)
    sizes = sorted(int(s) for s in args.sizes.split(",") if s.strip())
    blocks = {b.strip() for b in args.only.split(",") if b.strip()}
    unknown = blocks - set(ALL_BLOCKS)
    if unknown:
        parser.error(f"unknown blocks {sorted(unknown)}; choose from {','.join(ALL_BLOCKS)}")

    wall = time.perf_counter()
    setup_django()
    prepare_database()
    turns, questions = sample_turns(args.sample, args.seed, args.data)
    vectors, model, embed_s = embed_sample(turns, args.seed)
    print(
        f"sample: {len(turns)} turns, {model}, embedded in {embed_s:.0f} s; load {load_avg():.2f}", flush=True
    )
    queries = questions[:]
    random.Random(args.seed).shuffle(queries)
    tenant = build_tenant(slug=f"graph-{uuid.uuid4().hex[:6]}", project_slugs=["graph"], plan="enterprise")
    place = make_place(tenant, {t.speaker for t in turns})
    secret = next(iter(tenant.projects.values())).secret
    conn = owner_connect()
    raw = owner_connect()
    raw.prepare_threshold = None  # plan every time, as the app's driver does
    defs = index_defs(conn)
    summary: dict[str, Any] = {
        "command": "python -m bench.graph.run " + " ".join(sys.argv[1:] if argv is None else argv),
        "settings": vars(args) | {"data": str(args.data)},
        "embedder": model,
        "server": server_settings(conn),
        "cores": os.cpu_count(),
        "queries": {
            "seed": SEED_QUERY,
            "shares": SHARES_QUERY,
            "sql": {q.name: q.agent for q in SQL_QUERIES},
        },
        "sizes": {},
    }
    summary["stage_s"] = stage(conn, place, turns, vectors, args.noise, args.seed)
    staged = stage_names(conn, place, turns, args.names_per_turn)
    summary["names"] = {
        "name_links_per_sample": len(staged.links),
        "new_entities": staged.new_entities,
        "turns_with_names": staged.turns_with_names,
        "top": staged.top,
    }
    print(f"names: {json.dumps(summary['names'])}", flush=True)
    setup = sql_settings(tenant, place)

    loaded = 0
    api = None
    try:
        with web_server() as base:
            api = Api(base, timeout=600)
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
                result["insert_name_links_s"] = link_names(conn, place, len(turns))
                loaded = size
                result |= build_indexes(
                    conn,
                    defs,
                    maintenance_mem=args.maintenance_work_mem or None,
                    timeout_s=args.index_timeout,
                )
                result |= sizes_now(conn)
                result["graph"] = graph_shape(conn, place, args.names)
                names = [name for name, _ in result["graph"]["frequent_entities"]]
                print(
                    "loaded: "
                    + json.dumps({k: round(v, 1) for k, v in result.items() if isinstance(v, float)})
                    + "\ngraph: "
                    + json.dumps({k: v for k, v in result["graph"].items() if k != "frequent_entities"})
                    + f"\nshares names: {result['graph']['frequent_entities']}",
                    flush=True,
                )
                if result.get("hnsw_missing"):
                    result["not_measured"] = "the HNSW build did not finish within --index-timeout"
                    summary["sizes"][str(size)] = result
                    break
                result |= graph_api(api, secret, blocks, queries, names, args.queries, args.warmup)
                if "sql" in blocks:
                    with load_window(result, "sql"):
                        result["sql"] = sql_measures(
                            api,
                            secret,
                            raw,
                            setup,
                            tenant,
                            place,
                            args.queries,
                            max(5, args.warmup // 2),
                            timeout_ms=args.sql_timeout_ms,
                            budget_s=args.sql_budget_s,
                            min_rounds=args.min_rounds,
                        )
                    result["sql_plans"] = {
                        q.name: explain(
                            raw,
                            setup,
                            q.agent,
                            analyze=result["sql"][q.name]["probe_ms"].get("raw_views", 1e9) < 5000,
                            timeout_ms=args.sql_timeout_ms,
                        )
                        for q in SQL_QUERIES
                    }
                if "profile" in blocks and args.profile:
                    with load_window(result, "profile"):
                        result["profile"] = graph_profile(tenant, place, queries, names, args.profile)
                result["load_avg_end"] = load_avg()
                result["retries_429"] = api.retries_429
                summary["sizes"][str(size)] = result
                OUT.mkdir(parents=True, exist_ok=True)
                (OUT / "summary.json").write_text(
                    json.dumps(summary, indent=1, default=str), encoding="utf-8"
                )
    finally:
        if api is not None:
            api.close()
        conn.close()
        raw.close()
    summary["wall_s"] = time.perf_counter() - wall
    OUT.mkdir(parents=True, exist_ok=True)
    (OUT / "summary.json").write_text(json.dumps(summary, indent=1, default=str), encoding="utf-8")
    print(f"\nsummary in {(OUT / 'summary.json').relative_to(ROOT)}; wall {summary['wall_s']:.0f} s")
    return 0


if __name__ == "__main__":
    sys.path.insert(0, str(ROOT))
    raise SystemExit(main())
