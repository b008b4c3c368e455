"""A password that a remark on how to type it follows, in any language (``data/spelling.toml``).

    <word> <link> <value>, <remark>        "the guest wifi at the cabin is huckleberry, all lowercase"
    <word> ... <sign> <value> (<remark>)   "wifi = stroopwafel (alles klein)"
    <word> <link> "<value>" <remark>       "Le code wifi du gîte c'est « chevrefeuille » sans accent"

People say how to type what they have just written: its case, its spaces, its accents, its marks. The value is
the one to five words between the first link or sign after the last password's, code's or key's word of the
clause and the comma, bracket or dash before the remark (after a link inside them, when what follows it is no
talk: "senha do wi-fi da casa da praia é conchinha do mar, sem acento"); none of it talk ("the password is
simple, all lowercase letters"), none of it words that point elsewhere ("the one on the sticker, no spaces"), nor
what it is made of ("the company name, all lowercase").
A sign-in word's value is an account as often ("the login is jsmith, all lowercase") and is not read here. A device's
or a service's word (the tagger's things: "For the lab iPad it's just pelican, all lowercase", "Disney+ : bluefalcon
(all lowercase)") stands for the password's word where no other is in reach, unless its clause holds a sign-in word,
a word that names something else ("hostname", "profile", "model") or an article before the value (session 50).

``credentials.find_prose_credentials`` adds these spans; they pass the same vetoes (a network's name, a value of
a name that says "not secret"). Pure functions, one pass for the remarks (a regex of every language's), the rest
only around the few remarks a note holds.
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path
from typing import Any

from .credential_values import _KIND_WORDS, _REFERRING
from .lexicon import (
    _TOKEN,
    _clause_start,
    _describing,
    _lexicon_index,
    _lower,
    _stopwords,
    _trim,
    word_automaton,
)
from .values_before import _small_words

SPELLING = Path(__file__).resolve().parent / "data" / "spelling.toml"

_KINDS = frozenset({"credential", "weak", "code", "numeric", "lock"})  # not "signin": an account as often
# A device or a service (the tagger's things: "iPad", "Disney+", "reception tablet") names what the value opens
# only where nothing in the clause names something else: an account, a host, a profile, a model
_NAMING = frozenset({"name", "names", "hostname", "host", "profile", "model", "username", "user", "account", "id",
                     "ssid", "network", "handle", "email", "address", "brand", "type", "version", "domain",
                     "folder", "channel", "group", "team", "tag", "label", "title"})  # fmt: skip
_ARTICLES = frozenset({"a", "an", "the"})
_OWNERS = frozenset({"the", "my", "his", "her", "our", "their", "your", "its"})
_FIRST_WORD = re.compile(r"\S+\s+")
_MAX_VALUE_TOKENS = 5
_NEAR = 100  # characters between the word's end and its link or sign
_SIGNS = frozenset({":", "=", "—", "–", "-", "->", "→", "?", "：", "？"})
# What stands between a value and its remark: a comma, a bracket, a dash ("ours-truly, lowercase"), or only a
# space after a quoted value ("c'est « chevrefeuille » sans accent")
_SPACE_BEFORE = re.compile(r"(?<=\w)[ \t]+\Z")
_BEFORE_REMARK = re.compile(r"(?:\s*[,(，、;]|\s+[—–-]|(?<=[»\"”’'])[ \t]+)\s*\Z")  # or a space after a quote


@functools.cache
def _remark_phrases() -> tuple[str, ...]:
    with SPELLING.open("rb") as handle:
        tables = tomllib.load(handle)
    return tuple(sorted({p for table in tables.values() for p in table["remarks"]}, key=len, reverse=True))


@functools.cache
def _remarks() -> re.Pattern[str]:
    """Every language's remarks as one pattern over the lower-cased note, whole words (a CJK one anywhere): for
    a short clause (``chat``); a note is read with ``_remark_spans``."""
    return re.compile(r"(?<![^\W_])(?:" + "|".join(re.escape(p) for p in _remark_phrases()) + r")(?![^\W_])")


@functools.cache
def _automaton() -> Any:
    """The remarks in one Aho-Corasick automaton (``lexicon.word_automaton``): 89 languages' remarks as one regex
    took 65 ms over a 100 kB note full of password words; None without the package."""
    return word_automaton(_remark_phrases())


def _word_char(c: str) -> bool:
    return c.isalnum() or (c != "_" and bool(re.match(r"\w", c)))


def _remark_spans(low: str) -> list[tuple[int, int]]:
    """Where a remark stands in ``low`` as a whole word, leftmost and longest first and none overlapping: what
    ``_remarks().finditer`` finds, in one pass in C."""
    automaton = _automaton()
    if automaton is None:
        return [m.span() for m in _remarks().finditer(low)]
    found = []
    for last, size in automaton.iter(low):
        start, end = last + 1 - size, last + 1
        if (start == 0 or not _word_char(low[start - 1])) and (end == len(low) or not _word_char(low[end])):
            found.append((start, -end))
    spans: list[tuple[int, int]] = []
    for start, neg_end in sorted(found):
        if not spans or start >= spans[-1][1]:
            spans.append((start, -neg_end))
    return spans


def spelled_values(text: str, phrases: list[tuple[int, int, str, str]]) -> list[tuple[int, int]]:
    """Spans of values a spelling remark follows (module docstring); ``phrases``: the note's lexicon phrases
    (``lexicon.phrases_in``)."""
    ends = sorted(e for _, e, _, kind in phrases if kind in _KINDS)
    things = sorted(e for _, e, _, kind in phrases if kind == "thing")
    if not ends and not things:
        return []
    signins = [e for _, e, _, kind in phrases if kind == "signin"]
    spans = []
    for remark_start, _ in _remark_spans(_lower(text)):
        before = _BEFORE_REMARK.search(text, max(0, remark_start - 6), remark_start)
        # or a space alone, after one word: "pwd for the spotify is dancingqueen all lowercase"
        mark = before or _SPACE_BEFORE.search(text, max(0, remark_start - 4), remark_start)
        if mark is None:
            continue
        value_end = mark.start()
        found = _value_before(text, value_end, ends) if ends else None
        if found is None and things:
            found = _value_before(text, value_end, things)
            found = _opened_by_thing(text, found, signins) if found is not None else None
        if found is not None and (before is not None or _TOKEN.fullmatch(text, *found)):
            spans.append(found)
    return spans


def _opened_by_thing(text: str, value: tuple[int, int], signins: list[int]) -> tuple[int, int] | None:
    """A value a device's or a service's word introduces, its small words before it left out ("it's just pelican,
    all lowercase"): None where a sign-in word stands in its clause ("the login for the portal is jsmith, all
    lowercase": an account), a word before it names something else ("the laptop's hostname is devbox"), or an
    article stands before it ("our router is a Fritzbox")."""
    clause = _clause_start(text, value[0])
    if any(clause <= e <= value[0] for e in signins):
        return None
    words = _lower(text[clause : value[0]]).replace("'s", " ").split()
    if any(w.strip(".,:;()'\"") in _NAMING for w in words):
        return None
    start, end = value
    for word in _lower(text[start:end]).split()[:-1]:
        if word in _ARTICLES:
            return None
        if word not in _stopwords():
            break
        skip = _FIRST_WORD.match(text, start, end)
        if skip is None:
            break
        start = skip.end()  # "just pelican": the value is "pelican"
    return (start, end) if _lower(text[start:end]) not in _stopwords() else None


def _value_before(text: str, value_end: int, ends: list[int]) -> tuple[int, int] | None:
    """The value that ends at ``value_end``: the tokens after the first link or sign that follows the last word of
    ``_KINDS`` (``ends``) in the clause, at most five ("The password is the one on the sticker": all of "the
    one on the sticker", not what follows Finnish's "on")."""
    clause = _clause_start(text, value_end)
    word_end = next((e for e in reversed(ends) if clause <= e <= value_end), None)
    if word_end is None:
        return None
    tokens = list(_TOKEN.finditer(text, word_end, value_end))
    links = _lexicon_index()[2]
    for k, m in enumerate(tokens):
        if m.start() - word_end > _NEAR:
            return None
        token = m.group()
        sign = token in _SIGNS or (len(token) > 1 and token[-1:] in ":：?？=")
        if not (sign or token.lower() in links):
            continue
        words = [t.group() for t in tokens[k + 1 :]]
        if len(words) > _MAX_VALUE_TOKENS:
            continue  # a qualifier's word read as a link ("senha do wi-fi da casa da praia é ..."): read on
        if not words or _talk(words):
            return None
        first = k + 1
        for j in range(k + 1, len(tokens) - 1):  # a link inside: "... da casa da praia é conchinha do mar"
            if tokens[j].group().lower() in links and not _talk([t.group() for t in tokens[j + 1 :]]):
                first = j + 1
                break
        s, e = _trim(text, tokens[first].start(), tokens[-1].end())
        while s < e and text[s].isspace():  # "« chevrefeuille »": the quotes' spaces
            s += 1
        while e > s and text[e - 1].isspace():
            e -= 1
        return (s, e) if s < e else None
    return None


def _talk(words: list[str]) -> bool:
    """Whether the words are talk, not a value: every one a small word or a describing one ("simple", "the
    same"), or one that points elsewhere ("the one on the sticker")."""
    low = [w.strip(".,;:!?()\"'«»“”‘’").lower() for w in words]
    if any(w in _REFERRING for w in low):
        return True
    if len(low) > 1 and low[0] in _OWNERS and low[-1] in _KIND_WORDS:
        return True  # what it is made of, not the value: "the password is the company name, all lowercase"
    return all(w in _small_words() or w in _describing() or not w for w in low)
