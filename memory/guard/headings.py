"""A value at the end of a sentence that a credential or code word opens, after a colon however far along.

    <word> <what it is for, an aside, a reason ...>: <value>.

    "Card PIN for the petty cash debit card, written here so I stop asking Anita: 58 31 90."
    "SIM PUK from the card holder, in case the phone locks again: 83920174"
    "MFA recovery code for the AWS root account (also in the sealed envelope): kd83 ms02 pq71 zz49"

The word opens its clause (at most ``_OPENING_TOKENS`` tokens after the clause's start, ``lexicon._clause_start``:
a line's, a sentence's or a semicolon's, the last before the word), the colon is the sentence's first
after it and within ``_MAX_GAP`` characters, and the value is all that follows it to the sentence's end (an aside
in brackets after it aside): digits (grouped, a hash or a star at an end, a date's dots; not a year) after a code's
or a lock's word, a token shaped as a password after a password's. The nearer rules (credentials.py, codes.py) read
a few tokens after the word; this one reads only such a heading. Pure functions, linear regexes.
"""

from __future__ import annotations

import re

from .codes import phone_shaped
from .credential_values import strong
from .lexicon import _TOKEN, _clause_start, not_passwords

_OPENING_TOKENS = 4  # tokens of the sentence before its word: "Voicemail PIN", "The MFA recovery code"
_MAX_GAP = 120  # characters between the word and the colon
_MAX_VALUE = 120  # characters after the colon read for the sentence's end (a value and an aside in brackets)

# A sentence's end: a full stop, a question or an exclamation mark before a space or the end, or a line's end
_SENTENCE_END = re.compile(r"[.?!](?=\s|$)|\n")

_DIGITS = re.compile(
    r"[#*]?\d{3,10}[#*]?"  # "83920174", "#2291", "1968#"
    r"|\d{2,4}(?:[ -]\d{2,4}){1,3}"  # "58 31 90", "0000-7788"
    r"|\d{1,2}[./-]\d{1,2}[./-]\d{2,4}"  # a date typed as the code: "03.11.2009"
    r"|[A-Z]-?\d{3,8}"  # "B-7731"
    r"|(?=[a-z0-9 ]*\d)[a-z0-9]{4}(?: [a-z0-9]{4}){2,7}"  # a recovery code: "kd83 ms02 pq71 zz49"
)
_YEAR = re.compile(r"(?:19|20)\d\d")
# A number to call, not a code: the tagger's calling words ("call", "anrufen") and a phone's own, not "phone" or
# "dial" themselves ("in case the phone locks again", a lock's dial)
_CALLING = (not_passwords("calling") - {"phone", "dial"}) | {
    "cell",
    "mobile",
    "whatsapp",
    "sms",
    "fax",
    "calls",
}
_ASIDE = re.compile(r"\s*\([^()\n]{0,80}\)\s*\Z")


def heading_value(text: str, start: int, end: int, numeric: bool) -> tuple[int, int] | None:
    """The value after a colon that ends the sentence the word at ``start``-``end`` opens (module docstring);
    ``numeric``: a code's or a lock's word (digits), else a password's (a token shaped as one)."""
    sentence_start = _clause_start(text, start)
    if len(_TOKEN.findall(text, sentence_start, start)) > _OPENING_TOKENS:
        return None
    first_stop = _SENTENCE_END.search(text, end, end + _MAX_GAP)  # bounded: a 100 kB text has no sentence end
    colon = text.find(": ", end, min(end + _MAX_GAP, first_stop.start() if first_stop else len(text)))
    if colon < 0 or "?" in text[end:colon]:
        return None
    if not _CALLING.isdisjoint(w.lower() for w in _TOKEN.findall(text, sentence_start, colon)):
        return None  # "Buzzer doesn't work, call my cell when you arrive: 312-555-0147": a phone's number
    stop = _SENTENCE_END.search(text, colon + 1, colon + 1 + _MAX_VALUE)
    if stop is None and colon + 1 + _MAX_VALUE < len(text):
        return None  # the sentence goes on: what follows the colon is no value of its own
    sentence_end = stop.start() if stop else len(text)
    region = text[colon + 1 : sentence_end]
    aside = _ASIDE.search(region)
    if aside is not None:
        region = region[: aside.start()]
    value = region.strip()
    if not value:
        return None
    s = colon + 1 + region.index(value)
    if numeric:
        # grouped digits that read as a telephone's number ("020 7946 0018", "312-555-0147"), not a code
        phone = not value.isdigit() and phone_shaped(value)
        ok = _DIGITS.fullmatch(value) is not None and _YEAR.fullmatch(value) is None and not phone
    else:
        ok = " " not in value and strong(value)
    return (s, s + len(value)) if ok else None
