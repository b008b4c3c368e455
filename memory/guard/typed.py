"""A password named by what is done with it, not by its word: typed where a device asks, or said to unlock it.

    <type> <value> ... <asks>              "If the laptop asks, type Rosebud and hit enter" · "just type
                                           moonlightsonata when it asks" · "at the BIOS prompt type sunflowerfield"
    <value> <type> ... <asks>              a language whose verb follows its value (``after``, ``particles``)
    <value> is what you type / unlocks     "'tartan-otter-mirror-9' is what unlocks the backup drive" ·
                                           "4.2.0 is what you type when it asks for the pass"
    unlocks (it) with <value>              "the old Mac mini still unlocks with Biscuit"

The words are data (``data/typed.toml``, per language): the keying verbs (``before``, ``after``), what says
that something asks for the value or is locked (``asked``: "asks", "prompt", "locks", "unlock", "log in"; one of
any language's, or a lock's noun, a device (the tagger's things) or a network, is needed in the keyed value's
sentence, the value aside, so "type your name in the box", "enter the building", "type Netflix in the search box"
and "type help for the commands" are no passwords), and what says a value before it unlocks something
(``unlocks``). Before a verb that follows it, a value holds a digit or is quoted ("gültige E-Mail-Adresse
eingeben" is a form's field).
The value is one token: a password's shape (``credential_values.plausible``), or one word of seven letters or
more ("Rosebud", "harborlight") that is no word of talk (stopwords of every language, what is said of a
password) nor a screen's or a form's word ("Continue", "Settings", "name", "code"). A value said before what
unlocks is quoted, a password's shape, or first in its line or after a colon or a dash ("Tablet: 'Riverbend'
unlocks it"; not "the teenager finally unlocks the safe").

Read by ``credentials.find_prose_credentials``; pure functions. The verbs and phrases are found in one
Aho-Corasick pass (``lexicon.word_automaton``), each value read from its verb forwards or backwards, and only a
candidate's sentence (300 characters each side at most) is searched for what asks: linear in the note.
"""

from __future__ import annotations

import bisect
import functools
import re
import tomllib
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any

from .codes import _locks
from .credential_values import plausible
from .lexicon import _lower, _said_of_passwords, every_stopword, not_passwords, phrases_in, word_automaton

TYPED = Path(__file__).resolve().parent / "data" / "typed.toml"

_QUOTE_OPEN = "\"'“‘«「『"
_QUOTE_CLOSE = "\"'”’»」』"
_TOKEN = r"[^\s\"'“”‘’«»「」『』,;，、。()（）]"
# A value after its verb: a token, quoted or not, up to its sentence's mark
_VALUE = rf"""[{_QUOTE_OPEN}]?(?P<value>{_TOKEN}+?)[{_QUOTE_CLOSE}]?(?=[.,;:!?)。，、]?(?:\s|$)|[，、。])"""
_AFTER_VERB = re.compile(rf"\s*(?:(?:it\s+)?as\s+)?{_VALUE}", re.IGNORECASE)  # after a verb the value follows
_SENTENCE_REACH = 300  # characters on each side of a verb read for what asks (a text may hold no full stop)
_NOT_TOKEN = frozenset("\"'“”‘’«»「」『』,;，、。()（）")
_WITH = re.compile(
    rf"(?<!\w)unlock(?:s|ed)?\s+(?:it\s+|them\s+)?with\s+(?:(?:[^\s,.;]+\s+){{0,5}}[^\s,.;]*name,\s+)?{_VALUE}",
    re.IGNORECASE,
)
_OPENING = re.compile(r"(?:^|[:\n—–-])\s*\Z")
_SENTENCE_END = re.compile(r"[.!?\n。！？](?:\s|$)|[。！？]")
# Scripts written without spaces: their words are matched anywhere
_UNSPACED = re.compile(r"[\u0e00-\u0e7f\u1780-\u17ff\u3040-\u30ff\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af]")
# A plain word typed is a password from seven letters ("Rosebud", "harborlight"); shorter ones are a screen's
# words as often ("Cancel", "Submit", "Google"), and so are these
_PLAIN_LETTERS = 7
_NETWORKS = frozenset({"wifi", "wi-fi", "wlan", "wi fi"})
_Places = tuple[
    list[int], list[tuple[int, int]]
]  # the starts, and the spans, of a note's things and networks
_NOT_VALUES = frozenset({"name", "username", "email", "address", "code", "password", "passcode", "pin", "number",
                         "details", "credentials", "login", "something", "anything", "everything", "nothing",
                         "yes", "no", "ok", "okay", "help", "exit", "quit", "enter", "return", "again", "here",
                         "there", "below", "above", "manually", "twice", "once", "carefully", "slowly", "now",
                         "first", "then", "it", "them", "this", "that", "these", "those", "mine", "yours",
                         "admin", "administrator", "root", "user", "guest", "supervisor", "default",
                         "blank", "space", "spaces", "lowercase", "uppercase", "capitals",
                         "building", "room", "office", "house", "site", "premises", "country",
                         "continue", "confirm", "settings", "restart", "install", "options", "unlock", "refresh",
                         "account", "network", "outlook", "windows", "desktop", "terminal", "console", "command",
                         "commands", "profile", "receipt", "invoice", "payment", "message", "comment", "comments",
                         "feedback", "another", "finished", "complete", "download", "upload", "register",
                         "checkout", "subscribe", "unsubscribe", "defaults", "factory", "recovery",
                         "safemode"})  # fmt: skip


@functools.cache
def _tables() -> dict[str, Any]:
    with TYPED.open("rb") as handle:
        return tomllib.load(handle)


def _words(key: str) -> list[str]:
    return sorted(
        {w.lower() for table in _tables().values() for w in table.get(key, ())}, key=len, reverse=True
    )


@functools.cache
def _automaton() -> Any:
    """Every keying verb and "unlocks" phrase in one Aho-Corasick automaton (``lexicon.word_automaton``): one pass
    in C over a note; a regex of 40 languages' verbs, tried at each character, took 7 s over 100 kB."""
    return word_automaton({w for key in ("before", "after", "unlocks") for w in _words(key)})


@functools.cache
def _kinds() -> dict[str, frozenset[str]]:
    return {key: frozenset(_words(key)) for key in ("before", "after", "unlocks")}


def _occurrences(low: str) -> Iterator[tuple[int, int, str]]:
    """(start, end, word) of each verb or phrase in ``low``, whole words where their script spaces them."""
    automaton = _automaton()
    if automaton is not None:
        found = ((last + 1 - size, last + 1) for last, size in automaton.iter(low))
    else:
        words = _words("before") + _words("after") + _words("unlocks")
        found = ((m.start(), m.end()) for w in words for m in re.finditer(re.escape(w), low))
    for start, end in found:
        word = low[start:end]
        if not _UNSPACED.search(word) and (
            (start and (low[start - 1].isalnum() or low[start - 1] == "_"))
            or (end < len(low) and (low[end].isalnum() or low[end] == "_"))
        ):
            continue
        yield start, end, word


@functools.cache
def _asked() -> re.Pattern[str]:
    """What asks for a value or is locked, any language's, as one pattern (run over a sentence only)."""
    return re.compile(
        "|".join(
            re.escape(w) if _UNSPACED.search(w) else rf"(?<![^\W_]){re.escape(w)}(?![^\W_])"
            for w in _words("asked")
        ),
        re.IGNORECASE,
    )


@functools.cache
def _particles() -> tuple[str, ...]:
    return tuple(_words("particles"))


def _token_before(
    text: str, at: int, *, particles: bool = False, dash: bool = False
) -> tuple[int, int, bool]:
    """(start, end, quoted) of the token that ends before ``at``, spaces, a particle (``particles``) or a dash
    (``dash``) and a closing quote between: read backwards, at most 128 characters (a regex searched from each
    character of the stretch before every verb took 0.7 s over 100 kB of "eingeben")."""
    end = at
    while end > 0 and text[end - 1].isspace():
        end -= 1
    if particles:
        for particle in _particles():
            if text.endswith(particle, 0, end):
                end -= len(particle)
                while end > 0 and text[end - 1].isspace():
                    end -= 1
                break
    if dash and end > 0 and text[end - 1] in "—–-":
        end -= 1
        while end > 0 and text[end - 1].isspace():
            end -= 1
    closed = end > 0 and text[end - 1] in _QUOTE_CLOSE
    end -= closed
    start = end
    while (
        start > 0
        and end - start < 128
        and not text[start - 1].isspace()
        and text[start - 1] not in _NOT_TOKEN
    ):
        start -= 1
    quoted = closed and start > 0 and text[start - 1] in _QUOTE_OPEN
    return start, end, quoted


def _sentence(text: str, start: int, end: int) -> tuple[int, int]:
    """The bounds of the sentence around ``text[start:end]``, at most ``_SENTENCE_REACH`` characters each side."""
    low = max(0, start - _SENTENCE_REACH)
    s = max(max(text.rfind(c, low, start) for c in ".!?\n。！？") + 1, low)
    m = _SENTENCE_END.search(text, end, min(len(text), end + _SENTENCE_REACH))
    return s, m.start() if m else min(len(text), end + _SENTENCE_REACH)


def _asked_for(text: str, sentence: tuple[int, int], value: tuple[int, int], places: _Places) -> bool:
    """Something asks for the value or is locked (``asked``), or the sentence names a lock (``codes``' nouns), a
    device (the tagger's things: "laptop", "router", "tablet") or a network ("wifi ... kuih_lapis88 taip"), the
    value aside: a value is no context of its own ("type Netflix in the box": a brand the tagger's things name).
    ``places``: the note's things and networks (``credentials``' phrases, found once a note)."""
    s, e = sentence
    a, b = max(s, value[0]), min(e, value[1])
    words = text[s:a] + " " * (b - a) + text[b:e] if a < b else text[s:e]
    if _asked().search(words) or _locks().search(words.lower()):
        return True
    starts, spans = places
    return any(
        pe <= e and (pe <= value[0] or ps >= value[1])
        for ps, pe in spans[bisect.bisect_left(starts, s) : bisect.bisect_left(starts, e)]
    )


def _a_value(value: str) -> bool:
    low = value.lower()
    if (
        low in _NOT_VALUES
        or low in every_stopword()
        or low in _said_of_passwords()
        or low in not_passwords("brands")
    ):
        return False
    if any(kind == "thing" and e - s == len(value) for s, e, _, kind in phrases_in(value)):
        return False  # a service or a device the tagger's things name: "type Netflix", "enter Facebook"
    if plausible(value):
        return True
    return (
        len(value) >= _PLAIN_LETTERS
        and value.isascii()
        and value.isalpha()
        and (value.islower() or value.istitle() or value.isupper())
    )


def _set_apart(text: str, start: int, value: str) -> bool:
    """A value said before what unlocks (from ``start``): quoted, a password's shape, or first in its line or after
    a colon or a dash ("Tablet: 'Riverbend' unlocks it"), not a sentence's word ("the teenager finally unlocks the
    safe")."""
    if (start > 0 and text[start - 1] in _QUOTE_OPEN) or plausible(value):
        return True
    return start == 0 or _OPENING.search(text, max(0, start - 3), start) is not None


def typed_values(text: str, phrases: Iterable[tuple[int, int, str, str]]) -> list[tuple[int, int]]:
    """Spans of values typed where something asks for them, or said to unlock something; ``phrases``: the note's
    lexicon phrases (``lexicon.phrases_in``)."""
    if not text:
        return []
    spans_of = sorted((a, b) for a, b, phrase, kind in phrases if kind == "thing" or phrase in _NETWORKS)
    places = ([a for a, _ in spans_of], spans_of)
    kinds = _kinds()
    spans: list[tuple[int, int]] = []
    for start, end, word in _occurrences(_lower(text)):
        if word in kinds["before"] and (m := _AFTER_VERB.match(text, end)) is not None:
            s, e = m.span("value")
        elif word in kinds["after"]:
            s, e, quoted = _token_before(text, start, particles=True)
            if not (quoted or any(c.isdigit() for c in text[s:e])):
                continue  # before its verb, a noun is as often what to type ("gültige E-Mail-Adresse eingeben")
        elif word in kinds["unlocks"]:
            s, e, _ = _token_before(text, start, dash=True)
            value = text[s:e].rstrip(".!?")
            if value and _a_value(value) and _set_apart(text, s, value):
                spans.append((s, s + len(value)))
            continue
        else:
            continue
        value = text[s:e].rstrip(".!?")
        if value and _a_value(value) and _asked_for(text, _sentence(text, start, end), (s, e), places):
            spans.append((s, s + len(value)))
    for m in _WITH.finditer(text):
        s, e = m.span("value")
        value = text[s:e].rstrip(".!?")
        if value and _a_value(value):
            spans.append((s, s + len(value)))
    return sorted(set(spans))
