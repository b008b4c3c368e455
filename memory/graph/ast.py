"""The parsed query: plain frozen dataclasses, compared by structure (source text aside)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Union

Direction = Literal["left", "right", "none"]


@dataclass(frozen=True)
class Lit:
    value: Any


@dataclass(frozen=True)
class Param:
    name: str


@dataclass(frozen=True)
class Var:
    name: str


@dataclass(frozen=True)
class Prop:
    subject: Expr
    name: str


@dataclass(frozen=True)
class ListExpr:
    items: tuple[Expr, ...]


@dataclass(frozen=True)
class MapExpr:
    items: tuple[tuple[str, Expr], ...]


@dataclass(frozen=True)
class Call:
    name: str
    args: tuple[Expr, ...]
    distinct: bool = False
    star: bool = False


@dataclass(frozen=True)
class Compare:
    """``=``, ``<>``, ``<``, ``<=``, ``>``, ``>=``, ``CONTAINS``, ``STARTS``, ``ENDS``, ``IN``."""

    op: str
    left: Expr
    right: Expr


@dataclass(frozen=True)
class IsNull:
    operand: Expr
    negated: bool


@dataclass(frozen=True)
class BoolOp:
    op: Literal["AND", "OR", "XOR"]
    operands: tuple[Expr, ...]


@dataclass(frozen=True)
class Not:
    operand: Expr


@dataclass(frozen=True)
class Negate:
    operand: Expr


Expr = Union[Lit, Param, Var, Prop, ListExpr, MapExpr, Call, Compare, IsNull, BoolOp, Not, Negate]  # noqa: UP007


@dataclass(frozen=True)
class NodePattern:
    var: str | None
    label: str | None
    props: MapExpr | None
    text: str = field(compare=False, default="")


@dataclass(frozen=True)
class RelPattern:
    var: str | None
    types: tuple[str, ...]
    direction: Direction
    props: MapExpr | None
    has_range: bool
    text: str = field(compare=False, default="")


@dataclass(frozen=True)
class Pattern:
    nodes: tuple[NodePattern, ...]
    rels: tuple[RelPattern, ...]


@dataclass(frozen=True)
class StartArg:
    name: str
    value: Expr
    text: str = field(compare=False, default="")


@dataclass(frozen=True)
class StartClause:
    var: str
    source: str
    args: tuple[StartArg, ...]


@dataclass(frozen=True)
class ReturnItem:
    expr: Expr
    alias: str | None
    text: str = field(compare=False, default="")


@dataclass(frozen=True)
class OrderItem:
    expr: Expr
    descending: bool
    text: str = field(compare=False, default="")


@dataclass(frozen=True)
class Query:
    start: StartClause
    patterns: tuple[Pattern, ...]
    where: Expr | None
    distinct: bool
    items: tuple[ReturnItem, ...]
    order: tuple[OrderItem, ...]
    limit: Lit | Param | None


def children(expr: Expr) -> tuple[Expr, ...]:
    """The sub-expressions of an expression."""
    if isinstance(expr, Prop):
        return (expr.subject,)
    if isinstance(expr, Call):
        return expr.args
    if isinstance(expr, Compare):
        return (expr.left, expr.right)
    if isinstance(expr, (IsNull, Not, Negate)):
        return (expr.operand,)
    if isinstance(expr, BoolOp):
        return expr.operands
    if isinstance(expr, ListExpr):
        return expr.items
    if isinstance(expr, MapExpr):
        return tuple(value for _, value in expr.items)
    return ()


def variables(expr: Expr) -> set[str]:
    """The variables an expression reads."""
    if isinstance(expr, Var):
        return {expr.name}
    found: set[str] = set()
    for child in children(expr):
        found |= variables(child)
    return found
