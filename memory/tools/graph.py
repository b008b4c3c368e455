"""query_memory_graph (seed aiakiv): a Cypher subset over the caller's own memory graph.

The engine lives in ``memory/graph/`` (grammar, parser, validator, executor); this module is the
adapter: the read scope, the closed input and output models, the read audit and registration.
"""

from __future__ import annotations

from typing import Annotated, Any, Literal

from pydantic import AfterValidator, Field, WithJsonSchema

from core.errors import Unprocessable
from core.registry import ToolCall, ToolSpec, registry
from memory.graph import GraphTimeout, Rejection, graph_query, schema
from memory.graph.executor import Answer
from memory.graph.parser import MAX_QUERY_CHARS
from memory.selectors.search import scope_for_key, scoped_memories
from memory.tools.common import QUERY_MAX, Closed, stated
from memory.tools.json_value import JsonCell

# Bounds on params (the graph validator then judges their types: a refusal there is blocked_by params).
# A text is at most a search sentence; a list is far longer than any cap it could feed (ids: takes 200);
# numbers stay within the integers JSON clients hold exactly.
PARAMS_MAX = 50
PARAM_NAME_MAX = 64
PARAM_LIST_MAX = 1_000
PARAM_NUMBER_MAX = 2**53
_SCALAR = [
    {"type": "string", "maxLength": QUERY_MAX},
    {"type": "number", "minimum": -PARAM_NUMBER_MAX, "maximum": PARAM_NUMBER_MAX},
]
PARAMS_SCHEMA: dict[str, Any] = {
    "type": "object",
    "patternProperties": {
        f"^[A-Za-z_][A-Za-z0-9_]{{0,{PARAM_NAME_MAX - 1}}}$": {
            "anyOf": [*_SCALAR, {"type": "array", "items": {"anyOf": _SCALAR}, "maxItems": PARAM_LIST_MAX}]
        }
    },
    "additionalProperties": False,
    "maxProperties": PARAMS_MAX,
}


def _param_scalar_check(where: str, value: Any) -> None:
    if isinstance(value, str) and len(value) > QUERY_MAX:
        raise ValueError(f"{where}: a text parameter takes at most {QUERY_MAX} characters")
    if isinstance(value, (int, float)) and not isinstance(value, bool) and abs(value) > PARAM_NUMBER_MAX:
        raise ValueError(f"{where}: a number parameter must lie within ±2^53")


def params_check(params: dict[str, Any]) -> dict[str, Any]:
    """The size bounds of PARAMS_SCHEMA; what the values are is the graph validator's to judge."""
    if len(params) > PARAMS_MAX:
        raise ValueError(f"params: at most {PARAMS_MAX} parameters")
    for name, value in params.items():
        if len(name) > PARAM_NAME_MAX:
            raise ValueError(f"params: a parameter name takes at most {PARAM_NAME_MAX} characters")
        where = f"params.{name}"
        if isinstance(value, list):
            if len(value) > PARAM_LIST_MAX:
                raise ValueError(f"{where}: a list parameter takes at most {PARAM_LIST_MAX} items")
            for item in value:
                _param_scalar_check(where, item)
        else:
            _param_scalar_check(where, value)
    return params


class GraphQueryIn(Closed):
    # Longer queries are refused by the parser as a syntax rejection (a result, as the seed has every
    # rejection come back), so the schema states the parser's bound rather than pydantic enforcing it.
    query: Annotated[str, stated(minLength=1, maxLength=MAX_QUERY_CHARS)] = Field(
        description="The graph query text: START a = events(...) [MATCH ...] [WHERE ...] RETURN ... "
        "[ORDER BY ...] [LIMIT n]. Up to 10000 characters."
    )
    params: Annotated[dict[str, Any], AfterValidator(params_check), WithJsonSchema(PARAMS_SCHEMA)] = Field(
        default_factory=dict,
        description="Values for $name references: strings, numbers, or lists of strings and numbers. At most 50 "
        "parameters; a text up to 2000 characters, a list up to 1000 items, a number within ±2^53.",
    )


class Unresolved(Closed):
    kind: str = Field(description="entity, tag or id.")
    name: str = Field(description="The name (or id) as given, which named nothing you can read.")


class StartEntity(Closed):
    id: int = Field(description="Entity id.")
    name: str = Field(description="Its canonical spelling.")
    type: str = Field(description="Its type.")


class StartTag(Closed):
    id: int = Field(description="Tag id.")
    name: str = Field(description="The tag's own name.")
    path: str = Field(description="Its slash path.")


class StartOut(Closed):
    variable: str = Field(description="The START variable.")
    shape: str = Field(
        description="Which start ran: text, entity, tag, ids, or a combination such as text+entity."
    )
    k: int = Field(description="How many events were asked for (after the cap).")
    k_cap: int = Field(description="The k cap of this shape.")
    returned: int = Field(description="How many start events came back.")
    scoped_mode: Literal["exact", "filtered_ann"] | None = Field(
        description="For entity:/tag:/ids: with text:: exact (every candidate measured) or filtered_ann "
        "(a large scope searched through the vector index); null for other starts."
    )
    has_more: bool = Field(description="True when the scope holds more candidates than came back.")
    filled: bool = Field(
        description="False when the start did not cover its scope (vectors pending, the embedder down, or the "
        "index returned fewer than it could): 0 rows then mean not confirmed, not absent."
    )
    unresolved: list[Unresolved] = Field(description="Names or ids that named nothing you can read.")
    entities: list[StartEntity] = Field(description="The entities the names resolved to (renames included).")
    tags: list[StartTag] = Field(description="The tags the names resolved to (tags under a group included).")
    entities_truncated: bool = Field(description="True when more entities matched than the names cap (20).")
    tags_truncated: bool = Field(description="True when more tags matched than the names cap (20).")
    embedder: str | None = Field(description="The embedding model that measured a.score; null without text.")


class Truncation(Closed):
    stage: str = Field(description="start, match or limit.")
    cap: str = Field(
        description="Which cap cut: k, name_matches, filled, vectors_pending, frontier, fanout, ..."
    )
    detail: str = Field(description="What was cut, in words.")
    limit: int | None = Field(default=None, description="The cap's value.")
    requested: int | None = Field(default=None, description="What the query asked for, when over the cap.")
    hop: int | None = Field(default=None, description="The hop (1-based, in plan order) that was cut.")
    relation: str | None = Field(default=None, description="That hop's relation.")


class PlanStage(Closed):
    stage: str = Field(description="start, hop n, where, return, order or limit.")
    detail: str = Field(description="What the stage did.")
    rows: int = Field(description="Rows after the stage.")


class Caps(Closed):
    k_default: int = Field(description="k when the start names none.")
    k_max: int = Field(description="k cap for text and combined starts.")
    k_max_alone: int = Field(description="k cap for entity:, tag: or ids: alone.")
    names_max: int = Field(description="Entity and tag names per START, in all.")
    name_matches_max: int = Field(description="Entities (or tags) the names may resolve to.")
    ids_max: int = Field(description="ids per START.")
    rows_default: int = Field(description="Rows without LIMIT.")
    rows_max: int = Field(description="The highest LIMIT.")
    frontier_max: int = Field(description="Distinct nodes a hop walks from.")
    fanout_max: int = Field(description="Neighbours followed per node and hop.")
    vector_frontier_max: int = Field(description="Events a SIMILAR or FAR hop walks from.")
    vector_k_default: int = Field(description="SIMILAR/FAR neighbours per event when {k} is not given.")
    vector_k_max: int = Field(description="The highest SIMILAR/FAR {k}.")
    walk_rows_max: int = Field(description="Rows the walk may hold.")
    exact_scope_max: int = Field(
        description="Largest scoped start measured exactly; larger ones use the index."
    )


class Threshold(Closed):
    relation: str = Field(description="SIMILAR (a floor) or FAR (a ceiling).")
    model: str = Field(description="The embedding model it belongs to.")
    cosine: float = Field(description="The cosine used.")


class Budget(Closed):
    caps: Caps = Field(description="The caps in force.")
    thresholds: list[Threshold] = Field(description="The SIMILAR floors and FAR ceilings the walk used.")
    walk_rows: int = Field(description="The most rows the walk held at once.")


class GraphQueryOut(Closed):
    columns: list[str] | None = Field(default=None, description="Column names, in RETURN order.")
    rows: list[list[JsonCell]] | None = Field(
        default=None,
        description="Rows, each a list in column order. An Event is {id, summary, timestamp, order_index}, "
        "an Entity {id, name, type}, a Tag {id, name}, a relation {type, ...its properties}.",
    )
    row_count: int | None = Field(default=None, description="How many rows came back.")
    start: StartOut | None = Field(default=None, description="How the START resolved.")
    partial: bool | None = Field(
        default=None,
        description="True when any cap cut something (see truncated): the rows are not all there is.",
    )
    truncated: list[Truncation] | None = Field(default=None, description="Every cap that cut something.")
    plan: list[PlanStage] | None = Field(
        default=None, description="The stages that ran, with their row counts."
    )
    budget: Budget | None = Field(default=None, description="The caps in force and what the walk used.")
    notes: list[str] | None = Field(
        default=None, description="Arrows filled in, and the CONTAINS caveat over a truncated walk."
    )
    error: str | None = Field(default=None, description="Present when the query was refused: why.")
    blocked_by: Literal["syntax", "grammar", "params"] | None = Field(
        default=None,
        description="Present when refused: syntax (unparseable), grammar (outside the subset) or params.",
    )
    hint: str | None = Field(default=None, description="Present when refused: how to write it instead.")
    allowed_clauses: list[str] | None = Field(default=None, description="The clauses the subset has.")
    allowed_start_args: list[str] | None = Field(default=None, description="The arguments events() takes.")
    allowed_labels: list[str] | None = Field(default=None, description="The node labels.")
    allowed_relations: list[str] | None = Field(default=None, description="The relation types.")
    allowed_relation_params: list[str] | None = Field(
        default=None, description="The parameters this relation takes."
    )
    allowed_functions: list[str] | None = Field(default=None, description="The functions.")
    allowed_properties: list[str] | None = Field(default=None, description="The properties of that variable.")
    allowed_variables: list[str] | None = Field(default=None, description="The variables in scope.")


def _caps() -> Caps:
    return Caps(
        k_default=schema.K_DEFAULT,
        k_max=schema.K_MAX,
        k_max_alone=schema.K_MAX_ALONE,
        names_max=schema.NAMES_MAX,
        name_matches_max=schema.NAME_MATCHES_MAX,
        ids_max=schema.IDS_MAX,
        rows_default=schema.ROWS_DEFAULT,
        rows_max=schema.ROWS_MAX,
        frontier_max=schema.FRONTIER_MAX,
        fanout_max=schema.FANOUT_MAX,
        vector_frontier_max=schema.VECTOR_FRONTIER_MAX,
        vector_k_default=schema.VECTOR_K_DEFAULT,
        vector_k_max=schema.VECTOR_K_MAX,
        walk_rows_max=schema.WALK_ROWS_MAX,
        exact_scope_max=schema.EXACT_SCOPE_MAX,
    )


def graph_query_out(answer: Answer) -> GraphQueryOut:
    """The output of an answered graph query (query_memory_graph's, and the partner graph's home part)."""
    start = answer.start
    return GraphQueryOut(
        columns=answer.columns,
        rows=answer.rows,
        row_count=len(answer.rows),
        start=StartOut(
            variable=start.variable,
            shape=start.shape,
            k=start.k,
            k_cap=start.k_cap,
            returned=len(start.ids),
            scoped_mode=start.scoped_mode,  # type: ignore[arg-type]
            has_more=start.has_more,
            filled=start.filled,
            unresolved=[Unresolved(**u) for u in start.unresolved],
            entities=[StartEntity(id=e.pk, name=e.name, type=e.type) for e in start.entities],
            tags=[StartTag(id=t.pk, name=t.name, path=t.path) for t in start.tags],
            entities_truncated=start.entities_truncated,
            tags_truncated=start.tags_truncated,
            embedder=start.embedder,
        ),
        partial=bool(answer.truncated),
        truncated=[Truncation(**t) for t in answer.truncated],
        plan=[PlanStage(**s) for s in answer.plan],
        budget=Budget(
            caps=_caps(),
            thresholds=[
                Threshold(relation=relation, model=model, cosine=cosine)
                for relation, models in answer.thresholds.items()
                for model, cosine in models.items()
            ],
            walk_rows=answer.walk_rows,
        ),
        notes=answer.notes,
    )


def query_memory_graph(call: ToolCall, args: GraphQueryIn) -> GraphQueryOut:
    visible = scoped_memories(scope_for_key(member=call.member, key=call.access_key))
    try:
        answer = graph_query(visible=visible, query=args.query, params=args.params)
    except GraphTimeout as exc:
        raise Unprocessable(
            f"{exc}: narrow the start (fewer names, a smaller k) or the hops ({{min: n}}, {{k: n}})",
            code="graph_timeout",
        ) from exc
    except Rejection as refused:
        return GraphQueryOut.model_validate(
            {
                "error": refused.error,
                "blocked_by": refused.blocked_by,
                "hint": refused.hint,
                **refused.allowed,
            }
        )
    call.read_ids = answer.read_ids
    return graph_query_out(answer)


DESCRIPTION = (
    "Run a graph query, in a Cypher subset, over the caller's own memory graph. Use this when the user wants a "
    "structured traversal — shared-entity counts, paths between events, tag membership — that a text query "
    "cannot express. Do not use it for relational table facts; use `query_memories_with_sql` for that. Do not use "
    "it when the starting point is a sentence and no pattern is stated; use `find_memory_connections` for that. "
    'Read-only. The subset: a query opens with `START a = events(text: "..." | entity: "name or id" | '
    'tag: "name" | ids: [...], k: n)`, so the anchor set is always events. `k` defaults to 5 and by default goes '
    "up to 20, or 200 with `entity:`, `tag:` or `ids:` alone. Events reach events through `SHARES` (shared "
    "entities, `{min: n}`), `SIMILAR` and `FAR` (vector: cosine at or above the model's similarity floor, or "
    "below a low ceiling; `{min: x}` / `{max: x}` and `{k: n}` neighbours per event, reported in "
    "`budget.thresholds`), `NEXT`, and `RESOLVED_BY`, which runs `(plan)-[:RESOLVED_BY]->(evidence)` from a plan "
    "or expectation to the memory that realized it and carries `r.relation` and `r.asserted_at` (`{relation: "
    '"..."}` narrows it); revoked links never appear. Events reach entities through `PARTICIPATED_IN` '
    "(`(entity)-[:PARTICIPATED_IN]->(event)`) and tags through `MEMBER_OF` (`(event)-[:MEMBER_OF]->(tag)`); "
    "entities reach entities through `CONNECTED` (stored co-occurrence; `r.count` and `{min: n}` count the "
    "events you can read) and `SAME_AS` (stored alias). There is no `WITH` — conditions go in relation "
    "parameters such as `{min: 3}`. The rest is ordinary Cypher: `MATCH`, `WHERE` (comparisons, AND/OR/XOR/NOT, "
    "IN, IS [NOT] NULL, CONTAINS, STARTS WITH, ENDS WITH), `RETURN [DISTINCT]` with aliases, `ORDER BY`, "
    "`LIMIT`, aggregates in `RETURN` (count, count(DISTINCT x), collect, min, max, avg, sum), `$name` "
    "parameters, and `cos(a, b)`. Without `LIMIT`, rows stop at 20; `LIMIT` goes up to 200. Name match: "
    "`WHERE e.name CONTAINS $part` keeps the rows whose `Entity.name` or `Tag.name` holds that piece, ignoring "
    "letter case and full-width forms. A piece that is all ASCII needs two characters; one Hangul or Han "
    "character is enough. It runs on the rows the walk already returned, so when `truncated` is non-empty an "
    "empty result means the piece was not seen in what was reached, not that no such name exists. Scoped "
    "start: `events(entity: $name, text: $q, k: n)` ranks, by closeness to `$q`, just the events that entity "
    "takes part in; `tag: $t, text: $q` does the same inside a tag (a tag group includes the tags under it), "
    'and `tag:` alone gives its newest events. A list, `entity: ["A", "B"]`, keeps events with any of the '
    "names; `entity_all:` or `tag_all:` keeps events with all of them; `entity:` with `tag:` keeps events "
    "matching both. Every part must hold and any name holds a part; there are no brackets, no negation and no "
    "entity-or-tag choice. Up to 10 names in all; `start.unresolved` lists the `{kind, name}` not found, and a "
    "part with no name found gives no rows. The combined starts take `k` up to 20 and `tag:` alone up to 200; "
    "`budget.caps` in the response shows the caps in force. Names match exactly (entities ignoring case and "
    "width, with their recorded renames), up to 20 entities or tags; `start.entities_truncated` or "
    "`tags_truncated` says more matched. `a.score` is the start event's cosine to the start text, null when "
    "there is no text and on events reached by a hop; nulls sort last, so use `ORDER BY a.score DESC, a.id` for "
    "a stable order. `start.scoped_mode` is `exact` or `filtered_ann` (a large scope searched through the "
    "vector index). `exact` measures every candidate's distance but returns only the top `k`; "
    "`start.has_more: true` says the scope holds more candidates than came back. A scope not fully covered "
    "(`filled: false` or a names cap) adds a `stage: start` entry to `truncated` and sets `partial` whatever the "
    "row count; 0 rows then means not confirmed, not absent. `MATCH` can be left out when the start itself is "
    "the answer: `START a = events(entity: $name, text: $q, k: 20) RETURN a, a.score ORDER BY a.score DESC, "
    "a.id`. An arrow left off a directed relation is filled in, with a line in `notes`, when the end labels "
    "allow one way only, as `(a)-[:MEMBER_OF]-(t)` from an event reads `->`; `NEXT` and `RESOLVED_BY` join two "
    "events and still need their arrow. Example: `START a = events(text: $q, k: 3) MATCH "
    "(a)-[:PARTICIPATED_IN]-(e) -[:PARTICIPATED_IN]-(b) RETURN b, count(DISTINCT e) AS shared ORDER BY shared "
    "DESC LIMIT 20` Args: query: The graph query text. params: Values for `$name` references (strings, numbers, "
    "lists). Returns: `{columns, rows, row_count, start, partial, truncated, plan, budget, notes}`. Rows are "
    "projected: an Event to `{id, summary, timestamp, order_index}` (order_index: its place in its sequence, 0 "
    "first), an Entity to `{id, name, type}`, a Tag to `{id, name}`. Budget caps, including a START cut short "
    "(`stage: start`), are reported in `truncated`, never applied silently, and `partial` is true whenever "
    "`truncated` is non-empty. Rejections come back as `{error, blocked_by: syntax|grammar|params, hint?, "
    "allowed_*}`: a normal result (not an error) that carries only those fields, so fix the query and call again."
)

registry.register(
    ToolSpec(
        name="query_memory_graph",
        toolset="aiakiv",
        title="Query the memory graph",
        summary="A Cypher subset over your events, entities and tags: shared entities, paths, tags, similarity.",
        description=DESCRIPTION,
        input_model=GraphQueryIn,
        output_model=GraphQueryOut,
        handler=query_memory_graph,
        scope="memory:read",
        read_only=True,
        idempotent=True,
        retry="Safe: repeating the call changes nothing.",
        returns="{ columns, rows, row_count, start, partial, truncated, plan, budget, notes } "
        "| { error, blocked_by, hint?, allowed_* }",
        examples=(
            (
                "Events sharing entities with the closest matches",
                {
                    "query": "START a = events(text: $q, k: 3) MATCH (a)-[:PARTICIPATED_IN]-(e)-[:PARTICIPATED_IN]-(b) "
                    "RETURN b, count(DISTINCT e) AS shared ORDER BY shared DESC LIMIT 20",
                    "params": {"q": "How is staging deployed?"},
                },
            ),
            (
                "One entity's events ranked by a question",
                {
                    "query": "START a = events(entity: $name, text: $q, k: 20) RETURN a, a.score "
                    "ORDER BY a.score DESC, a.id",
                    "params": {"name": "Dana", "q": "staging deploy"},
                },
            ),
        ),
    )
)
