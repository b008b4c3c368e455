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
from functools import partial
from pathlib import Path
from typing import Any

from bench.locomo.data import DEFAULT_DATA
from bench.locomo.harness import (
    ROOT,
    Api,
    ApiError,
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


# --------------------------------------------------------------------------- the SQL tool against raw SQL


@dataclass(frozen=True)
class SqlQuery:
    name: str
    agent: str  # the tool's text, over the agent views
    tables: str  # the same rows from the base tables ({project} is the bench project)


SQL_QUERIES = (
    SqlQuery(
        "count_by_layer",
        "SELECT layer, count(*) AS n FROM agent.memories GROUP BY layer ORDER BY n DESC",
        "SELECT layer, count(*) AS n FROM memory_memory WHERE project_id = {project} AND forgotten_at IS NULL "
        "GROUP BY layer ORDER BY n DESC",
    ),
    SqlQuery(
        "entity_join_group_by",
        "SELECT e.name, count(*) AS memories FROM agent.memories m "
        "JOIN agent.memory_entities me ON me.memory_id = m.id JOIN agent.entities e ON e.id = me.entity_id "
        "GROUP BY e.name ORDER BY memories DESC, e.name LIMIT 20",
        "SELECT e.name, count(*) AS memories FROM memory_memory m "
        "JOIN memory_memoryentity me ON me.memory_id = m.id JOIN memory_entity e ON e.id = me.entity_id "
        "WHERE m.project_id = {project} AND m.forgotten_at IS NULL "
        "GROUP BY e.name ORDER BY memories DESC, e.name LIMIT 20",
    ),
    SqlQuery(
        # The same figures without the join to agent.memories (agent.memory_entities already keeps only
        # the links of readable memories): how an agent can write it when the join is slow.
        "entity_group_by_no_memories_join",
        "SELECT e.name, count(*) AS memories FROM agent.memory_entities me "
        "JOIN agent.entities e ON e.id = me.entity_id GROUP BY e.name ORDER BY memories DESC, e.name LIMIT 20",
        "SELECT e.name, count(*) AS memories FROM memory_memory m "
        "JOIN memory_memoryentity me ON me.memory_id = m.id JOIN memory_entity e ON e.id = me.entity_id "
        "WHERE m.project_id = {project} AND m.forgotten_at IS NULL "
        "GROUP BY e.name ORDER BY memories DESC, e.name LIMIT 20",
    ),
    SqlQuery(
        "recent_50",
        'SELECT id, "timestamp", summary FROM agent.memories ORDER BY "timestamp" DESC LIMIT 50',
        'SELECT id, "timestamp", summary FROM memory_memory WHERE project_id = {project} AND forgotten_at IS NULL '
        'ORDER BY "timestamp" DESC LIMIT 50',
    ),
    SqlQuery(
        "keyword_count",
        "SELECT count(*) AS n FROM agent.memories WHERE content ILIKE '%camping%'",
        "SELECT count(*) AS n FROM memory_memory WHERE project_id = {project} AND forgotten_at IS NULL "
        "AND content ILIKE '%camping%'",
    ),
)
RAW_SETUP = (
    "SELECT set_config('app.enterprise_id', %s, true), set_config('app.sql_member', %s, true), "
    "set_config('app.sql_projects', %s, true), set_config('app.sql_teams', %s, true), "
    "set_config('app.sql_roles', %s, true), set_config('app.sql_scope', %s, true), "
    "set_config('statement_timeout', %s, true)"
)
VARIANTS = ("tool", "dispatch", "in_process", "raw_views", "raw_tables")


class TimedOut(Exception):
    """A variant ran past --sql-timeout-ms."""


def sql_settings(tenant: BenchTenant, place: Place) -> list[str]:
    """The values sql_run sets for this key (memory/selectors/sql.py), for the raw runs."""
    from accounts.models import AccessKey, Member
    from core.tenancy import tenant_context
    from memory.selectors.search import scope_for_key
    from memory.selectors.visibility import projects_readable

    with tenant_context(enterprise_id=tenant.enterprise_id, door="bench"):
        member = Member.objects.get(pk=place.member_id)
        key = AccessKey.objects.get(pk=place.key_id)
        scope = scope_for_key(member=member, key=key)
        projects = [str(p) for p in projects_readable(member=member).values_list("pk", flat=True)]
        teams = [str(t) for t in member.teams.values_list("pk", flat=True)]
        roles = [str(r) for r in member.roles.values_list("pk", flat=True)]
    scoped = [str(p) for p in scope.project_ids] if scope.project_ids else []
    return [
        str(tenant.enterprise_id),
        str(member.pk),
        ",".join(projects),
        ",".join(teams),
        ",".join(roles),
        ",".join(scoped),
    ]


def raw_run(conn: Any, setup: list[str], timeout_ms: int, sql: str) -> tuple[int, float]:
    """One tenant transaction as the owner: BEGIN, the settings, the query (all rows fetched), COMMIT."""
    import psycopg

    start = time.perf_counter()
    try:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute(RAW_SETUP, [*setup, str(timeout_ms)])
            cur.execute(sql)
            rows = cur.fetchall()
    except psycopg.errors.QueryCanceled as exc:
        raise TimedOut(str(exc)) from exc
    return len(rows), (time.perf_counter() - start) * 1000


@dataclass
class Statements:
    """Counts the Django statements of the calls made under it."""

    count: int = 0
    calls: int = 0

    def wrapper(self, execute: Callable[..., Any], sql: str, params: Any, many: bool, context: Any) -> Any:
        self.count += 1
        return execute(sql, params, many, context)


def sql_measures(
    api: Api,
    secret: str,
    raw: Any,
    setup: list[str],
    tenant: BenchTenant,
    place: Place,
    n: int,
    warmup: int,
    *,
    timeout_ms: int,
    budget_s: float,
    min_rounds: int,
) -> dict[str, Any]:
    """Each query through the five variants in turn (rotated, so none always goes first).

    tool: HTTP to the web server; dispatch: ``tool_dispatch`` in this process (the door and the tool, no
    HTTP); in_process: ``sql_run`` in one tenant transaction (the tool alone); raw_views: the same text as
    the owner in a tenant transaction with the tool's settings; raw_tables: the base-table equivalent.
    A first round (a probe, unmeasured) sets how many rounds fit in ``budget_s`` for the query (at least
    ``min_rounds``, at most ``n``; warm-ups only when all ``n`` fit); a variant past ``timeout_ms`` is recorded
    as timed out and not run again.
    """
    from django.db import connection

    from accounts.models import AccessKey, Member
    from core.dispatch import tool_dispatch
    from core.tenancy import tenant_context
    from memory.selectors.search import scope_for_key
    from memory.selectors.sql import SqlRefused, sql_run

    counters = {name: Statements() for name in ("dispatch", "in_process")}

    def in_process(sql: str) -> tuple[int, float]:
        counter = counters["in_process"]
        start = time.perf_counter()
        try:
            with (
                connection.execute_wrapper(counter.wrapper),
                tenant_context(enterprise_id=tenant.enterprise_id, door="bench"),
            ):
                member = Member.objects.get(pk=place.member_id)
                key = AccessKey.objects.select_related("project").get(pk=place.key_id)
                result = sql_run(
                    scope=scope_for_key(member=member, key=key),
                    sql=sql,
                    max_rows=10_000,
                    timeout_ms=timeout_ms,
                )
        except SqlRefused as exc:
            if exc.rule == "timeout":
                raise TimedOut(str(exc)) from exc
            raise
        counter.calls += 1
        return len(result.rows), (time.perf_counter() - start) * 1000

    def dispatch(sql: str) -> tuple[int, float]:
        counter = counters["dispatch"]
        start = time.perf_counter()
        with connection.execute_wrapper(counter.wrapper):
            outcome = tool_dispatch(
                secret=secret,
                name="query_memories_with_sql",
                arguments={"sql": sql, "timeout_ms": timeout_ms},
                surface="rest",
            )
        ms = (time.perf_counter() - start) * 1000
        if outcome.error is not None:
            if "timeout" in outcome.error.message:
                raise TimedOut(outcome.error.message)
            raise RuntimeError(outcome.error.message)
        counter.calls += 1
        return int((outcome.output or {})["row_count"]), ms

    def tool(sql: str) -> tuple[int, float]:
        try:
            body, ms = api.tool(secret, "query_memories_with_sql", {"sql": sql, "timeout_ms": timeout_ms})
        except ApiError as exc:
            if "timeout" in str(exc):
                raise TimedOut(str(exc)) from exc
            raise
        return int(body["row_count"]), ms

    def diff(result: dict[str, Any], a: str, b: str) -> dict[str, float] | None:
        if a not in result or b not in result:
            return None
        return {q: result[a][q] - result[b][q] for q in ("p50", "p95")}

    out: dict[str, Any] = {}
    for query in SQL_QUERIES:
        tables_sql = query.tables.replace("{project}", f"'{place.project_id}'")
        variants: dict[str, Callable[[], tuple[int, float]]] = {
            "tool": partial(tool, query.agent),
            "dispatch": partial(dispatch, query.agent),
            "in_process": partial(in_process, query.agent),
            "raw_views": partial(raw_run, raw, setup, timeout_ms, query.agent),
            "raw_tables": partial(raw_run, raw, setup, timeout_ms, tables_sql),
        }
        for counter in counters.values():
            counter.count = counter.calls = 0
        samples: dict[str, list[float]] = defaultdict(list)
        rows: dict[str, set[int]] = defaultdict(set)
        timed_out: dict[str, float] = {}
        before = load_avg()
        # The first round is a probe: it decides how many rounds this query gets.
        probe: dict[str, float] = {}
        for name, run in variants.items():
            start = time.perf_counter()
            try:
                count, probe[name] = run()
                rows[name].add(count)
            except TimedOut:
                timed_out[name] = (time.perf_counter() - start) * 1000
        round_ms = sum(probe.values()) + sum(timed_out.values())
        fit = int(budget_s * 1000 / max(round_ms, 1.0))
        rounds_warm, rounds = (warmup, n) if fit >= n + warmup else (0, max(min_rounds, min(n, fit)))
        print(
            f"  sql {query.name}: probe "
            + json.dumps({k: round(v) for k, v in probe.items()})
            + (f", timed out {sorted(timed_out)}" if timed_out else "")
            + f"; {rounds} rounds",
            flush=True,
        )
        for i in range(rounds_warm + rounds):
            names = [v for v in VARIANTS if v not in timed_out]
            for name in names[i % len(names) :] + names[: i % len(names)]:
                try:
                    count, ms = variants[name]()
                except TimedOut:
                    timed_out[name] = float(timeout_ms)
                    continue
                rows[name].add(count)
                if i >= rounds_warm:
                    samples[name].append(ms)
        result: dict[str, Any] = {k: latency_summary(v) for k, v in samples.items() if k not in timed_out}
        result["measured_rounds"] = rounds
        result["probe_ms"] = probe
        result["timed_out"] = {k: {"timeout_ms": timeout_ms, "ran_ms": v} for k, v in timed_out.items()}
        result["overhead_tool_minus_raw_views_ms"] = diff(result, "tool", "raw_views")
        result["http_tool_minus_dispatch_ms"] = diff(result, "tool", "dispatch")
        result["door_dispatch_minus_in_process_ms"] = diff(result, "dispatch", "in_process")
        result["sql_run_in_process_minus_raw_views_ms"] = diff(result, "in_process", "raw_views")
        result["views_raw_views_minus_raw_tables_ms"] = diff(result, "raw_views", "raw_tables")
        result["statements_per_call"] = {k: c.count / c.calls for k, c in counters.items() if c.calls}
        result["rows"] = {k: sorted(v) for k, v in rows.items()}
        result["rows_agree"] = len({c for v in rows.values() for c in v}) == 1
        result["load_avg"] = [round(before, 2), round(load_avg(), 2)]
        out[query.name] = result
        print(
            f"  sql {query.name}: "
            + "; ".join(f"{k} {fmt_ms(result[k])}" for k in VARIANTS if k in result)
            + (f"; TIMED OUT {sorted(timed_out)} at {timeout_ms} ms" if timed_out else "")
            + f"; tool - raw {result['overhead_tool_minus_raw_views_ms']}"
            + f"; statements/call {result['statements_per_call']}; rows {result['rows']}",
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


def explain(conn: Any, setup: list[str], sql: str, *, analyze: bool, timeout_ms: int) -> str:
    """The plan of one statement as the owner, the tool's settings in force (EXPLAIN ANALYZE when asked)."""
    import psycopg

    how = "ANALYZE, BUFFERS" if analyze else "COSTS"
    try:
        with conn.transaction(), conn.cursor() as cur:
            cur.execute(RAW_SETUP, [*setup, str(timeout_ms)])
            cur.execute(f"EXPLAIN ({how}) " + sql)
            return "\n".join(str(r[0]) for r in cur.fetchall())
    except psycopg.errors.QueryCanceled:
        return explain(conn, setup, sql, analyze=False, timeout_ms=timeout_ms) if analyze else "timed out"


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
