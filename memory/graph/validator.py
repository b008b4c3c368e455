"""The parsed query -> an executable plan, or a ``Rejection`` (blocked_by grammar or params).

Checks what the grammar cannot: the START shape, labels and relation kinds, arrows (filled in
where the end labels allow one way only, with a note), that every pattern reaches from the START
variable, variables and properties, functions and aggregates, and every ``$name``.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from typing import Any, Literal

from memory.graph import ast
from memory.graph.errors import Rejection
from memory.graph.schema import (
    FUNCTIONS,
    IDS_MAX,
    LABELS,
    NAMES_MAX,
    RELATIONS,
    START_ARGS,
    VECTOR_K_MAX,
    RelationKind,
)
from memory.graph.values import PIECE_RULE, piece_ok

# Anonymous nodes get names no query can write.
ANON = "#"
PARAM_VALUE_HINT = "Parameter values are strings, numbers, or lists of strings and numbers."
Way = Literal["out", "in", "both"]


@dataclass
class StartSpec:
    var: str
    text: str | None = None
    entity_any: list[str | int] = field(default_factory=list)
    entity_all: list[str | int] = field(default_factory=list)
    tag_any: list[str] = field(default_factory=list)
    tag_all: list[str] = field(default_factory=list)
    ids: list[str] | None = None
    k: int | None = None

    @property
    def has_entities(self) -> bool:
        return bool(self.entity_any or self.entity_all)

    @property
    def has_tags(self) -> bool:
        return bool(self.tag_any or self.tag_all)

    def describe(self) -> str:
        parts = []
        if self.text is not None:
            parts.append(f"text: {self.text!r}")
        for name, values in (
            ("entity", self.entity_any),
            ("entity_all", self.entity_all),
            ("tag", self.tag_any),
            ("tag_all", self.tag_all),
        ):
            if values:
                parts.append(f"{name}: {values!r}")
        if self.ids is not None:
            parts.append(f"ids: [{len(self.ids)} ids]")
        return f"events({', '.join(parts)})"


@dataclass
class Hop:
    index: int
    relation: RelationKind
    src: str
    dst: str
    way: Way  # out: src is the stored tail; in: src is the stored head; both: no direction
    rel_var: str | None
    params: dict[str, Any]
    dst_bound: bool
    text: str


@dataclass
class Column:
    name: str
    expr: ast.Expr


@dataclass
class OrderKey:
    column: int | None  # a returned column, or
    expr: ast.Expr | None  # an expression over the walk's row (queries without aggregates or DISTINCT)
    descending: bool


@dataclass
class Plan:
    start: StartSpec
    labels: dict[str, str]
    rel_vars: dict[str, RelationKind]
    hops: list[Hop]
    where: ast.Expr | None
    columns: list[Column]
    distinct: bool
    aggregated: bool
    order: list[OrderKey]
    limit: int | None
    params: dict[str, Any]
    notes: list[str] = field(default_factory=list)
    uses_text_match: bool = False
    properties_used: dict[str, set[str]] = field(default_factory=dict)
    cos_used: bool = False


def _a(word: str) -> str:
    return f"an {word}" if word[:1].lower() in "aeiou" else f"a {word}"


def _shown(var: str) -> str:
    """Anonymous nodes are shown as they were written: ()."""
    return "" if var.startswith(ANON) else var


# --- params ------------------------------------------------------------------------------------


def _scalar(value: Any) -> bool:
    return isinstance(value, (str, int, float)) and not isinstance(value, bool)


def check_params(params: dict[str, Any]) -> dict[str, Any]:
    for name, value in params.items():
        if not name.isidentifier():
            raise Rejection(
                f"parameter name {name!r} is not a name", blocked_by="params", hint=PARAM_VALUE_HINT
            )
        if isinstance(value, float) and not math.isfinite(value):
            raise Rejection(f"parameter ${name} is not a finite number", blocked_by="params")
        if _scalar(value):
            continue
        if isinstance(value, list) and all(_scalar(v) for v in value):
            continue
        raise Rejection(
            f"parameter ${name} is a {type(value).__name__ if value is not None else 'null'}",
            blocked_by="params",
            hint=PARAM_VALUE_HINT,
        )
    return params


class _Validator:
    def __init__(self, query: ast.Query, params: dict[str, Any]) -> None:
        self.query = query
        self.params = params
        self.notes: list[str] = []
        self.labels: dict[str, str] = {}
        self.rel_vars: dict[str, RelationKind] = {}
        self.extra_where: list[ast.Expr] = []
        self.properties_used: dict[str, set[str]] = {}
        self.uses_text_match = False
        self.cos_used = False
        self._anon = 0

    # --- values ---------------------------------------------------------------------------------
    def _param(self, name: str) -> Any:
        if name not in self.params:
            given = ", ".join(f"${p}" for p in sorted(self.params)) or "none"
            raise Rejection(
                f"missing parameter ${name}",
                blocked_by="params",
                hint=f"Pass it in params: {{{name!r}: ...}}. Given: {given}.",
            )
        return self.params[name]

    def _value(self, expr: ast.Expr, where: str) -> tuple[Any, bool]:
        """A constant (literal, parameter, or list of them) and whether a parameter gave it."""
        if isinstance(expr, ast.Lit):
            return expr.value, False
        if isinstance(expr, ast.Param):
            return self._param(expr.name), True
        if isinstance(expr, ast.ListExpr):
            values, from_param = [], False
            for item in expr.items:
                value, given = self._value(item, where)
                if isinstance(value, list):
                    raise Rejection(
                        f"{where}: lists do not nest", blocked_by="params" if given else "grammar"
                    )
                values.append(value)
                from_param = from_param or given
            return values, from_param
        raise Rejection(
            f"{where} takes a constant: a string, a number, a list or a $parameter",
            blocked_by="grammar",
        )

    @staticmethod
    def _blocked(from_param: bool) -> Literal["params", "grammar"]:
        return "params" if from_param else "grammar"

    # --- START ----------------------------------------------------------------------------------
    def start(self) -> StartSpec:
        clause = self.query.start
        if clause.source.lower() != "events":
            raise Rejection(
                f"START reads events(...), not {clause.source}(...)",
                blocked_by="grammar",
                hint='START a = events(text: "..." | entity: "..." | tag: "..." | ids: [...], k: n)',
                start_args=list(START_ARGS),
            )
        spec = StartSpec(var=clause.var)
        seen: set[str] = set()
        names = 0
        for arg in clause.args:
            name = arg.name.lower()
            if name not in START_ARGS:
                raise Rejection(
                    f"events() has no argument {arg.name!r}",
                    blocked_by="grammar",
                    hint="Name the start by text:, entity:, entity_all:, tag:, tag_all: or ids:, and size it with k:.",
                    start_args=list(START_ARGS),
                )
            if name in seen:
                raise Rejection(
                    f"events() takes {name}: once", blocked_by="grammar", start_args=list(START_ARGS)
                )
            seen.add(name)
            value, given = self._value(arg.value, f"events({name}: ...)")
            blocked = self._blocked(given)
            if name == "text":
                if not isinstance(value, str) or not value.strip():
                    raise Rejection("events(text: ...) takes a non-empty string", blocked_by=blocked)
                spec.text = value
            elif name == "k":
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise Rejection("events(k: ...) takes a whole number of 1 or more", blocked_by=blocked)
                spec.k = value
            elif name == "ids":
                ids = value if isinstance(value, list) else [value]
                if not ids or not all(isinstance(i, str) for i in ids):
                    raise Rejection("events(ids: [...]) takes event ids as strings", blocked_by=blocked)
                if len(ids) > IDS_MAX:
                    raise Rejection(f"events(ids: [...]) takes up to {IDS_MAX} ids", blocked_by=blocked)
                spec.ids = list(dict.fromkeys(ids))
            else:
                values = value if isinstance(value, list) else [value]
                kind = "entity" if name.startswith("entity") else "tag"
                allowed: tuple[type, ...] = (str, int) if kind == "entity" else (str,)
                if not values or not all(
                    isinstance(v, allowed)
                    and not isinstance(v, bool)
                    and (not isinstance(v, str) or v.strip())
                    for v in values
                ):
                    what = "names or ids" if kind == "entity" else "names"
                    raise Rejection(f"events({name}: ...) takes {what}, one or a list", blocked_by=blocked)
                names += len(values)
                if names > NAMES_MAX:
                    raise Rejection(
                        f"events() takes up to {NAMES_MAX} entity and tag names in all",
                        blocked_by=blocked,
                        hint="Split the question into several queries, or start from text: within fewer names.",
                    )
                getattr(spec, {"entity": "entity_any", "tag": "tag_any"}.get(name, name)).extend(values)
        if not (seen - {"k"}):
            raise Rejection(
                "events() needs a start: text:, entity:, entity_all:, tag:, tag_all: or ids:",
                blocked_by="grammar",
                hint='START a = events(text: $q, k: 5) or events(entity: "Dana") or events(tag: "deploy").',
                start_args=list(START_ARGS),
            )
        self.labels[spec.var] = "Event"
        return spec

    # --- MATCH ----------------------------------------------------------------------------------
    def _anon_var(self) -> str:
        self._anon += 1
        return f"{ANON}{self._anon}"

    def _label(self, var: str, label: str, where: str) -> bool:
        known = self.labels.get(var)
        if known is None:
            self.labels[var] = label
            return True
        if known != label:
            raise Rejection(
                f"{_shown(var) or 'a node'} is {_a(known)} but {where} needs {_a(label)} there",
                blocked_by="grammar",
                hint=self._shapes_hint(),
                labels=list(LABELS),
            )
        return False

    @staticmethod
    def _shapes_hint() -> str:
        return "Relations: " + ", ".join(kind.shape for kind in RELATIONS.values()) + "."

    def _relation(self, rel: ast.RelPattern) -> RelationKind:
        if not rel.types:
            raise Rejection(
                f"{rel.text or 'a relation'} names no relation type",
                blocked_by="grammar",
                hint="Write the type: -[:SHARES]-, -[:PARTICIPATED_IN]-, ... " + self._shapes_hint(),
                relations=list(RELATIONS),
            )
        if len(rel.types) > 1:
            raise Rejection(
                f"{rel.text}: one relation type per hop",
                blocked_by="grammar",
                hint="Write one hop per type, or one query per type.",
                relations=list(RELATIONS),
            )
        kind = RELATIONS.get(rel.types[0].upper())
        if kind is None:
            raise Rejection(
                f"unknown relation type {rel.types[0]!r}",
                blocked_by="grammar",
                hint=self._shapes_hint(),
                relations=list(RELATIONS),
            )
        if rel.has_range:
            raise Rejection(
                f"{rel.text}: variable-length paths are not supported",
                blocked_by="grammar",
                hint="Chain the hops instead: (a)-[:NEXT]->(b)-[:NEXT]->(c).",
            )
        return kind

    def _rel_params(self, rel: ast.RelPattern, kind: RelationKind) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for key, expr in rel.props.items if rel.props else ():
            if key not in kind.params:
                raise Rejection(
                    f"{kind.name} takes no parameter {key!r}",
                    blocked_by="grammar",
                    hint=(
                        f"{kind.name} takes " + ", ".join(kind.params) + "."
                        if kind.params
                        else f"{kind.name} takes no parameters."
                    ),
                    relation_params=list(kind.params),
                )
            value, given = self._value(expr, f"{kind.name} {{{key}: ...}}")
            blocked = self._blocked(given)
            number = isinstance(value, (int, float)) and not isinstance(value, bool)
            if key == "min" and kind.name in ("SHARES", "CONNECTED"):
                if not isinstance(value, int) or isinstance(value, bool) or value < 1:
                    raise Rejection(
                        f"{kind.name} {{min: n}} takes a whole number of 1 or more", blocked_by=blocked
                    )
            elif key in ("min", "max"):
                if not number or not -1.0 <= float(value) <= 1.0:
                    raise Rejection(
                        f"{kind.name} {{{key}: x}} takes a cosine between -1 and 1", blocked_by=blocked
                    )
                value = float(value)
            elif key == "k":
                if not isinstance(value, int) or isinstance(value, bool) or not value >= 1:
                    raise Rejection(
                        f"{kind.name} {{k: n}} takes a whole number of 1 or more (at most {VECTOR_K_MAX} are used)",
                        blocked_by=blocked,
                    )
            elif key == "relation":
                values = value if isinstance(value, list) else [value]
                if not values or not all(isinstance(v, str) for v in values):
                    raise Rejection(
                        "RESOLVED_BY {relation: ...} takes a name or a list of names", blocked_by=blocked
                    )
                value = values
            out[key] = value
        return out

    def match(self, spec: StartSpec) -> list[Hop]:
        edges: list[tuple[str, str, ast.RelPattern, RelationKind, dict[str, Any]]] = []
        lone: list[str] = []
        for pattern in self.query.patterns:
            names = []
            for node in pattern.nodes:
                var = node.var or self._anon_var()
                if var in self.rel_vars:
                    raise Rejection(f"{var} names a relation and a node", blocked_by="grammar")
                if node.label is not None:
                    label = next((name for name in LABELS if name.lower() == node.label.lower()), None)
                    if label is None:
                        raise Rejection(
                            f"unknown label {node.label!r}",
                            blocked_by="grammar",
                            hint="Events, entities and tags: (a:Event), (e:Entity), (t:Tag).",
                            labels=list(LABELS),
                        )
                    self._label(var, label, node.text)
                if node.props is not None:
                    for key, expr in node.props.items:
                        self.extra_where.append(ast.Compare("=", ast.Prop(ast.Var(var), key), expr))
                names.append(var)
            if not pattern.rels:
                lone.append(names[0])
            for i, rel in enumerate(pattern.rels):
                kind = self._relation(rel)
                if rel.var is not None:
                    if rel.var in self.rel_vars or rel.var in self.labels or rel.var in names:
                        raise Rejection(f"{rel.var} is used twice", blocked_by="grammar")
                    self.rel_vars[rel.var] = kind
                edges.append((names[i], names[i + 1], rel, kind, self._rel_params(rel, kind)))
        for var in self.rel_vars:
            if var in self.labels:
                raise Rejection(f"{var} names a relation and a node", blocked_by="grammar")
        directions = self._infer(edges)
        return self._plan_hops(spec, edges, directions, lone)

    def _infer(
        self, edges: list[tuple[str, str, ast.RelPattern, RelationKind, dict[str, Any]]]
    ) -> list[ast.Direction]:
        directions: list[ast.Direction] = [rel.direction for _, _, rel, _, _ in edges]
        for _left, _right, rel, kind, _ in edges:
            if kind.directed and kind.tail == kind.head and rel.direction == "none":
                hint = (
                    "NEXT joins two events, so write its arrow: (a)-[:NEXT]->(b) is the event after a, "
                    "(a)<-[:NEXT]-(b) the one before."
                    if kind.name == "NEXT"
                    else "RESOLVED_BY runs (plan)-[:RESOLVED_BY]->(evidence): write (a)-[:RESOLVED_BY]->(e) for "
                    "what resolved a, or (a)<-[:RESOLVED_BY]-(p) for the plans a resolved."
                )
                raise Rejection(
                    f"{rel.text} needs an arrow: {kind.name} joins two events and runs one way",
                    blocked_by="grammar",
                    hint=hint,
                    relations=list(RELATIONS),
                )
        changed = True
        while changed:
            changed = False
            for i, (left, right, rel, kind, _) in enumerate(edges):
                if not kind.directed or kind.tail == kind.head:
                    changed |= self._label(left, kind.tail, rel.text)
                    changed |= self._label(right, kind.head, rel.text)
                    continue
                direction = directions[i]
                if direction == "none":
                    known_left, known_right = self.labels.get(left), self.labels.get(right)
                    if known_left == kind.tail or known_right == kind.head:
                        direction = "right"
                    elif known_left == kind.head or known_right == kind.tail:
                        direction = "left"
                    else:
                        continue
                    directions[i] = direction
                    changed = True
                    self.notes.append(self._filled_note(left, right, rel, kind, direction))
                tail, head = (left, right) if direction == "right" else (right, left)
                if (
                    self.labels.get(tail, kind.tail) != kind.tail
                    or self.labels.get(head, kind.head) != kind.head
                ):
                    raise Rejection(
                        f"{rel.text} points the wrong way: {kind.name} runs {kind.shape}",
                        blocked_by="grammar",
                        hint=f"Turn the arrow: {kind.shape}.",
                        relations=list(RELATIONS),
                    )
                changed |= self._label(tail, kind.tail, rel.text)
                changed |= self._label(head, kind.head, rel.text)
        for i, (_left, _right, rel, kind, _) in enumerate(edges):
            if directions[i] == "none" and kind.directed:
                raise Rejection(
                    f"{rel.text}: cannot tell which way {kind.name} runs here",
                    blocked_by="grammar",
                    hint=f"Give a label or the arrow: {kind.shape}.",
                )
            if not kind.directed and directions[i] != "none":
                self.notes.append(
                    f"{kind.name} has no direction: the arrow in {rel.text} was read as -[:{kind.name}]-."
                )
        return directions

    @staticmethod
    def _filled_note(left: str, right: str, rel: ast.RelPattern, kind: RelationKind, direction: str) -> str:
        left, right = _shown(left), _shown(right)
        shown = f"-[{rel.var or ''}:{kind.name}]"
        filled = f"({left}){shown}->({right})" if direction == "right" else f"({left})<{shown}-({right})"
        return (
            f"({left}){rel.text}({right}) was read as {filled}: {kind.name} runs from "
            f"{_a(kind.tail.lower())} to {_a(kind.head.lower())}."
        )

    def _plan_hops(
        self,
        spec: StartSpec,
        edges: list[tuple[str, str, ast.RelPattern, RelationKind, dict[str, Any]]],
        directions: list[ast.Direction],
        lone: list[str],
    ) -> list[Hop]:
        bound = {spec.var}
        pending = list(range(len(edges)))
        hops: list[Hop] = []
        while pending:
            pick = next((i for i in pending if edges[i][0] in bound or edges[i][1] in bound), None)
            if pick is None:
                left, right, rel, _, _ = edges[pending[0]]
                raise Rejection(
                    f"({_shown(left)}){rel.text}({_shown(right)}) does not connect to the START variable {spec.var}",
                    blocked_by="grammar",
                    hint=f"Every pattern walks out from {spec.var}: MATCH ({spec.var})-[:SHARES]-(b), (b)-[:NEXT]->(c).",
                )
            pending.remove(pick)
            left, right, rel, kind, params = edges[pick]
            src, dst = (left, right) if left in bound else (right, left)
            if not kind.directed:
                way: Way = "both"
            else:
                tail = left if directions[pick] == "right" else right
                way = "out" if src == tail else "in"
            hops.append(
                Hop(
                    index=len(hops) + 1,
                    relation=kind,
                    src=src,
                    dst=dst,
                    way=way,
                    rel_var=rel.var,
                    params=params,
                    dst_bound=dst in bound,
                    text=f"({_shown(left)}){rel.text}({_shown(right)})",
                )
            )
            bound.add(dst)
        for var in lone:
            if var not in bound:
                raise Rejection(
                    f"({var}) does not connect to the START variable {spec.var}",
                    blocked_by="grammar",
                    hint=f"Every pattern walks out from {spec.var}.",
                )
        for var in self.labels:
            if var not in bound:
                raise Rejection(
                    f"({var}) does not connect to the START variable {spec.var}", blocked_by="grammar"
                )
        return hops

    # --- expressions ----------------------------------------------------------------------------
    def _variables(self) -> list[str]:
        return [v for v in [*self.labels, *self.rel_vars] if not v.startswith(ANON)]

    def expr(
        self, expr: ast.Expr, clause: str, *, in_aggregate: bool = False, aliases: set[str] | None = None
    ) -> bool:
        """Check an expression; True when it holds an aggregate."""
        if isinstance(expr, ast.Lit):
            return False
        if isinstance(expr, ast.Param):
            self._param(expr.name)
            return False
        if isinstance(expr, ast.Var):
            if (
                expr.name not in self.labels
                and expr.name not in self.rel_vars
                and expr.name not in (aliases or set())
            ):
                raise Rejection(
                    f"unknown variable {expr.name!r} in {clause}",
                    blocked_by="grammar",
                    hint="Name a variable of START or MATCH" + (", or a RETURN alias." if aliases else "."),
                    variables=self._variables(),
                )
            return False
        if isinstance(expr, ast.Prop):
            if not isinstance(expr.subject, ast.Var):
                raise Rejection(
                    f"properties are read from a variable (x.{expr.name}) in {clause}", blocked_by="grammar"
                )
            var = expr.subject.name
            self.expr(expr.subject, clause, in_aggregate=in_aggregate)
            if var in self.rel_vars:
                kind = self.rel_vars[var]
                allowed = ("type", *kind.properties)
                owner = f"a {kind.name} relation"
            else:
                label = self.labels[var]
                allowed = LABELS[label]
                owner = _a(label)
            if expr.name not in allowed:
                raise Rejection(
                    f"{owner} has no property {expr.name!r}",
                    blocked_by="grammar",
                    hint=f"{var} is {owner}: " + ", ".join(allowed) + ".",
                    properties=list(allowed),
                )
            self.properties_used.setdefault(var, set()).add(expr.name)
            return False
        if isinstance(expr, (ast.ListExpr,)):
            return any([self.expr(i, clause, in_aggregate=in_aggregate, aliases=aliases) for i in expr.items])
        if isinstance(expr, ast.MapExpr):
            return any(
                [self.expr(v, clause, in_aggregate=in_aggregate, aliases=aliases) for _, v in expr.items]
            )
        if isinstance(expr, ast.Call):
            return self._call(expr, clause, in_aggregate=in_aggregate, aliases=aliases)
        if isinstance(expr, ast.Compare):
            if expr.op in ("CONTAINS", "STARTS WITH", "ENDS WITH"):
                self.uses_text_match = True
                self._piece(expr)
            left = self.expr(expr.left, clause, in_aggregate=in_aggregate, aliases=aliases)
            right = self.expr(expr.right, clause, in_aggregate=in_aggregate, aliases=aliases)
            return left or right
        if isinstance(expr, ast.IsNull):
            return self.expr(expr.operand, clause, in_aggregate=in_aggregate, aliases=aliases)
        if isinstance(expr, ast.BoolOp):
            return any(
                [self.expr(o, clause, in_aggregate=in_aggregate, aliases=aliases) for o in expr.operands]
            )
        if isinstance(expr, (ast.Not, ast.Negate)):
            return self.expr(expr.operand, clause, in_aggregate=in_aggregate, aliases=aliases)
        raise AssertionError(expr)

    def _piece(self, expr: ast.Compare) -> None:
        if not isinstance(expr.right, (ast.Lit, ast.Param)):
            return
        value, given = self._value(expr.right, expr.op)
        blocked = self._blocked(given)
        if not isinstance(value, str):
            raise Rejection(f"{expr.op} takes a string", blocked_by=blocked, hint=PIECE_RULE)
        if not piece_ok(value):
            raise Rejection(f"{expr.op} piece {value!r} is too short", blocked_by=blocked, hint=PIECE_RULE)

    def _call(self, expr: ast.Call, clause: str, *, in_aggregate: bool, aliases: set[str] | None) -> bool:
        if expr.name not in FUNCTIONS:
            raise Rejection(
                f"unknown function {expr.name}()",
                blocked_by="grammar",
                hint="Aggregates count, collect, min, max, avg, sum (in RETURN), and cos(a, b) between two events.",
                functions=list(FUNCTIONS),
            )
        if expr.name == "cos":
            if expr.distinct or expr.star or len(expr.args) != 2:
                raise Rejection(
                    "cos(a, b) takes two event variables", blocked_by="grammar", functions=list(FUNCTIONS)
                )
            for arg in expr.args:
                if not isinstance(arg, ast.Var) or self.labels.get(arg.name) != "Event":
                    raise Rejection("cos(a, b) takes two event variables", blocked_by="grammar")
            self.cos_used = True
            return False
        if clause == "WHERE":
            raise Rejection(
                f"{expr.name}() aggregates, and WHERE filters single rows",
                blocked_by="grammar",
                hint="Aggregate in RETURN; put a minimum on a hop as a relation parameter, e.g. -[:SHARES {min: 3}]-.",
            )
        if in_aggregate:
            raise Rejection(f"{expr.name}() inside another aggregate", blocked_by="grammar")
        if expr.star:
            if expr.name != "count" or expr.distinct:
                raise Rejection(f"{expr.name}(*) is not a function; count(*) is", blocked_by="grammar")
            return True
        if len(expr.args) != 1:
            raise Rejection(f"{expr.name}() takes one argument", blocked_by="grammar")
        self.expr(expr.args[0], clause, in_aggregate=True, aliases=aliases)
        return True

    # --- RETURN / ORDER BY / LIMIT --------------------------------------------------------------
    def returns(self) -> tuple[list[Column], bool]:
        columns: list[Column] = []
        aggregated = False
        for item in self.query.items:
            aggregated |= self.expr(item.expr, "RETURN")
            name = item.alias or item.text
            if any(c.name == name for c in columns):
                raise Rejection(
                    f"two RETURN columns are named {name!r}",
                    blocked_by="grammar",
                    hint="Give one an alias: ... AS other.",
                )
            columns.append(Column(name=name, expr=item.expr))
        return columns, aggregated

    def order(self, columns: list[Column], aggregated: bool, distinct: bool) -> list[OrderKey]:
        keys = []
        aliases = {c.name for c in columns}
        for item in self.query.order:
            index = None
            if isinstance(item.expr, ast.Var) and item.expr.name in aliases:
                index = next(i for i, c in enumerate(columns) if c.name == item.expr.name)
            else:
                index = next((i for i, c in enumerate(columns) if c.expr == item.expr), None)
            if index is not None:
                keys.append(OrderKey(column=index, expr=None, descending=item.descending))
                continue
            returned = {c.expr.name for c in columns if isinstance(c.expr, ast.Var)}
            if (aggregated or distinct) and not ast.variables(item.expr) <= returned:
                raise Rejection(
                    f"ORDER BY {item.text}: after an aggregate or DISTINCT, order by returned columns "
                    "or by properties of returned variables",
                    blocked_by="grammar",
                    hint="Return it too, or order by an alias: RETURN b, count(e) AS n ORDER BY n DESC.",
                )
            if self.expr(item.expr, "ORDER BY"):
                raise Rejection(
                    f"ORDER BY {item.text}: aggregate in RETURN and order by its alias", blocked_by="grammar"
                )
            keys.append(OrderKey(column=None, expr=item.expr, descending=item.descending))
        return keys

    def limit(self) -> int | None:
        if self.query.limit is None:
            return None
        value, given = self._value(self.query.limit, "LIMIT")
        if not isinstance(value, int) or isinstance(value, bool) or value < 0:
            raise Rejection("LIMIT takes a whole number of 0 or more", blocked_by=self._blocked(given))
        return value

    def plan(self) -> Plan:
        spec = self.start()
        hops = self.match(spec)
        where = self.query.where
        conjuncts = [*self.extra_where, *([where] if where is not None else [])]
        combined: ast.Expr | None = None
        if conjuncts:
            combined = conjuncts[0] if len(conjuncts) == 1 else ast.BoolOp("AND", tuple(conjuncts))
            self.expr(combined, "WHERE")
        columns, aggregated = self.returns()
        order = self.order(columns, aggregated, self.query.distinct)
        return Plan(
            start=spec,
            labels=self.labels,
            rel_vars=self.rel_vars,
            hops=hops,
            where=combined,
            columns=columns,
            distinct=self.query.distinct,
            aggregated=aggregated,
            order=order,
            limit=self.limit(),
            params=self.params,
            notes=self.notes,
            uses_text_match=self.uses_text_match,
            properties_used=self.properties_used,
            cos_used=self.cos_used,
        )


def validate(query: ast.Query, params: dict[str, Any]) -> Plan:
    """The plan for a parsed query; a ``Rejection`` (grammar or params) when it cannot run."""
    return _Validator(query, check_params(params)).plan()
