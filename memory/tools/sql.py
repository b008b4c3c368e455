"""query_memories_with_sql and describe_memory_schema (seed aiakiv)."""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.registry import ToolCall, ToolSpec, registry
from memory.selectors.search import scope_for_key
from memory.selectors.sql import (
    AGENT_VIEWS,
    ALLOWED_FUNCTIONS,
    MAX_ROWS_CAP,
    MAX_TIMEOUT_MS,
    agent_view_columns,
    sql_run,
)
from memory.tools.common import Clamped, Closed, stated
from memory.tools.json_value import JsonCell

COLUMN_MEANINGS = {
    "id": "Identifier.",
    "project_id": "The project it lives in (agent.projects.id).",
    "workspace": "Its folder's name.",
    "team_id": "The team it belongs to (agent.teams.id).",
    "author_id": "The member who saved it.",
    "task_id": "The task whose run taught it (task-layer notes).",
    "created_at": "When it was stored (UTC).",
    "timestamp": "When it happened (UTC).",
    "summary": "The retrieval surface.",
    "content": "The stored text (secrets redacted).",
    "kind": "fact, inference, preference or correction.",
    "layer": "task, member, role, team, project or enterprise.",
    "visibility": "author, team, project or enterprise.",
    "scope": "A label (shared, private, ...).",
    "status": "unverified, stale, conflict or superseded.",
    "confidence": "0..1 as saved.",
    "fact_key": "Topic key; several versions may share it.",
    "fact_version": "1, 2, ... per fact_key.",
    "source": "Who saved it (owner, agent, run).",
    "source_id": "Provenance: the source document or session.",
    "source_hash": "Provenance: the source's content hash.",
    "source_revision": "Provenance: the source's revision.",
    "has_vector": "True once the archivist embedded it.",
    "memory_id": "A memory (agent.memories.id).",
    "entity_id": "An entity (agent.entities.id).",
    "tag_id": "A tag (agent.tags.id).",
    "name": "Name.",
    "type": "Entity type (person, system, ...).",
    "path": "The tag's slash path.",
    "parent_id": "The tag group above it.",
    "src_id": "The link's source memory.",
    "dst_id": "The link's target memory.",
    "relation": "resolved_by's relation (realization, ...).",
    "score": "Cosine for similar and duplicate links.",
    "asserted_at": "When the link was made.",
    "slug": "Short name.",
    "save_domain": "The domain saves are filed under.",
    "save_group": "The group saves are filed under.",
}


# A statement an agent writes by hand; far longer is a generated or pasted blob, not a question.
MAX_SQL = 20_000


class SqlIn(Closed):
    sql: Annotated[str, stated(minLength=1)] = Field(
        max_length=MAX_SQL,
        description="A SELECT or WITH statement over the agent views (describe_memory_schema lists them), up to "
        "20000 characters.",
    )
    max_rows: Annotated[int, Clamped(1, MAX_ROWS_CAP)] = Field(
        default=10000,
        description="Automatic LIMIT cap, preserved when the query sets a lower one. Default 10000; 1-10000, clamped.",
    )
    timeout_ms: Annotated[int, Clamped(1, MAX_TIMEOUT_MS)] = Field(
        default=5000,
        description="Postgres statement timeout in milliseconds. Default 5000, which is also the most a query may "
        "run: 1-5000, clamped.",
    )


class SqlOut(Closed):
    columns: list[str] = Field(description="Column names, in order.")
    rows: list[list[JsonCell]] = Field(description="The rows, each a list in column order.")
    row_count: int = Field(description="How many rows came back.")
    truncated: bool = Field(description="True when max_rows cut the result.")


def query_memories_with_sql(call: ToolCall, args: SqlIn) -> SqlOut:
    result = sql_run(
        scope=scope_for_key(member=call.member, key=call.access_key),
        sql=args.sql,
        max_rows=args.max_rows,
        timeout_ms=args.timeout_ms,
    )
    if "id" in result.columns and result.columns and "memories" in args.sql:
        index = result.columns.index("id")
        call.read_ids = [str(row[index]) for row in result.rows][:1000]
    return SqlOut(
        columns=result.columns, rows=result.rows, row_count=len(result.rows), truncated=result.truncated
    )


class ColumnInfo(Closed):
    name: str = Field(description="Column name.")
    type: str = Field(description="PostgreSQL type.")
    meaning: str = Field(description="What it holds.")


class ViewInfo(Closed):
    name: str = Field(description="The view, to write as agent.<name> or <name>.")
    meaning: str = Field(description="What its rows are.")
    columns: list[ColumnInfo] = Field(description="Its columns.")


class SchemaOut(Closed):
    views: list[ViewInfo] = Field(description="The relations query_memories_with_sql can read.")
    functions: list[str] = Field(description="The functions a query may call.")
    rules: list[str] = Field(description="What the SQL tool refuses, rule by rule.")


class SchemaIn(Closed):
    """No arguments."""


RULES = [
    "one_statement: exactly one statement.",
    "select_only: SELECT or WITH of SELECTs; no INSERT, UPDATE, DELETE, COPY, LOCK, SET, EXPLAIN, transaction control.",
    "no_locking: no FOR UPDATE / FOR SHARE.",
    "no_into: no SELECT INTO.",
    "agent_views_only: only the agent views (and your own WITH names); no other schema, no functions in FROM.",
    "allowed_functions: only the listed functions.",
    "no_catalogs: no casts to reg* or oid types.",
    "timeout: statement_timeout = timeout_ms (at most 5000).",
    "max_rows: LIMIT max_rows (at most 10000) applied by wrapping the query.",
]


def describe_memory_schema(call: ToolCall, args: SchemaIn) -> SchemaOut:
    columns: dict[str, list[ColumnInfo]] = {}
    for table, column, type_ in agent_view_columns():
        columns.setdefault(table, []).append(
            ColumnInfo(name=column, type=type_, meaning=COLUMN_MEANINGS.get(column, ""))
        )
    views = [
        ViewInfo(name=name, meaning=AGENT_VIEWS[name], columns=columns.get(name, []))
        for name in sorted(AGENT_VIEWS)
    ]
    return SchemaOut(views=views, functions=sorted(ALLOWED_FUNCTIONS), rules=RULES)


registry.register(
    ToolSpec(
        name="query_memories_with_sql",
        toolset="aiakiv",
        title="Query memories with SQL",
        summary="Run a read-only SQL query (SELECT/WITH) over the agent views of your memory.",
        description=(
            "Run a read-only SQL query against the memory database. Use this when the user wants exact counts, "
            "aggregates, or table-level facts that a semantic search cannot give. Do not use it to change data: "
            "SELECT and WITH statements only. Read-only. Access control is applied by the server, so rows outside "
            "the caller's permissions never appear. A LIMIT and a statement timeout are applied automatically. "
            "Args: sql: A SELECT or WITH statement. `describe_memory_schema` returns the table and column names to "
            "write it against (the agent views: agent.memories, agent.entities, agent.memory_entities, agent.tags, "
            "agent.memory_tags, agent.links, agent.projects, agent.teams). max_rows: Automatic LIMIT cap, "
            "preserved when the query already sets one. Default 10000. timeout_ms: Postgres statement timeout in "
            "milliseconds. Default 5000. A refused query names the rule that refused it. Returns {columns, rows, "
            "row_count, truncated}."
        ),
        input_model=SqlIn,
        output_model=SqlOut,
        handler=query_memories_with_sql,
        scope="memory:read",
        read_only=True,
        idempotent=True,
        retry="Safe: repeating the call changes nothing.",
        returns="{ columns, rows, row_count, truncated }",
        examples=(
            (
                "Count memories per tag",
                {
                    "sql": "SELECT t.path, count(*) FROM agent.memory_tags mt JOIN agent.tags t ON t.id = mt.tag_id GROUP BY t.path ORDER BY 2 DESC"
                },
            ),
        ),
    )
)
registry.register(
    ToolSpec(
        name="describe_memory_schema",
        toolset="aiakiv",
        title="Describe the memory schema",
        summary="The views and columns query_memories_with_sql can read, with types and meanings.",
        description=(
            "Return the tables (views) and columns that query_memories_with_sql can read, with their types and a "
            "one-line meaning each, the functions a query may call, and the rules a query must follow. Read-only."
        ),
        input_model=SchemaIn,
        output_model=SchemaOut,
        handler=describe_memory_schema,
        scope="memory:read",
        read_only=True,
        idempotent=True,
        retry="Safe: repeating the call changes nothing.",
        returns="{ views: [{ name, meaning, columns: [{ name, type, meaning }] }], functions, rules }",
        examples=(("Describe", {}),),
    )
)
