"""A secret said again after a correction: "wifi is apple22 ... no wait, I changed it, it's ivyhouse2021".

    Ivy: wifi is [found]                       a value some rule found (a password in prose, a code, the
    Ivy: ugh wait no I changed it, it's X      tagger's), then within the next two lines a correction's word
                                               ("no", "wait", "sorry", "actually", "nej", "nein", "нет", ...)
                                               and, within ten words of it, a token of the found value's kind

Kinds: digits (three or more, with their separators, "#" or "*"; as many as the found value's, and neither a
place's number, "room 2204", nor a year, nor a group of a longer number), or letters with digits or signs, six
characters or more (``credential_values.strong``). A plain word is never taken this way ("no, the other one").
The spans join the found ones where they overlap nothing (``redaction.find_secrets``), under the found value's
rule. Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import bisect
import re

from .codes import _A_YEAR, _numbered
from .credential_values import strong
from .spans import Found

_PROSE_RULES = frozenset({"password-in-prose", "password-learned", "password-assignment"})
_REACH = 200  # characters after a found value where a correction is looked for
# A correction's word, a word of its own: what people say when the value just given was wrong.
_CORRECTION = re.compile(
    r"(?<![^\W_])(?:no|nope|wait|sorry|actually|oops|i mean|correction|scratch that|my bad|typo|not that one|"
    r"nein|doch|falsch|non|pardon|désolé|perdón|perdona|perdão|desculpa|scusa|anzi|nee|nej|förlåt|"
    r"undskyld|beklager|nie|przepraszam|promiň|нет|ні|вибач|извини|простите|hayır|yok|όχι|συγγνώμη|"
    r"לא|סליחה|لا|آسف|いや|違う|ごめん|아니|아니요|미안|不对|不是|抱歉|tidak|bukan|maaf|không|xin lỗi)"
    r"(?![^\W_])",
    re.IGNORECASE,
)
_TOKEN = re.compile(r"[^\s,;:!?()\"'“”«»]+")
_DIGITS = re.compile(r"[#*]?\d(?:[\d#*]|[-. ]\d){2,15}[#*]?")


def _digits(value: str) -> int:
    return sum(c.isdigit() for c in value)


def _placed(window: str, at: int) -> bool:
    """Whether a place's word (``[code] numbered``: room, flat, floor, bus) stands right before ``at``."""
    before = re.findall(r"[^\W\d_]+", window[max(0, at - 24) : at].lower())
    return bool(before) and before[-1] in _numbered()


def _kind(value: str) -> str | None:
    """ "digits" or "mixed" (letters with digits or signs), the kinds a correction may repeat; None else."""
    if _DIGITS.fullmatch(value) and sum(c.isdigit() for c in value) >= 3:
        return "digits"
    if strong(value):
        return "mixed"
    return None


def corrected_values(text: str, found: list[tuple[int, int, str]]) -> list[Found]:
    """Spans of values said again after a correction (module docstring); ``found``: (start, end, rule) of the
    secrets found, sorted by start. The correction's words are found in one pass over the note, not once a
    value (a 100 kB note of 11,000 codes took 0.3 s that way)."""
    if not found:
        return []
    cues = [m.span() for m in _CORRECTION.finditer(text)]
    if not cues:
        return []
    cue_starts = [s for s, _ in cues]
    spans: list[Found] = []
    for start, end, rule in found:
        k = bisect.bisect_left(cue_starts, end)
        if rule not in _PROSE_RULES or k == len(cues) or cue_starts[k] >= end + _REACH:
            continue
        kind = _kind(text[start:end])
        if kind is None:
            continue
        reach = min(len(text), end + _REACH)
        at = end
        for _ in range(3):  # the value's line and the next two: to the third line break, if one comes first
            at = text.find("\n", at, reach) + 1
            if not at:
                break
        else:
            reach = at - 1
        if cue_starts[k] >= reach:
            continue
        found_value = text[start:end]
        for n, token in enumerate(_TOKEN.finditer(text, cues[k][1], reach)):
            if n >= 10:
                break
            value = token.group().rstrip(".")
            if value == found_value or _kind(value) != kind:
                continue
            if kind == "digits" and (
                _digits(value) != _digits(found_value)
                or _placed(text, token.start())
                or _A_YEAR.fullmatch(value)
                or re.match(r" \d", text[token.end() : token.end() + 2])
                or re.match(r"\d ", text[max(0, token.start() - 2) : token.start()])
            ):
                continue  # "4471, no wait, the meeting is in room 2204": a place's number, a year, a phone's group
            spans.append(Found(token.start(), token.start() + len(value), rule, 0))
            break
    return spans
