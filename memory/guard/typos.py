"""Words of an attack misspelled on purpose or in haste ("egnore previous instructions", "ignur ur provious
instrcutions", "forgetttttt your traininggggg"): views with them spelled right, for the rules to read
(``poisoning._poisoning``, after the obfuscated views; the words: ``data/typos.toml``)::

    the base view ──> its runs of five letters or more, each examined once
                  ──> a run of one letter three times or more squeezed to one ("forgetttttt" -> forget)
                  ──> a token no listed word begins and no listed real word, within one edit of a listed word
                      of six or seven letters, two of a longer one (a swap of neighbours is one edit):
                      read as that word (candidates found by deletions, as SymSpell does, then counted)
                  ──> where one was found: chat's short forms read out too ("ur" your, "u" you)
                  ──> windows of the view around them, those tokens replaced (none where nothing was)

The views only feed the detectors, which still need a whole order ("ignore" and what it sets aside), so a word
misread as a listed one ("sytem") changes no verdict alone. English only: another language is a table of its own
in the data file.
"""

from __future__ import annotations

import functools
import re
import tomllib
from collections.abc import Iterator

from .engine import _WINDOW, DATA
from .normalize import _snippets

_TOKEN = re.compile(r"(?<![a-z0-9])[a-z]{1,24}(?![a-z0-9])")
_RUN = re.compile(r"([a-z])\1{2,}")
_MIN_TOKEN = 5
_MAX_SPANS = 500
# the candidates: runs of letters as long as a token examined
_LONG_RUN = re.compile(rf"[a-z]{{{_MIN_TOKEN},}}")


@functools.cache
def _tables() -> tuple[dict[str, set[str]], frozenset[str], frozenset[str], dict[str, str]]:
    """(a deletion of a listed word -> the words it comes from, the listed words, the real words left alone,
    the short forms)."""
    with (DATA / "typos.toml").open("rb") as f:
        data = tomllib.load(f)
    index: dict[str, set[str]] = {}
    words: set[str] = set()
    real: set[str] = set()
    short: dict[str, str] = {}
    for table in data.values():
        words.update(table["words"])
        real.update(table["real"])
        short.update(table.get("short_forms", {}))
    for word in words:
        for variant in _deletions(word, _allowed(word)):
            index.setdefault(variant, set()).add(word)
    return index, frozenset(words), frozenset(real), short


def _allowed(word: str) -> int:
    return 1 if len(word) < 8 else 2


def _deletions(word: str, depth: int) -> set[str]:
    """``word`` and every string ``depth`` deletions or fewer make of it."""
    out = {word}
    frontier = {word}
    for _ in range(depth):
        frontier = {w[:i] + w[i + 1 :] for w in frontier for i in range(len(w))}
        out |= frontier
    return out


def _distance(a: str, b: str) -> int:
    """Damerau-Levenshtein (optimal string alignment): insertions, deletions, substitutions and swaps of
    neighbours, one edit each."""
    previous2: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        row = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = a[i - 1] != b[j - 1]
            row[j] = min(previous[j] + 1, row[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                row[j] = min(row[j], previous2[j - 2] + 1)
        previous2, previous = previous, row
    return previous[len(b)]


@functools.lru_cache(maxsize=1 << 14)
def spelled(token: str) -> str | None:
    """The listed word ``token`` misspells, or None (a listed word itself, one of its forms, a real word, or
    nothing close)."""
    index, words, real, _ = _tables()
    if token in words or token in real:
        return None
    squeezed = _RUN.sub(r"\1", token)
    if squeezed != token and squeezed in words:
        return squeezed
    if any(token.startswith(word) for word in words if word[0] == token[0]):
        return None  # "ignored", "systems": the word's own form
    found: list[tuple[int, str]] = []
    for variant in _deletions(squeezed, 1):
        for word in index.get(variant, ()):
            distance = _distance(squeezed, word)
            if distance <= _allowed(word):
                found.append((distance, word))
    return min(found)[1] if found else None


def misspelled_views(view: str) -> Iterator[str]:
    """Windows of ``view`` (the rules' base view: lower case, accents folded) with the misspelled listed words
    spelled right and, where there is one, chat's short forms read out; nothing where no listed word is
    misspelled."""
    *_, short = _tables()
    # each distinct run of letters once (a 1 kB note's ~180 words are ~110 runs), the spans of the tokens only where
    # one is misspelled: most texts stop after one findall
    fixed = {t: right for t in set(_LONG_RUN.findall(view)) if (right := spelled(t))}
    if not fixed:
        return
    # the misspelled tokens (a run glued to a digit, "egnore2", is none), at most 500 as the obfuscated views
    # (normalize.py: 100 kB of "sistem ok" would be read again whole), and the short forms among them
    spans = [m.span() for m in _TOKEN.finditer(view) if m.group() in fixed][:_MAX_SPANS]
    if not spans:
        return
    lo, hi = max(0, spans[0][0] - _WINDOW), spans[-1][1] + _WINDOW
    spans += [m.span() for m in _TOKEN.finditer(view, lo, hi) if m.group() in short and m.end() < hi]
    replaced = {**short, **fixed}
    yield from _snippets(view, sorted(spans), lambda token: replaced.get(token, token))
