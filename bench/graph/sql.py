"""The SQL block of bench/graph: query_memories_with_sql against the same text run raw.

Five queries (``SQL_QUERIES``), each through five variants in turn (``sql_measures``): the tool over HTTP,
``tool_dispatch`` in process, ``sql_run`` in process, the text raw as the owner role with the tool's settings
(``sql_settings``, ``raw_run``) and the base-table equivalent; ``explain`` gives the raw plan.
Run from ``bench.graph.run`` (``--only sql``).
"""

from __future__ import annotations

import json
import time
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from typing import Any

from bench.locomo.harness import Api, ApiError, BenchTenant, fmt_ms, latency_summary
from bench.locomo.run import load_avg
from bench.scale.run import Place


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
