"""Run a validated plan: the start, the walk hop by hop, WHERE, RETURN, ORDER BY, LIMIT.

The walk holds binding rows (variable -> node or relation). Each hop is one batched query over
the frontier's distinct nodes (``memory.graph.store``); every cap that cuts something is listed in
``truncated``. Relationship uniqueness holds as in Cypher: a row never uses one relation twice.
"""

from __future__ import annotations

import math
import uuid
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from memory.graph import ast, schema
from memory.graph.start import StartResult, run_start
from memory.graph.store import GraphStore
from memory.graph.validator import Hop, Plan
from memory.graph.values import Node, Rel, compare, equal, hashable, order_rows, text_match

CONTAINS_NOTE = (
    "CONTAINS, STARTS WITH and ENDS WITH ran on the rows the walk returned, and the walk was cut (see "
    "truncated): an empty result means the piece was not seen in what was reached, not that no such name exists."
)


@dataclass
class Row:
    values: dict[str, Node | Rel]
    used: frozenset[tuple[Any, ...]] = frozenset()


@dataclass
class Output:
    values: list[Any]
    rows: list[Row]


@dataclass
class Context:
    plan: Plan
    store: GraphStore
    start: StartResult
    data: dict[str, dict[Any, dict[str, Any]]] = field(default_factory=lambda: {k: {} for k in schema.LABELS})
    order_index: dict[Any, int] = field(default_factory=dict)
    vectors: dict[Any, tuple[str, Any]] = field(default_factory=dict)
    # The SIMILAR floors and FAR ceilings used, per embedding model.
    thresholds: dict[str, dict[str, float]] = field(default_factory=dict)


# --- loading ----------------------------------------------------------------------------------


def _load(ctx: Context, nodes: set[Node]) -> None:
    wanted: dict[str, set[Any]] = {label: set() for label in schema.LABELS}
    for node in nodes:
        if node.id not in ctx.data[node.label]:
            wanted[node.label].add(node.id)
    if wanted["Event"]:
        ctx.data["Event"].update(ctx.store.events(wanted["Event"]))
    if wanted["Entity"]:
        ctx.data["Entity"].update(ctx.store.entities(wanted["Entity"]))
    if wanted["Tag"]:
        ctx.data["Tag"].update(ctx.store.tags(wanted["Tag"]))


def _load_order_index(ctx: Context, ids: set[Any]) -> None:
    missing = [i for i in ids if i not in ctx.order_index]
    if missing:
        found = ctx.store.order_indexes(missing)
        for pk in missing:
            ctx.order_index[pk] = found.get(pk, 0)


def _prepare(ctx: Context, rows: list[Row]) -> None:
    """Load what WHERE, RETURN and ORDER BY read from the nodes of the walk."""
    plan = ctx.plan
    nodes: set[Node] = set()
    order_ids: set[Any] = set()
    for var, props in plan.properties_used.items():
        if var in plan.rel_vars:
            continue
        for row in rows:
            node = row.values.get(var)
            if isinstance(node, Node):
                nodes.add(node)
                if "order_index" in props:
                    order_ids.add(node.id)
    _load(ctx, nodes)
    _load_order_index(ctx, order_ids)
    if plan.cos_used:
        events = {
            n.id for row in rows for n in row.values.values() if isinstance(n, Node) and n.label == "Event"
        }
        ctx.vectors.update(ctx.store.embeddings(events - set(ctx.vectors)))


# --- evaluation -------------------------------------------------------------------------------


def _property(ctx: Context, var: str, value: Node | Rel, name: str) -> Any:
    if isinstance(value, Rel):
        return value.get(name)
    if value.label == "Event":
        if name == "score":
            return ctx.start.scores.get(value.id) if var == ctx.plan.start.var else None
        if name == "order_index":
            return ctx.order_index.get(value.id)
    data = ctx.data[value.label].get(value.id)
    if data is None:
        return None
    return data.get(name)


def _cos(ctx: Context, left: Any, right: Any) -> float | None:
    if not isinstance(left, Node) or not isinstance(right, Node):
        return None
    a, b = ctx.vectors.get(left.id), ctx.vectors.get(right.id)
    if a is None or b is None or a[0] != b[0] or len(a[1]) != len(b[1]):
        return None
    dot = sum(float(x) * float(y) for x, y in zip(a[1], b[1], strict=True))
    norm = math.sqrt(sum(float(x) ** 2 for x in a[1])) * math.sqrt(sum(float(y) ** 2 for y in b[1]))
    return round(dot / norm, 6) if norm else None


def _truth(value: Any) -> bool | None:
    return value if isinstance(value, bool) else None


def _aggregate(ctx: Context, call: ast.Call, group: list[Row]) -> Any:
    if call.star:
        return len(group)
    values = [evaluate(ctx, call.args[0], row) for row in group]
    values = [v for v in values if v is not None]
    if call.distinct:
        values = list(OrderedDict((hashable(v), v) for v in values).values())
    if call.name == "count":
        return len(values)
    if call.name == "collect":
        return values
    if call.name in ("min", "max"):
        best = None
        for value in values:
            if best is None:
                best = value
                continue
            order = compare(value, best)
            if order is not None and ((order < 0) if call.name == "min" else (order > 0)):
                best = value
        return best
    numbers = [float(v) for v in values if isinstance(v, (int, float)) and not isinstance(v, bool)]
    if call.name == "sum":
        if all(isinstance(v, int) and not isinstance(v, bool) for v in values):
            return sum(int(v) for v in values)
        return math.fsum(numbers)
    return sum(numbers) / len(numbers) if numbers else None


def evaluate(ctx: Context, expr: ast.Expr, row: Row, group: list[Row] | None = None) -> Any:
    if isinstance(expr, ast.Lit):
        return expr.value
    if isinstance(expr, ast.Param):
        return ctx.plan.params[expr.name]
    if isinstance(expr, ast.Var):
        return row.values.get(expr.name)
    if isinstance(expr, ast.Prop):
        assert isinstance(expr.subject, ast.Var)
        subject = row.values.get(expr.subject.name)
        return None if subject is None else _property(ctx, expr.subject.name, subject, expr.name)
    if isinstance(expr, ast.ListExpr):
        return [evaluate(ctx, item, row, group) for item in expr.items]
    if isinstance(expr, ast.MapExpr):
        return {key: evaluate(ctx, value, row, group) for key, value in expr.items}
    if isinstance(expr, ast.Call):
        if expr.name == "cos":
            return _cos(ctx, evaluate(ctx, expr.args[0], row), evaluate(ctx, expr.args[1], row))
        return _aggregate(ctx, expr, group if group is not None else [row])
    if isinstance(expr, ast.Compare):
        left, right = evaluate(ctx, expr.left, row, group), evaluate(ctx, expr.right, row, group)
        return _compare(expr.op, left, right)
    if isinstance(expr, ast.IsNull):
        return (evaluate(ctx, expr.operand, row, group) is None) != expr.negated
    if isinstance(expr, ast.BoolOp):
        values = [_truth(evaluate(ctx, o, row, group)) for o in expr.operands]
        if expr.op == "AND":
            return False if False in values else (None if None in values else True)
        if expr.op == "OR":
            return True if True in values else (None if None in values else False)
        return None if None in values else sum(bool(v) for v in values) % 2 == 1
    if isinstance(expr, ast.Not):
        value = _truth(evaluate(ctx, expr.operand, row, group))
        return None if value is None else not value
    if isinstance(expr, ast.Negate):
        value = evaluate(ctx, expr.operand, row, group)
        return -value if isinstance(value, (int, float)) and not isinstance(value, bool) else None
    raise AssertionError(expr)


def _compare(op: str, left: Any, right: Any) -> Any:
    if op == "=":
        return equal(left, right)
    if op == "<>":
        same = equal(left, right)
        return None if same is None else not same
    if op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
        return text_match(op, left, right)
    if op == "IN":
        if left is None or not isinstance(right, list):
            return None
        results = [equal(left, item) for item in right]
        return True if True in results else (None if None in results else False)
    order = compare(left, right)
    if order is None:
        return None
    return {"<": order < 0, "<=": order <= 0, ">": order > 0, ">=": order >= 0}[op]


# --- the walk ---------------------------------------------------------------------------------


def _rel_key(hop: Hop, src: Any, dst: Any) -> tuple[Any, ...]:
    if hop.way == "both":
        a, b = sorted((str(src), str(dst)))
        return (hop.relation.name, a, b)
    tail, head = (src, dst) if hop.way == "out" else (dst, src)
    return (hop.relation.name, str(tail), str(head))


def _walk_hop(ctx: Context, hop: Hop, rows: list[Row], truncated: list[dict[str, Any]]) -> list[Row]:
    plan = ctx.plan
    src_label, dst_label = plan.labels[hop.src], plan.labels[hop.dst]
    frontier = list(OrderedDict.fromkeys(row.values[hop.src].id for row in rows))  # type: ignore[union-attr]
    vector = hop.relation.name in ("SIMILAR", "FAR")
    cap = schema.VECTOR_FRONTIER_MAX if vector else schema.FRONTIER_MAX
    if len(frontier) > cap:
        kept = set(frontier[:cap])
        truncated.append(
            {
                "stage": "match",
                "hop": hop.index,
                "relation": hop.relation.name,
                "cap": "frontier",
                "limit": cap,
                "detail": f"{hop.text}: {len(frontier)} {src_label.lower()} nodes to walk from; the first {cap} were walked",
            }
        )
        frontier = frontier[:cap]
        rows = [row for row in rows if row.values[hop.src].id in kept]  # type: ignore[union-attr]
    vector_k = min(int(hop.params.get("k", schema.VECTOR_K_DEFAULT)), schema.VECTOR_K_MAX)
    if vector and int(hop.params.get("k", 0)) > schema.VECTOR_K_MAX:
        truncated.append(
            {
                "stage": "match",
                "hop": hop.index,
                "relation": hop.relation.name,
                "cap": "vector_k",
                "limit": schema.VECTOR_K_MAX,
                "requested": int(hop.params["k"]),
                "detail": f"{hop.text}: k is capped at {schema.VECTOR_K_MAX} neighbours per event",
            }
        )
    found = ctx.store.hop(hop, frontier, schema.FANOUT_MAX, vector_k) if frontier else None
    if found is not None and found.thresholds:
        ctx.thresholds.setdefault(hop.relation.name, {}).update(found.thresholds)
    if found is not None and found.capped:
        per = vector_k if vector else schema.FANOUT_MAX
        truncated.append(
            {
                "stage": "match",
                "hop": hop.index,
                "relation": hop.relation.name,
                "cap": "neighbours" if vector else "fanout",
                "limit": per,
                "detail": f"{hop.text}: {len(found.capped)} {src_label.lower()} nodes had more than {per} "
                f"{hop.relation.name} neighbours; {per} each were followed",
            }
        )
    out: list[Row] = []
    for row in rows:
        src = row.values[hop.src].id  # type: ignore[union-attr]
        for dst, props in found.pairs.get(src, []) if found is not None else []:
            key = _rel_key(hop, src, dst)
            if key in row.used:
                continue
            if hop.dst_bound and row.values[hop.dst].id != dst:  # type: ignore[union-attr]
                continue
            values = dict(row.values)
            values[hop.dst] = Node(dst_label, dst)
            if hop.rel_var is not None:
                tail, head = (src, dst) if hop.way != "in" else (dst, src)
                values[hop.rel_var] = Rel(hop.relation.name, tail, head, tuple(sorted(props.items())))
            out.append(Row(values=values, used=row.used | {key}))
            if len(out) > schema.WALK_ROWS_MAX:
                break
        if len(out) > schema.WALK_ROWS_MAX:
            out = out[: schema.WALK_ROWS_MAX]
            truncated.append(
                {
                    "stage": "match",
                    "hop": hop.index,
                    "relation": hop.relation.name,
                    "cap": "walk_rows",
                    "limit": schema.WALK_ROWS_MAX,
                    "detail": f"{hop.text}: the walk reached {schema.WALK_ROWS_MAX} rows and stopped",
                }
            )
            break
    return out


# --- RETURN / ORDER BY / LIMIT ---------------------------------------------------------------


def _returns(ctx: Context, rows: list[Row]) -> list[Output]:
    plan = ctx.plan
    if not plan.aggregated:
        return [Output(values=[evaluate(ctx, c.expr, row) for c in plan.columns], rows=[row]) for row in rows]
    keys = [i for i, c in enumerate(plan.columns) if not _has_aggregate(c.expr)]
    groups: OrderedDict[Any, list[Row]] = OrderedDict()
    for row in rows:
        group_key = tuple(hashable(_key(evaluate(ctx, plan.columns[i].expr, row))) for i in keys)
        groups.setdefault(group_key, []).append(row)
    if not groups and not keys:
        groups[()] = []
    outputs = []
    for group in groups.values():
        first = group[0] if group else Row(values={})
        outputs.append(Output(values=[evaluate(ctx, c.expr, first, group) for c in plan.columns], rows=group))
    return outputs


def _key(value: Any) -> Any:
    if isinstance(value, list):
        return [_key(v) for v in value]
    return value


def _has_aggregate(expr: ast.Expr) -> bool:
    if isinstance(expr, ast.Call) and expr.name in schema.AGGREGATES:
        return True
    return any(_has_aggregate(c) for c in ast.children(expr))


def _nodes_in(value: Any, into: set[Node]) -> None:
    if isinstance(value, Node):
        into.add(value)
    elif isinstance(value, list):
        for item in value:
            _nodes_in(item, into)
    elif isinstance(value, dict):
        for item in value.values():
            _nodes_in(item, into)


def _project(ctx: Context, value: Any) -> Any:
    if isinstance(value, Node):
        data = ctx.data[value.label].get(value.id, {})
        if value.label == "Event":
            return {
                "id": str(value.id),
                "summary": data.get("summary"),
                "timestamp": data.get("timestamp"),
                "order_index": ctx.order_index.get(value.id),
            }
        if value.label == "Entity":
            return {"id": value.id, "name": data.get("name"), "type": data.get("type")}
        return {"id": value.id, "name": data.get("name")}
    if isinstance(value, Rel):
        return {"type": value.type, **dict(value.props)}
    if isinstance(value, list):
        return [_project(ctx, v) for v in value]
    if isinstance(value, dict):
        return {k: _project(ctx, v) for k, v in value.items()}
    if isinstance(value, uuid.UUID):
        return str(value)
    return value


def _returned_vars(plan: Plan) -> set[str]:
    found: set[str] = set()
    for column in plan.columns:
        found |= ast.variables(column.expr)
    return found


@dataclass
class Answer:
    columns: list[str]
    rows: list[list[Any]]
    start: StartResult
    truncated: list[dict[str, Any]]
    plan: list[dict[str, Any]]
    notes: list[str]
    thresholds: dict[str, dict[str, float]]
    walk_rows: int
    read_ids: list[str]


def execute(plan: Plan, store: GraphStore) -> Answer:
    start = run_start(plan.start, store)
    ctx = Context(plan=plan, store=store, start=start)
    truncated = list(start.truncated)
    stages: list[dict[str, Any]] = [{"stage": "start", "detail": start.detail, "rows": len(start.ids)}]
    rows = [Row(values={plan.start.var: Node("Event", pk)}) for pk in start.ids]
    walk_rows = len(rows)
    for hop in plan.hops:
        before = len(rows)
        rows = _walk_hop(ctx, hop, rows, truncated)
        walk_rows = max(walk_rows, len(rows))
        way = {"out": "along the arrow", "in": "against the arrow", "both": "either way"}[hop.way]
        stages.append(
            {
                "stage": f"hop {hop.index}",
                "detail": f"{hop.text}: from {hop.src} to {hop.dst} ({hop.relation.name}, {way}"
                + (", closing a cycle" if hop.dst_bound else "")
                + f"); {before} rows in",
                "rows": len(rows),
            }
        )
    _prepare(ctx, rows)
    if plan.where is not None:
        before = len(rows)
        rows = [row for row in rows if evaluate(ctx, plan.where, row) is True]
        stages.append(
            {"stage": "where", "detail": f"kept the rows that hold; {before} rows in", "rows": len(rows)}
        )
    outputs = _returns(ctx, rows)
    if plan.distinct:
        unique: OrderedDict[Any, Output] = OrderedDict()
        for output in outputs:
            unique.setdefault(hashable(_key(output.values)), output)
        outputs = list(unique.values())
    stages.append(
        {
            "stage": "return",
            "detail": ("grouped and aggregated" if plan.aggregated else "projected")
            + (", distinct" if plan.distinct else ""),
            "rows": len(outputs),
        }
    )
    if plan.order:
        keys = []
        for key in plan.order:
            if key.column is not None:
                index = key.column
                keys.append((lambda o, i=index: o.values[i], key.descending))
            else:
                expr = key.expr
                assert expr is not None
                keys.append((lambda o, e=expr: evaluate(ctx, e, o.rows[0]), key.descending))
        outputs = order_rows(outputs, keys)
        stages.append({"stage": "order", "detail": "nulls last", "rows": len(outputs)})
    limit = plan.limit if plan.limit is not None else schema.ROWS_DEFAULT
    if limit > schema.ROWS_MAX:
        if len(outputs) > schema.ROWS_MAX:
            truncated.append(
                {
                    "stage": "limit",
                    "cap": "rows_max",
                    "limit": schema.ROWS_MAX,
                    "requested": limit,
                    "detail": f"{len(outputs)} rows; LIMIT goes up to {schema.ROWS_MAX}",
                }
            )
        limit = schema.ROWS_MAX
    elif plan.limit is None and len(outputs) > limit:
        truncated.append(
            {
                "stage": "limit",
                "cap": "rows_default",
                "limit": limit,
                "detail": f"{len(outputs)} rows; without LIMIT the first {limit} come back (LIMIT goes up to "
                f"{schema.ROWS_MAX})",
            }
        )
    outputs = outputs[:limit]
    stages.append({"stage": "limit", "detail": f"LIMIT {limit}", "rows": len(outputs)})
    nodes: set[Node] = set()
    for output in outputs:
        _nodes_in(output.values, nodes)
    _load(ctx, nodes)
    _load_order_index(ctx, {n.id for n in nodes if n.label == "Event"})
    returned = _returned_vars(plan)
    read: OrderedDict[str, None] = OrderedDict()
    for output in outputs:
        for node in sorted(
            (n for n in _collect_nodes(output.values) if n.label == "Event"), key=lambda n: str(n.id)
        ):
            read[str(node.id)] = None
        for row in output.rows:
            for var in returned:
                value = row.values.get(var)
                if isinstance(value, Node) and value.label == "Event":
                    read[str(value.id)] = None
    notes = list(plan.notes)
    if plan.uses_text_match and truncated:
        notes.append(CONTAINS_NOTE)
    return Answer(
        columns=[c.name for c in plan.columns],
        rows=[[_project(ctx, v) for v in output.values] for output in outputs],
        start=start,
        truncated=truncated,
        plan=stages,
        notes=notes,
        thresholds=ctx.thresholds,
        walk_rows=walk_rows,
        read_ids=list(read),
    )


def _collect_nodes(value: Any) -> set[Node]:
    found: set[Node] = set()
    _nodes_in(value, found)
    return found
