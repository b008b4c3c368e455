"""A password named by what is done with it, not by its word: typed where a device asks, or said to unlock it.

    <type> <value> ... <asks>              "If the laptop asks, type Rosebud and hit enter" · "just type
                                           moonlightsonata when it asks" · "at the BIOS prompt type sunflowerfield"
    <value> <type> ... <asks>              a language whose verb follows its value (``after``, ``particles``)
    <value> is what you type / unlocks     "'tartan-otter-mirror-9' is what unlocks the backup drive" ·
                                           "4.2.0 is what you type when it asks for the pass"
    unlocks (it) with <value>              "the old Mac mini still unlocks with Biscuit"

The words are data (``data/typed.toml``, per language): the keying verbs (``before``, ``after``), what says
that something asks for the value or is locked (``asked``: "asks", "prompt", "locks", "unlock", "log in"; one of
any language's is needed in the keyed value's sentence, so "type your name in the box", "enter the building" and
"type help for the commands" are no passwords), and what says a value before it unlocks something (``unlocks``).
The value is one token: a password's shape (``credential_values.plausible``), or one word of seven letters or
more ("Rosebud", "harborlight") that is no word of talk (stopwords of every language, what is said of a
password) nor a screen's or a form's word ("Continue", "Settings", "name", "code"). A value said before what
unlocks is quoted, a password's shape, or first in its line or after a colon or a dash ("Tablet: 'Riverbend'
unlocks it"; not "the teenager finally unlocks the safe").

Read by ``credentials.find_prose_credentials``; pure functions, one regex pass a pattern (the verbs are rare
in a note).
"""

from __future__ import annotations

import functools
import re
import tomllib
from pathlib import Path
from typing import Any

from .credential_values import plausible
from .lexicon import _said_of_passwords, every_stopword

TYPED = Path(__file__).resolve().parent / "data" / "typed.toml"

_QUOTE_OPEN = "\"'“‘«「『"
_QUOTE_CLOSE = "\"'”’»」』"
_TOKEN = r"[^\s\"'“”‘’«»「」『』,;，、。()（）]"
# A value after its verb: a token, quoted or not, up to its sentence's mark
_VALUE = rf"""[{_QUOTE_OPEN}]?(?P<value>{_TOKEN}+?)[{_QUOTE_CLOSE}]?(?=[.,;:!?)。，、]?(?:\s|$)|[，、。])"""
_BEFORE = re.compile(rf"[{_QUOTE_OPEN}]?(?P<value>{_TOKEN}{{1,128}})[{_QUOTE_CLOSE}]?\s*(?:[—–-]\s*)?\Z")
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


def _alternation(words: list[str]) -> str:
    """The words as one alternation, whole words where their script spaces them, anywhere where it does not."""
    return "|".join(
        re.escape(w) if _UNSPACED.search(w) else rf"(?<![^\W_]){re.escape(w)}(?![^\W_])" for w in words
    )


@functools.cache
def _patterns() -> tuple[re.Pattern[str], re.Pattern[str] | None, re.Pattern[str], re.Pattern[str]]:
    """(keying verb and the value after it; the value and its verb after it; what asks; what unlocks)."""
    typed = re.compile(rf"(?:{_alternation(_words('before'))})\s*(?:(?:it\s+)?as\s+)?{_VALUE}", re.IGNORECASE)
    after_words = _words("after")
    particles = "|".join(re.escape(p) for p in _words("particles"))
    after = (
        re.compile(
            rf"[{_QUOTE_OPEN}]?(?P<value>{_TOKEN}{{1,128}}?)[{_QUOTE_CLOSE}]?\s*(?:(?:{particles})\s*)?"
            rf"(?:{_alternation(after_words)})"
            if particles
            else rf"[{_QUOTE_OPEN}]?(?P<value>{_TOKEN}{{1,128}}?)[{_QUOTE_CLOSE}]?\s*(?:{_alternation(after_words)})",
            re.IGNORECASE,
        )
        if after_words
        else None
    )
    asked = re.compile(_alternation(_words("asked")), re.IGNORECASE)
    unlocks = re.compile(_alternation(_words("unlocks")), re.IGNORECASE)
    return typed, after, asked, unlocks


def _sentence(text: str, start: int, end: int) -> str:
    s = max(text.rfind(c, 0, start) for c in ".!?\n。！？") + 1
    m = _SENTENCE_END.search(text, end)
    return text[s : m.start() if m else len(text)]


def _a_value(value: str) -> bool:
    low = value.lower()
    if low in _NOT_VALUES or low in every_stopword() or low in _said_of_passwords():
        return False
    if plausible(value):
        return True
    return (
        len(value) >= _PLAIN_LETTERS
        and value.isascii()
        and value.isalpha()
        and (value.islower() or value.istitle() or value.isupper())
    )


def _set_apart(text: str, start: int, value: str) -> bool:
    """A value said before what unlocks: quoted, a password's shape, or first in its line or after a colon or a
    dash ("Tablet: 'Riverbend' unlocks it"), not a sentence's word ("the teenager finally unlocks the safe")."""
    if text[start : start + 1] in _QUOTE_OPEN or plausible(value):
        return True
    return start == 0 or _OPENING.search(text, max(0, start - 3), start) is not None


def typed_values(text: str) -> list[tuple[int, int]]:
    """Spans of values typed where something asks for them, or said to unlock something."""
    typed, after, asked, unlocks = _patterns()
    spans: list[tuple[int, int]] = []
    for pattern in (typed, after):
        for m in pattern.finditer(text) if pattern is not None else ():
            s, e = m.span("value")
            value = text[s:e].rstrip(".!?")
            if value and _a_value(value) and asked.search(_sentence(text, m.start(), m.end())):
                spans.append((s, s + len(value)))
    for m in unlocks.finditer(text):  # the value ends where what is done with it begins
        before = _BEFORE.search(text, max(0, m.start() - 136), m.start())
        if before is None:
            continue
        s, e = before.span("value")
        value = text[s:e].rstrip(".!?")
        if value and _a_value(value) and _set_apart(text, before.start(), value):
            spans.append((s, s + len(value)))
    for m in _WITH.finditer(text):
        s, e = m.span("value")
        value = text[s:e].rstrip(".!?")
        if value and _a_value(value):
            spans.append((s, s + len(value)))
    return spans
