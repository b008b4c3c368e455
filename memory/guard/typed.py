"""A password named by what is done with it, not by its word: typed where a device asks, or said to unlock it.

    <type> <value> ... <asks>              "If the laptop asks, type Rosebud and hit enter" · "just type
                                           moonlightsonata when it asks" · "at the BIOS prompt type sunflowerfield"
    <value> is what you type / unlocks     "'tartan-otter-mirror-9' is what unlocks the backup drive" ·
                                           "4.2.0 is what you type when it asks for the pass"
    unlocks (it) with <value>              "the old Mac mini still unlocks with Biscuit"

``<type>``: "type", "type in", "enter", "key in", "punch in", "put in", "input" (English; the other languages'
keying verbs are digits' only, ``codes.keyed_codes``). The sentence must say that something asks for it or is
locked (``_ASKED``: "asks", "prompt", "locks", "unlock", "log in", "to get in"), so "type your name in the box",
"enter the building" and "type help for the commands" are no passwords. The value is one token: a password's shape
(``credential_values.plausible``), or one word of seven letters or more (a name or words run together: "Rosebud",
"harborlight") that is no word of talk (stopwords of every language, what is said of a password) nor a word
that points elsewhere ("name", "username", "email", "code").

Read by ``credentials.find_prose_credentials``; pure functions, one regex pass (the verbs are rare in a note).
"""

from __future__ import annotations

import re

from .credential_values import plausible
from .lexicon import _said_of_passwords, every_stopword

_VERB = r"(?:type|enter|input|(?:type|key|punch|put|tap)\s+in)"
# A value after its verb: a token, quoted or not, up to its sentence's mark
_VALUE = r"""[\"'“‘«]?(?P<value>[^\s\"'“”‘’«»,;()]+?)[\"'”’»]?(?=[.,;:!?)]?(?:\s|$))"""
_TYPED = re.compile(rf"(?<![\w-]){_VERB}\s+(?:(?:it\s+)?as\s+)?{_VALUE}", re.IGNORECASE)
# What is done with a value said right before it: "'X' is what you type", "X unlocks it", "X — that's what unlocks"
_DONE = re.compile(
    r"(?:\s*[—–-]\s*that'?s\s+|\s+is\s+|\s+)(?:what\s+(?:you|to|i)\s+(?:type|enter|key\s+in|put\s+in)|what\s+unlocks|"
    r"unlocks\s+(?:it|the|my|your|our|his|her))(?!\w)",
    re.IGNORECASE,
)
_BEFORE = re.compile(r"[\"'“‘«]?(?P<value>[^\s\"'“”‘’«»,;:()]{1,128})[\"'”’»]?\Z")
_WITH = re.compile(
    rf"(?<!\w)unlock(?:s|ed)?\s+(?:it\s+|them\s+)?with\s+(?:(?:[^\s,.;]+\s+){{0,5}}[^\s,.;]*name,\s+)?{_VALUE}",
    re.IGNORECASE,
)
# What says that something asks for the value or is locked, in the value's sentence
_ASKED = re.compile(
    r"(?<!\w)(?:asks?|asking|asked|prompts?|prompted|locks?|locked|unlocks?|unlocking|log\s*(?:s\s+)?in|sign\s+in|"
    r"get\s+in(?:to)?|wants|bios|lock\s*screen|login\s+screen)(?!\w)",
    re.IGNORECASE,
)
_OPENING = re.compile(r"(?:^|[:\n—–-])\s*\Z")
_SENTENCE_END = re.compile(r"[.!?\n](?:\s|$)")
# Words a keying verb takes that are no password: what to type, not a value
_NOT_VALUES = frozenset({"name", "username", "email", "address", "code", "password", "passcode", "pin", "number",
                         "details", "credentials", "login", "something", "anything", "everything", "nothing",
                         "yes", "no", "ok", "okay", "help", "exit", "quit", "enter", "return", "again", "here",
                         "there", "below", "above", "manually", "twice", "once", "carefully", "slowly", "now",
                         "first", "then", "it", "them", "this", "that", "these", "those", "mine", "yours",
                         "admin", "administrator", "root", "user", "guest", "supervisor", "default",
                         "blank", "space", "spaces", "lowercase", "uppercase", "capitals",
                         "building", "room", "office", "house", "site", "premises", "country"})  # fmt: skip


# A plain word typed is a password from seven letters ("Rosebud", "harborlight"); shorter ones are a screen's
# words as often ("Cancel", "Submit", "Google"), and so are these
_PLAIN_LETTERS = 7
_COMMANDS = frozenset({"continue", "confirm", "settings", "restart", "install", "options", "unlock", "refresh",
                       "password", "passcode", "username", "account", "network", "outlook", "windows", "desktop",
                       "terminal", "console", "command", "commands", "profile", "receipt", "invoice", "payment",
                       "message", "comment", "comments", "feedback", "details", "address", "another", "nothing",
                       "finished", "complete", "download", "upload", "register", "checkout", "subscribe",
                       "unsubscribe", "default", "defaults", "factory", "recovery", "safemode"})  # fmt: skip


def _sentence(text: str, start: int, end: int) -> str:
    s = max(text.rfind(c, 0, start) for c in ".!?\n") + 1
    m = _SENTENCE_END.search(text, end)
    return text[s : m.start() if m else len(text)]


def _a_value(value: str) -> bool:
    low = value.lower().rstrip(".!?")
    if low in _NOT_VALUES or low in every_stopword() or low in _said_of_passwords():
        return False
    if plausible(value.rstrip(".!?")):
        return True
    word = value.rstrip(".!?")
    return (
        len(word) >= _PLAIN_LETTERS
        and word.isalpha()
        and (word.islower() or word.istitle() or word.isupper())
        and low not in _COMMANDS
    )


def _set_apart(text: str, start: int, value: str) -> bool:
    """A value said before what unlocks: quoted, a password's shape, or first in its line or after a colon or a
    dash ("Tablet: 'Riverbend' unlocks it"), not a sentence's word ("the teenager finally unlocks the safe")."""
    if text[start : start + 1] in "\"'“‘«" or plausible(value.rstrip(".!?")):
        return True
    return _OPENING.search(text, max(0, start - 3), start) is not None or start == 0


def typed_values(text: str) -> list[tuple[int, int]]:
    """Spans of values typed where something asks for them, or said to unlock something."""
    spans: list[tuple[int, int]] = []
    for pattern, asked in ((_TYPED, True), (_DONE, False), (_WITH, False)):
        for m in pattern.finditer(text):
            if pattern is _DONE:  # the value ends where what is done with it begins
                before = _BEFORE.search(text, max(0, m.start() - 132), m.start())
                if before is None or not _set_apart(text, before.start(), before.group("value")):
                    continue
                s, e = before.span("value")
            else:
                s, e = m.span("value")
            value = text[s:e].rstrip(".!?")
            if not value or not _a_value(value):
                continue
            if asked and not _ASKED.search(_sentence(text, m.start(), m.end())):
                continue
            spans.append((s, s + len(value)))
    return spans
