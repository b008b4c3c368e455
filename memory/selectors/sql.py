"""query_memories_with_sql: read-only SQL over the agent views, safe by construction.

Three layers, each enough alone:
1. the statement is parsed with PostgreSQL's own parser (pglast) and refused unless it is
   exactly one SELECT (or WITH of SELECTs) over the agent views, with allowlisted functions,
   no locking, no INTO, no catalogs;
2. it runs as ``mnemos_agent_sql``, a role that can SELECT the agent views and nothing else,
   in a READ ONLY subtransaction whose tenant and visibility settings it cannot change (the
   views filter by them; row-level security filters the tables under them);
3. ``statement_timeout`` from ``timeout_ms``, and a LIMIT of ``max_rows`` applied by wrapping.
"""

from __future__ import annotations

import datetime as dt
import decimal
import uuid
from dataclasses import dataclass
from typing import Any

from django.db import DatabaseError, transaction
from pglast import parse_sql
from pglast.parser import ParseError
from pglast.visitors import Visitor

from core.dbrouting import read_connection
from core.dbserver import AGENT_SQL_ROLE
from core.errors import Unprocessable
from memory.selectors.search import ReadScope
from memory.selectors.visibility import projects_readable

AGENT_SCHEMA = "agent"
AGENT_VIEWS: dict[str, str] = {
    "memories": "Memories you may read (forgotten ones never appear).",
    "entities": "Entities mentioned by memories you may read.",
    "memory_entities": "Which memory mentions which entity.",
    "tags": "Tags on memories you may read, with their groups (parents).",
    "memory_tags": "Which memory carries which tag.",
    "links": "Links between memories you may read: next, resolved_by, similar, duplicate, conflict, stale.",
    "projects": "Projects you may read.",
    "teams": "Teams of your enterprise.",
}
ALLOWED_FUNCTIONS = frozenset(
    [
        "count",
        "sum",
        "avg",
        "min",
        "max",
        "every",
        "bool_and",
        "bool_or",
        "array_agg",
        "string_agg",
        "json_agg",
        "jsonb_agg",
        "percentile_cont",
        "percentile_disc",
        "mode",
        "stddev",
        "variance",
        "row_number",
        "rank",
        "dense_rank",
        "percent_rank",
        "cume_dist",
        "ntile",
        "lag",
        "lead",
        "first_value",
        "last_value",
        "nth_value",
        "lower",
        "upper",
        "length",
        "char_length",
        "octet_length",
        "substring",
        "substr",
        "left",
        "right",
        "trim",
        "btrim",
        "ltrim",
        "rtrim",
        "replace",
        "concat",
        "concat_ws",
        "position",
        "strpos",
        "starts_with",
        "split_part",
        "initcap",
        "reverse",
        "repeat",
        "lpad",
        "rpad",
        "md5",
        "abs",
        "round",
        "floor",
        "ceil",
        "ceiling",
        "trunc",
        "sign",
        "sqrt",
        "power",
        "mod",
        "ln",
        "log",
        "exp",
        "greatest",
        "least",
        "now",
        "current_date",
        "date_trunc",
        "date_part",
        "extract",
        "age",
        "to_char",
        "to_date",
        "to_timestamp",
        "make_date",
        "make_interval",
        "cardinality",
        "array_length",
        "array_position",
        "unnest",
        "coalesce",
        "nullif",
        "regexp_replace",
        "regexp_match",
        "like_escape",
        "timezone",
        "text",
    ]
)
MAX_ROWS_CAP = 10_000
# The seed's default is also the ceiling: no call holds a connection (and the pool slot) longer.
MAX_TIMEOUT_MS = 5_000
FORBIDDEN_NODES = {
    "InsertStmt",
    "UpdateStmt",
    "DeleteStmt",
    "MergeStmt",
    "CopyStmt",
    "LockStmt",
    "VariableSetStmt",
    "TransactionStmt",
    "ExplainStmt",
    "CallStmt",
    "DoStmt",
    "IntoClause",
    "LockingClause",
}


class SqlRefused(Unprocessable):
    code = "sql_refused"

    def __init__(self, rule: str, detail: str) -> None:
        super().__init__(f"query refused by rule {rule}: {detail}", code="sql_refused", rule=rule)
        self.rule = rule


class _CteNames(Visitor):  # type: ignore[misc]
    def __init__(self) -> None:
        super().__init__()
        self.names: set[str] = set()

    def visit_CommonTableExpr(self, ancestors: Any, node: Any) -> None:
        self.names.add(node.ctename)


class _Checker(Visitor):  # type: ignore[misc]
    def __init__(self, ctes: set[str]) -> None:
        super().__init__()
        self.ctes = ctes
        self.problems: list[tuple[str, str]] = []

    def visit(self, ancestors: Any, node: Any) -> None:
        name = type(node).__name__
        if name in FORBIDDEN_NODES:
            rule = {"LockingClause": "no_locking", "IntoClause": "no_into"}.get(name, "select_only")
            self.problems.append((rule, f"{name} is not allowed"))

    def visit_CommonTableExpr(self, ancestors: Any, node: Any) -> None:
        if type(node.ctequery).__name__ != "SelectStmt":
            self.problems.append(("select_only", f"the WITH query {node.ctename!r} is not a SELECT"))

    def visit_RangeVar(self, ancestors: Any, node: Any) -> None:
        schema, relation = node.schemaname, node.relname
        if schema is None and relation in self.ctes:
            return
        if node.catalogname or (schema not in (None, AGENT_SCHEMA)) or relation not in AGENT_VIEWS:
            where = ".".join(p for p in (node.catalogname, schema, relation) if p)
            self.problems.append(
                (
                    "agent_views_only",
                    f"{where} is not one of the agent views ({', '.join(sorted(AGENT_VIEWS))})",
                )
            )

    def visit_FuncCall(self, ancestors: Any, node: Any) -> None:
        parts = [getattr(p, "sval", "") for p in node.funcname]
        name = parts[-1].lower()
        if (len(parts) > 1 and parts[0] != "pg_catalog") or name not in ALLOWED_FUNCTIONS:
            self.problems.append(("allowed_functions", f"function {'.'.join(parts)}() is not allowed"))

    def visit_RangeFunction(self, ancestors: Any, node: Any) -> None:
        self.problems.append(("agent_views_only", "functions in FROM are not allowed"))

    def visit_TypeCast(self, ancestors: Any, node: Any) -> None:
        names = [getattr(p, "sval", "") for p in node.typeName.names]
        if any(n.startswith("reg") or n in ("oid", "xid", "tid", "pg_lsn") for n in names):
            self.problems.append(("no_catalogs", f"casts to {names[-1]} reach the catalogs"))

    def visit_ColumnRef(self, ancestors: Any, node: Any) -> None:
        fields = [getattr(f, "sval", "") for f in node.fields if hasattr(f, "sval")]
        if len(fields) >= 3 and fields[0] != AGENT_SCHEMA:
            self.problems.append(("agent_views_only", f"{'.'.join(fields)} names another schema"))


def sql_check(sql: str) -> None:
    """Refuse anything but one SELECT over the agent views (layer 1). Raises SqlRefused(rule)."""
    if not sql.strip():
        raise SqlRefused("one_statement", "the query is empty")
    try:
        statements = parse_sql(sql)
    except ParseError as exc:
        raise SqlRefused("syntax", str(exc)) from exc
    if len(statements) != 1:
        raise SqlRefused("one_statement", f"exactly one statement is allowed, got {len(statements)}")
    statement = statements[0].stmt
    if type(statement).__name__ != "SelectStmt":
        raise SqlRefused("select_only", f"only SELECT and WITH are allowed, got {type(statement).__name__}")
    names = _CteNames()
    names(statements)
    checker = _Checker(names.names)
    checker(statements)
    if checker.problems:
        rule, detail = checker.problems[0]
        raise SqlRefused(rule, detail)


def agent_view_columns() -> list[tuple[str, str, str]]:
    """(view, column, data type) of every agent view's columns, by view and column position."""
    with read_connection().cursor() as cursor:
        cursor.execute(
            "SELECT table_name, column_name, data_type FROM information_schema.columns "
            "WHERE table_schema = %s ORDER BY table_name, ordinal_position",
            [AGENT_SCHEMA],
        )
        return [(table, column, type_) for table, column, type_ in cursor.fetchall()]


@dataclass
class SqlResult:
    columns: list[str]
    rows: list[list[Any]]
    truncated: bool


def _jsonable(value: Any) -> Any:
    if isinstance(value, (dt.datetime, dt.date, dt.time)):
        return value.isoformat()
    if isinstance(value, (uuid.UUID, decimal.Decimal, dt.timedelta)):
        return str(value)
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, memoryview):
        return None
    return value


def _set(cursor: Any, name: str, value: str) -> None:
    cursor.execute("SELECT set_config(%s, %s, true)", [name, value])


class _Done(Exception):
    """Leaves the savepoint by rolling it back: role, read-only mode and timeout all revert."""


def sql_run(*, scope: ReadScope, sql: str, max_rows: int, timeout_ms: int) -> SqlResult:
    sql_check(sql)
    max_rows = max(1, min(MAX_ROWS_CAP, max_rows))
    timeout_ms = max(1, min(MAX_TIMEOUT_MS, timeout_ms))
    member = scope.member
    projects = [str(p) for p in projects_readable(member=member).values_list("pk", flat=True)]
    teams = [str(t) for t in member.teams.values_list("pk", flat=True)]
    roles = [str(r) for r in member.roles.values_list("pk", flat=True)]
    scope_projects = [str(p) for p in scope.project_ids] if scope.project_ids else []
    wrapped = f"SELECT * FROM ({sql.rstrip().rstrip(';')}) AS agent_query LIMIT {max_rows + 1}"
    result: SqlResult | None = None
    reads = read_connection()  # the call's replica, when its door chose one (core/dbrouting.py)
    try:
        with transaction.atomic(using=reads.alias), reads.cursor() as cursor:
            _set(cursor, "app.sql_member", str(member.pk))
            _set(cursor, "app.sql_projects", ",".join(projects))
            _set(cursor, "app.sql_teams", ",".join(teams))
            _set(cursor, "app.sql_roles", ",".join(roles))
            _set(cursor, "app.sql_scope", ",".join(scope_projects))
            _set(cursor, "app.sql_workspace", str(scope.workspace_id) if scope.workspace_id else "")
            cursor.execute("SET TRANSACTION READ ONLY")
            cursor.execute(f"SET LOCAL statement_timeout = {int(timeout_ms)}")
            cursor.execute(f'SET LOCAL ROLE "{AGENT_SQL_ROLE}"')
            try:
                cursor.execute(wrapped)
            except DatabaseError as exc:
                cause = getattr(exc, "__cause__", None)
                sqlstate = getattr(cause, "sqlstate", "") or ""
                if sqlstate == "57014":
                    raise SqlRefused(
                        "timeout", f"the query ran past timeout_ms={timeout_ms} and was stopped"
                    ) from exc
                if sqlstate == "42501":
                    raise SqlRefused(
                        "agent_views_only", "permission denied: only the agent views are readable"
                    ) from exc
                raise SqlRefused("execution", str(cause or exc).splitlines()[0]) from exc
            columns = [c.name for c in cursor.description]
            rows = [[_jsonable(v) for v in row] for row in cursor.fetchall()]
            result = SqlResult(columns=columns, rows=rows[:max_rows], truncated=len(rows) > max_rows)
            raise _Done
    except _Done:
        pass
    assert result is not None
    return result
