"""What every secret scanner shares: the found-span record, the scanner signature, the lower-cased copy.

A scanner is a function ``scan(text, low, found, vetoed) -> None``:

* ``text``: the original text; offsets are always offsets in it;
* ``low``: ``lowered(text)``, same length (case-insensitive scans run on it, case-sensitively);
* ``found``: the scanner appends a :class:`Found` for every secret span it accepts;
* ``vetoed``: spans that a scanner judged *not* secret (the value of ``public_key = ...``); scanners that run
  later leave values inside them alone.

``memory.guard.redaction.find_secrets`` runs the scanners of ``SCANNERS`` in order and resolves overlaps.
"""

from __future__ import annotations

import bisect
import itertools
from collections.abc import Callable
from dataclasses import dataclass


@dataclass(frozen=True)
class Found:
    """A secret span: the highest ``priority`` wins where spans overlap, then the longest, then the first."""

    start: int
    end: int
    rule: str
    priority: int


Vetoed = list[tuple[int, int]]
Scanner = Callable[[str, str, list[Found], Vetoed], None]

_ASCII_LOWER = str.maketrans("ABCDEFGHIJKLMNOPQRSTUVWXYZ", "abcdefghijklmnopqrstuvwxyz")


def lowered(text: str) -> str:
    """``text`` in lower case with the same length (so offsets carry over)."""
    low = text.lower()
    return low if len(low) == len(text) else text.translate(_ASCII_LOWER)


def _starts_and_reach(spans: Vetoed) -> tuple[list[int], list[int]]:
    """The spans' starts, sorted, and for each i the furthest end among the first i+1 of them."""
    ordered = sorted(spans)
    return [s for s, _ in ordered], list(itertools.accumulate((e for _, e in ordered), max))


def overlap_test(spans: Vetoed) -> Callable[[int, int], bool]:
    """``test(start, end)``: does any of ``spans`` overlap [start, end)? Sorted once, then a binary search
    and a running maximum of the ends: a 100 kB note with thousands of vetoed values and thousands of
    candidates was checked pair by pair."""
    starts, reach = _starts_and_reach(spans)

    def test(start: int, end: int) -> bool:
        i = bisect.bisect_left(starts, end)  # spans starting before ``end``
        return i > 0 and reach[i - 1] > start

    return test


def containment_test(spans: Vetoed) -> Callable[[int, int], bool]:
    """``test(start, end)``: does one of ``spans`` hold all of [start, end)? The same sorting and running
    maximum as ``overlap_test``: of the spans starting at or before ``start``, the furthest end decides."""
    starts, reach = _starts_and_reach(spans)

    def test(start: int, end: int) -> bool:
        i = bisect.bisect_right(starts, start)  # spans starting at or before ``start``
        return i > 0 and reach[i - 1] >= end

    return test
