"""Runtime values of the graph language: nodes, relationships, name folding, comparison and order."""

from __future__ import annotations

import unicodedata
from dataclasses import dataclass, field
from functools import cmp_to_key
from typing import Any

from memory.text import fold


@dataclass(frozen=True)
class Node:
    label: str  # Event, Entity or Tag
    id: Any  # uuid.UUID for events, int otherwise


@dataclass(frozen=True)
class Rel:
    type: str
    src: Any  # the stored tail's id
    dst: Any  # the stored head's id
    props: tuple[tuple[str, Any], ...] = field(default=())

    def get(self, name: str) -> Any:
        if name == "type":
            return self.type
        return dict(self.props).get(name)


def _is_han_or_hangul(char: str) -> bool:
    name = unicodedata.name(char, "")
    return name.startswith(("CJK UNIFIED IDEOGRAPH", "CJK COMPATIBILITY IDEOGRAPH", "HANGUL"))


def piece_ok(piece: str) -> bool:
    """A CONTAINS piece: two characters, or one Hangul or Han character (after case/width folding)."""
    folded = fold(piece)
    return len(folded) >= 2 or any(_is_han_or_hangul(c) for c in folded)


PIECE_RULE = (
    "A CONTAINS piece that is all ASCII needs at least two characters; one Hangul or Han character is "
    "enough. Letter case and full-width forms are ignored."
)


def text_match(op: str, left: Any, right: Any) -> bool | None:
    """CONTAINS / STARTS WITH / ENDS WITH on folded text; null when either side is not text."""
    if not isinstance(left, str) or not isinstance(right, str):
        return None
    if not piece_ok(right):
        return None
    haystack, needle = fold(left), fold(right)
    if op == "CONTAINS":
        return needle in haystack
    if op == "STARTS WITH":
        return haystack.startswith(needle)
    return haystack.endswith(needle)


def _kind(value: Any) -> int:
    if isinstance(value, bool):
        return 1
    if isinstance(value, (int, float)):
        return 2
    if isinstance(value, str):
        return 3
    if isinstance(value, Node):
        return 4
    if isinstance(value, Rel):
        return 5
    if isinstance(value, (list, tuple)):
        return 6
    return 7


def comparable(value: Any) -> Any:
    """A key that orders values of one kind (nodes by id, lists item by item)."""
    if isinstance(value, Node):
        return str(value.id)
    if isinstance(value, Rel):
        return (value.type, str(value.src), str(value.dst))
    if isinstance(value, (list, tuple)):
        return tuple((_kind(v), comparable(v)) for v in value)
    if isinstance(value, dict):
        return str(sorted(value.items()))
    return value


def compare(left: Any, right: Any) -> int | None:
    """-1, 0 or 1; null when either is null or they are of different kinds."""
    if left is None or right is None or _kind(left) != _kind(right):
        return None
    a, b = comparable(left), comparable(right)
    return (a > b) - (a < b)


def equal(left: Any, right: Any) -> bool | None:
    if left is None or right is None:
        return None
    if _kind(left) != _kind(right):
        return False
    return bool(comparable(left) == comparable(right))


def hashable(value: Any) -> Any:
    """A key for DISTINCT and grouping."""
    if isinstance(value, list):
        return ("list", tuple(hashable(v) for v in value))
    if isinstance(value, dict):
        return ("map", tuple(sorted((k, hashable(v)) for k, v in value.items())))
    if isinstance(value, float) and value.is_integer():
        return int(value)
    return value


def order_rows(rows: list[Any], keys: list[tuple[Any, bool]]) -> list[Any]:
    """Sort by (key function, descending) pairs; nulls sort last in either direction."""

    def cmp(a: Any, b: Any) -> int:
        for key, descending in keys:
            x, y = key(a), key(b)
            if x is None and y is None:
                continue
            if x is None:
                return 1
            if y is None:
                return -1
            kx, ky = _kind(x), _kind(y)
            if kx != ky:
                result = (kx > ky) - (kx < ky)
            else:
                cx, cy = comparable(x), comparable(y)
                result = (cx > cy) - (cx < cy)
            if result:
                return -result if descending else result
        return 0

    return sorted(rows, key=cmp_to_key(cmp))
