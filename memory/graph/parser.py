"""Query text -> ``memory.graph.ast.Query``, or a ``Rejection`` (blocked_by syntax or grammar)."""

from __future__ import annotations

import re
from typing import Any

from lark import Token, Transformer, Tree, v_args
from lark.exceptions import UnexpectedCharacters, UnexpectedEOF, UnexpectedInput, UnexpectedToken

from memory.graph import ast
from memory.graph.errors import Rejection
from memory.graph.grammar import graph_parser

MAX_QUERY_CHARS = 10_000
MAX_DEPTH = 100
NO_WITH_HINT = (
    "There is no WITH: put conditions on a hop in relation parameters, such as "
    "-[:SHARES {min: 3}]- or -[:CONNECTED {min: 2}]-, filter rows with WHERE and aggregate in RETURN."
)
READ_ONLY_HINT = "query_memory_graph only reads: START, MATCH, WHERE, RETURN, ORDER BY and LIMIT."
CLAUSES = ["START", "MATCH", "WHERE", "RETURN", "ORDER BY", "LIMIT"]
# Cypher words the subset leaves out on purpose: the parser stops at them with a grammar hint.
LEFT_OUT: dict[str, str] = {
    "WITH": NO_WITH_HINT,
    "OPTIONAL": "There is no OPTIONAL MATCH: every pattern must hold; run a second query for the optional part.",
    "UNWIND": "There is no UNWIND: pass lists in START (entity: [..], ids: [..]) or use IN in WHERE.",
    "UNION": "There is no UNION: run one query per part.",
    "SKIP": "There is no SKIP: narrow the start or the WHERE instead, and use LIMIT (up to 200).",
    "CALL": READ_ONLY_HINT,
    "CREATE": READ_ONLY_HINT,
    "MERGE": READ_ONLY_HINT,
    "DELETE": READ_ONLY_HINT,
    "DETACH": READ_ONLY_HINT,
    "SET": READ_ONLY_HINT,
    "REMOVE": READ_ONLY_HINT,
    "FOREACH": READ_ONLY_HINT,
    "LOAD": READ_ONLY_HINT,
}
START_HINT = (
    'A query opens with START a = events(text: "..." | entity: "..." | tag: "..." | ids: [...], k: n), '
    "then MATCH (optional), WHERE, RETURN, ORDER BY, LIMIT."
)
TERMINAL_WORDS = {
    "NAME": "a name",
    "STRING": "a string",
    "INT": "an integer",
    "NUMBER": "a number",
    "PARAM": "a $parameter",
    "COMP_OP": "a comparison",
    "$END": "the end of the query",
}
_ESCAPES = re.compile(r"\\(u[0-9a-fA-F]{4}|.)", re.S)
_SIMPLE_ESCAPES = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def _unescape(raw: str) -> str:
    def one(match: re.Match[str]) -> str:
        code = match.group(1)
        if code.startswith("u") and len(code) == 5:
            return chr(int(code[1:], 16))
        return _SIMPLE_ESCAPES.get(code, code)

    return _ESCAPES.sub(one, raw[1:-1])


def _name(token: Token) -> str:
    text = str(token)
    return text[1:-1] if text.startswith("`") else text


def _present(children: list[Any]) -> list[Any]:
    return [c for c in children if c is not None and not isinstance(c, Token)]


class _ToAst(Transformer[Token, Any]):
    def __init__(self, text: str) -> None:
        super().__init__()
        self.text = text

    def _slice(self, meta: Any) -> str:
        if getattr(meta, "empty", True):
            return ""
        return " ".join(self.text[meta.start_pos : meta.end_pos].split())

    # --- clauses -----------------------------------------------------------------------------
    def query(self, children: list[Any]) -> ast.Query:
        parts: dict[str, Any] = {}
        for child in children:
            if isinstance(child, tuple):
                parts[child[0]] = child[1]
        return ast.Query(
            start=parts["start"],
            patterns=parts.get("match", ()),
            where=parts.get("where"),
            distinct=parts["return"][0],
            items=parts["return"][1],
            order=parts.get("order", ()),
            limit=parts.get("limit"),
        )

    def start_clause(self, children: list[Any]) -> tuple[str, ast.StartClause]:
        _, var, source, *args = children
        return "start", ast.StartClause(var=_name(var), source=_name(source), args=tuple(_present(args)))

    @v_args(meta=True)
    def start_arg(self, meta: Any, children: list[Any]) -> ast.StartArg:
        return ast.StartArg(name=_name(children[0]), value=children[1], text=self._slice(meta))

    def match_clause(self, children: list[Any]) -> tuple[str, tuple[ast.Pattern, ...]]:
        return "match", tuple(_present(children))

    def pattern(self, children: list[Any]) -> ast.Pattern:
        nodes = tuple(c for c in children if isinstance(c, ast.NodePattern))
        rels = tuple(c for c in children if isinstance(c, ast.RelPattern))
        return ast.Pattern(nodes=nodes, rels=rels)

    @v_args(meta=True)
    def node_pattern(self, meta: Any, children: list[Any]) -> ast.NodePattern:
        var, label, props = children
        return ast.NodePattern(
            var=_name(var) if var is not None else None,
            label=_name(label) if label is not None else None,
            props=props,
            text=self._slice(meta),
        )

    def _rel(self, meta: Any, children: list[Any], direction: ast.Direction) -> ast.RelPattern:
        body = children[1]
        var, types, has_range, props = body if body is not None else (None, (), False, None)
        return ast.RelPattern(
            var=var,
            types=types,
            direction=direction,
            props=props,
            has_range=has_range,
            text=self._slice(meta),
        )

    @v_args(meta=True)
    def rel_left(self, meta: Any, children: list[Any]) -> ast.RelPattern:
        return self._rel(meta, children, "left")

    @v_args(meta=True)
    def rel_right(self, meta: Any, children: list[Any]) -> ast.RelPattern:
        return self._rel(meta, children, "right")

    @v_args(meta=True)
    def rel_both(self, meta: Any, children: list[Any]) -> ast.RelPattern:
        return self._rel(meta, children, "none")

    def rel_body(self, children: list[Any]) -> tuple[str | None, tuple[str, ...], bool, ast.MapExpr | None]:
        var, types, range_, props = children
        return (_name(var) if var is not None else None, types or (), range_ is not None, props)

    def rel_types(self, children: list[Any]) -> tuple[str, ...]:
        return tuple(_name(c) for c in children if isinstance(c, Token) and c.type == "NAME")

    def rel_range(self, children: list[Any]) -> bool:
        return True

    def where_clause(self, children: list[Any]) -> tuple[str, ast.Expr]:
        return "where", children[1]

    def return_clause(self, children: list[Any]) -> tuple[str, tuple[bool, tuple[ast.ReturnItem, ...]]]:
        distinct = children[1] is not None
        return "return", (distinct, tuple(_present(children[2:])))

    @v_args(meta=True)
    def return_item(self, meta: Any, children: list[Any]) -> ast.ReturnItem:
        expr, _, alias = children
        text = self._slice(meta)
        if alias is not None:
            text = re.split(r"\s+as\s+", text, flags=re.I)[0] if re.search(r"\s+as\s+", text, re.I) else text
        return ast.ReturnItem(expr=expr, alias=_name(alias) if alias is not None else None, text=text)

    def order_clause(self, children: list[Any]) -> tuple[str, tuple[ast.OrderItem, ...]]:
        return "order", tuple(c for c in children if isinstance(c, ast.OrderItem))

    @v_args(meta=True)
    def order_item(self, meta: Any, children: list[Any]) -> ast.OrderItem:
        expr, direction = children
        return ast.OrderItem(expr=expr, descending=direction == "DESC", text=self._slice(meta))

    def direction(self, children: list[Any]) -> str:
        return "DESC" if children[0].type == "DESC" else "ASC"

    def limit_clause(self, children: list[Any]) -> tuple[str, ast.Lit | ast.Param]:
        token = children[1]
        if token.type == "PARAM":
            return "limit", ast.Param(str(token)[1:])
        return "limit", ast.Lit(int(token))

    # --- expressions --------------------------------------------------------------------------
    def _bool(self, op: Any, children: list[Any]) -> ast.BoolOp:
        return ast.BoolOp(op=op, operands=tuple(c for c in children if not isinstance(c, Token)))

    def or_expr(self, children: list[Any]) -> ast.BoolOp:
        return self._bool("OR", children)

    def xor_expr(self, children: list[Any]) -> ast.BoolOp:
        return self._bool("XOR", children)

    def and_expr(self, children: list[Any]) -> ast.BoolOp:
        return self._bool("AND", children)

    def not_op(self, children: list[Any]) -> ast.Not:
        return ast.Not(children[1])

    def compare(self, children: list[Any]) -> ast.Compare:
        left, op, right = children
        return ast.Compare(op="<>" if op == "!=" else str(op), left=left, right=right)

    def contains(self, children: list[Any]) -> ast.Compare:
        return ast.Compare(op="CONTAINS", left=children[0], right=children[2])

    def starts_with(self, children: list[Any]) -> ast.Compare:
        return ast.Compare(op="STARTS WITH", left=children[0], right=children[3])

    def ends_with(self, children: list[Any]) -> ast.Compare:
        return ast.Compare(op="ENDS WITH", left=children[0], right=children[3])

    def in_list(self, children: list[Any]) -> ast.Compare:
        return ast.Compare(op="IN", left=children[0], right=children[2])

    def is_null(self, children: list[Any]) -> ast.IsNull:
        return ast.IsNull(operand=children[0], negated=False)

    def is_not_null(self, children: list[Any]) -> ast.IsNull:
        return ast.IsNull(operand=children[0], negated=True)

    def negate(self, children: list[Any]) -> ast.Expr:
        operand = children[1]
        if isinstance(operand, ast.Lit) and isinstance(operand.value, (int, float)):
            return ast.Lit(-operand.value)
        return ast.Negate(operand)

    def prop(self, children: list[Any]) -> ast.Prop:
        return ast.Prop(subject=children[0], name=_name(children[1]))

    def string(self, children: list[Any]) -> ast.Lit:
        return ast.Lit(_unescape(str(children[0])))

    def number(self, children: list[Any]) -> ast.Lit:
        token = children[0]
        return ast.Lit(int(token) if token.type == "INT" else float(token))

    def true(self, children: list[Any]) -> ast.Lit:
        return ast.Lit(True)

    def false(self, children: list[Any]) -> ast.Lit:
        return ast.Lit(False)

    def null(self, children: list[Any]) -> ast.Lit:
        return ast.Lit(None)

    def param(self, children: list[Any]) -> ast.Param:
        return ast.Param(str(children[0])[1:])

    def var(self, children: list[Any]) -> ast.Var:
        return ast.Var(_name(children[0]))

    def func_call(self, children: list[Any]) -> ast.Call:
        name, distinct, args = children
        star = args == "*"
        return ast.Call(
            name=_name(name).lower(),
            args=() if star or args is None else tuple(args),
            distinct=distinct is not None,
            star=star,
        )

    def call_args(self, children: list[Any]) -> str | list[ast.Expr]:
        if len(children) == 1 and isinstance(children[0], Token) and children[0].type == "STAR":
            return "*"
        return [c for c in children if not isinstance(c, Token)]

    def list_lit(self, children: list[Any]) -> ast.ListExpr:
        return ast.ListExpr(tuple(_present(children)))

    def map_lit(self, children: list[Any]) -> ast.MapExpr:
        return ast.MapExpr(tuple(_present(children)))

    def map_entry(self, children: list[Any]) -> tuple[str, ast.Expr]:
        return (_name(children[0]), children[1])


def _expected(names: Any) -> str:
    parser = graph_parser()
    shown = []
    for name in sorted(names):
        if name in TERMINAL_WORDS:
            shown.append(TERMINAL_WORDS[name])
            continue
        try:
            pattern = parser.get_terminal(name).pattern
        except KeyError:
            shown.append(name)
            continue
        if pattern.type == "str":
            shown.append(f"'{pattern.value}'")
        else:
            shown.append(name)
    return ", ".join(dict.fromkeys(shown))


def _where(error: UnexpectedInput) -> str:
    return f"line {error.line}, column {error.column}"


def _rejection(error: UnexpectedInput, text: str) -> Rejection:
    if isinstance(error, UnexpectedToken) and error.token.type != "$END":
        word = str(error.token.value)
        upper = word.upper()
        if upper in LEFT_OUT:
            return Rejection(
                f"{upper} is not part of the query_memory_graph subset ({_where(error)})",
                blocked_by="grammar",
                hint=LEFT_OUT[upper],
                clauses=CLAUSES,
            )
        if error.token.start_pos == len(text) - len(text.lstrip()) and upper != "START":
            return Rejection(
                f"a query opens with START, not {word!r}",
                blocked_by="grammar",
                hint=START_HINT,
                clauses=CLAUSES,
            )
        if upper == "MATCH":
            return Rejection(
                f"one MATCH clause per query ({_where(error)})",
                blocked_by="grammar",
                hint="Put every pattern in one MATCH, separated by commas: MATCH (a)-[:SHARES]-(b), (b)-[:NEXT]->(c).",
                clauses=CLAUSES,
            )
        return Rejection(
            f"syntax error at {_where(error)}: unexpected {word!r}; expected {_expected(error.expected)}",
            blocked_by="syntax",
            hint=START_HINT if "RETURN" in error.expected else None,
        )
    if isinstance(error, (UnexpectedEOF, UnexpectedToken)):
        expected = {str(e) for e in error.expected}
        hint = (
            "A query ends with RETURN ..., then ORDER BY and LIMIT if wanted."
            if "RETURN" in expected
            else None
        )
        return Rejection(
            f"syntax error: the query ended early; expected {_expected(expected)}",
            blocked_by="syntax",
            hint=hint,
        )
    assert isinstance(error, UnexpectedCharacters)
    return Rejection(
        f"syntax error at {_where(error)}: unexpected character {text[error.pos_in_stream or 0]!r}",
        blocked_by="syntax",
        hint="Strings go in quotes, parameters are $name, relations are written -[:TYPE]-> .",
    )


def _depth(tree: Tree[Token]) -> int:
    deepest, stack = 0, [(tree, 1)]
    while stack:
        node, depth = stack.pop()
        deepest = max(deepest, depth)
        stack.extend((child, depth + 1) for child in node.children if isinstance(child, Tree))
    return deepest


def parse_query(text: str) -> ast.Query:
    """The query's AST; a ``Rejection`` when it is not in the grammar."""
    if not text.strip():
        raise Rejection("the query is empty", blocked_by="syntax", hint=START_HINT)
    if len(text) > MAX_QUERY_CHARS:
        raise Rejection(
            f"the query is longer than {MAX_QUERY_CHARS} characters", blocked_by="syntax", hint=START_HINT
        )
    try:
        tree: Tree[Token] = graph_parser().parse(text)
    except UnexpectedInput as error:
        raise _rejection(error, text) from None
    if _depth(tree) > MAX_DEPTH:
        raise Rejection(
            f"the query nests deeper than {MAX_DEPTH} levels", blocked_by="syntax", hint="Write it flatter."
        )
    query = _ToAst(text).transform(tree)
    assert isinstance(query, ast.Query)
    return query
