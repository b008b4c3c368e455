"""Normalisation for the poisoning guard: the base view every detector reads (NFKC, invisible characters dropped,
lower case, accents, quotes and dashes folded) and the views that undo leetspeak, spaced-out letters and Cyrillic
or Greek look-alikes.  The character tables live in data/confusables.toml."""

from __future__ import annotations

import re
import tomllib
import unicodedata
from collections.abc import Callable, Iterator

from .engine import DATA, windows

with (DATA / "confusables.toml").open("rb") as _f:
    _CONFUSABLES: dict[str, dict[str, str]] = tomllib.load(_f)

_NON_LETTERS = re.compile(r"[^a-z]+")

_INVISIBLE_CHARS = (
    "\u00ad\u034f\u061c\u115f\u1160\u17b4\u17b5\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f"
    "\u3164\ufe00-\ufe0f\ufeff\uffa0\U000e0000-\U000e007f\U000e0100-\U000e01ef"
)
_INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")


def _fold_table() -> dict[int, str]:
    table: dict[int, str] = {}
    for lo, hi in ((0x00C0, 0x024F), (0x0370, 0x03FF), (0x1E00, 0x1FFF)):
        for cp in range(lo, hi + 1):
            ch = chr(cp)
            base = "".join(c for c in unicodedata.normalize("NFD", ch) if not unicodedata.combining(c))
            if base and base != ch:
                table[cp] = base.lower()
    table.update((ord(ch), folded) for ch, folded in _CONFUSABLES["fold"].items())
    table[0x0307] = ""  # the combining dot lower-casing leaves of Turkish "İ" ("ERİŞİM" -> "erisim")
    return table


_FOLD = _fold_table()
_FOLD_CHARS = re.compile("[" + "".join(re.escape(chr(c)) for c in sorted(_FOLD)) + "]")


def base_view(text: str) -> str:
    """The base view the detectors read: NFKC, invisible characters removed, lower case, accents and
    quotes folded (more than ``memory.text.fold`` does to a name: a view for matching, never stored)."""
    if text.isascii():
        return text.lower()
    low = _INVISIBLE.sub("", unicodedata.normalize("NFKC", text)).lower()
    return _FOLD_CHARS.sub(lambda m: _FOLD[ord(m.group())], low)


_LEET_HINT = re.compile(r"[a-z][0-9@$]|[0-9@$][a-z]")
_LEET_TOKEN = re.compile(r"[a-z0-9@$]++")
_LEET_BEFORE = re.compile(r"[a-z0-9@$]{1,24}$")


def _token_start(view: str, pos: int) -> int:
    before = _LEET_BEFORE.search(view, max(0, pos - 24), pos)
    return before.start() if before else pos


_LEET_I = str.maketrans({"0": "o", "1": "i", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a",
                         "$": "s", "!": "i", "|": "l"})  # fmt: skip
_LEET_L = str.maketrans({"0": "o", "1": "l", "3": "e", "4": "a", "5": "s", "7": "t", "8": "b", "9": "g", "@": "a",
                         "$": "s", "!": "i", "|": "l"})  # fmt: skip
_SPACED = re.compile(r"(?<![a-z0-9])(?:[a-z0-9](?:[ .\-_*|/\\,+~]{1,3})){3,}[a-z0-9](?![a-z0-9])")
_HOMOGLYPHS = str.maketrans(_CONFUSABLES["homoglyphs"])
_NON_LATIN_LOOKALIKE = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0261]")
_MIXED_SCRIPT = re.compile(
    r"(?<![a-z\u0370-\u03ff\u0400-\u04ff\u0261])(?=[a-z\u0370-\u03ff\u0400-\u04ff\u0261]*?"
    r"(?:[a-z][\u0370-\u03ff\u0400-\u04ff\u0261]|[\u0370-\u03ff\u0400-\u04ff\u0261][a-z]))"
    r"[a-z\u0370-\u03ff\u0400-\u04ff\u0261]++"
)


def _snippets(view: str, spans: list[tuple[int, int]], replace: Callable[[str], str]) -> Iterator[str]:
    """Windows of ``view`` around ``spans``, with each span replaced by its de-obfuscated form."""
    spans = [(s, min(e, s + 4000)) for s, e in spans]
    for lo, hi in windows([s for s, _ in spans], len(view)):
        inner = [(s, e) for s, e in spans if lo <= s < hi]
        hi = max(hi, max(e for _, e in inner))
        parts, pos = [], lo
        for s, e in inner:
            parts.append(view[pos:s])
            parts.append(replace(view[s:e]))
            pos = e
        parts.append(view[pos:hi])
        yield "".join(parts)


def obfuscated_views(view: str, known_word: Callable[[str], bool]) -> Iterator[str]:
    """Views of ``view`` with leetspeak, spaced-out letters and look-alike letters undone, around what changed;
    ``known_word`` tells whether a de-obfuscated token is a word the detectors look for."""
    # only tokens that turn into a word the detectors look for ("1gn0r3" -> ignore), not "covid19" or "2nd"
    leet: list[tuple[int, int]] = []
    last = -1
    for examined, hint in enumerate(_LEET_HINT.finditer(view)):
        if examined > 2000:
            break
        if hint.start() < last:
            continue
        token = _LEET_TOKEN.match(view, _token_start(view, hint.start()))
        if token is None:
            continue
        last = token.end()
        word = token.group(0)
        if 3 <= len(word) <= 24 and (
            known_word(word.translate(_LEET_I)) or known_word(word.translate(_LEET_L))
        ):
            leet.append(token.span())
            if len(leet) >= 500:
                break
    if leet:
        yield from _snippets(view, leet, lambda w: w.translate(_LEET_I))
        if any("1" in view[s:e] for s, e in leet):
            yield from _snippets(view, leet, lambda w: w.translate(_LEET_L))
    spaced = [m.span() for m in _SPACED.finditer(view)][:500]
    if spaced:

        def join(run: str) -> str:
            parts = re.split(r"\s{2,}|\s*/\s*|\s*\|\s*", run)
            return " ".join(re.sub(r"[^a-z0-9]", "", p) for p in parts)

        yield from _snippets(view, spaced, join)
    mixed = (
        [m.span() for m in _MIXED_SCRIPT.finditer(view)][:500] if _NON_LATIN_LOOKALIKE.search(view) else []
    )
    if mixed:
        yield from _snippets(view, mixed, lambda w: w.translate(_HOMOGLYPHS))
