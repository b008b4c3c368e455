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
