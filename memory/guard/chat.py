"""A chat's answer to a question about a password or a code: the next speaker's value.

    Pierre : tu as le code de l'alarme ?          a question that names a credential, sign-in, numeric or
    Julie : oui, 8830, et tu appuies sur OFF      lock word (or a lone code word that is no other kind)
                 ^^^^ the answer's first value after fillers ("oui", "yeah", "是"): a code's digits (three
                      or more, or keyed one by one) or a value with a digit, a symbol or an underscore

A redaction layer of its own (``redaction.SCANNERS``, after the phrasing rules, their rule and priority):
"Sam: same email as always" and "Bob: it's on the fridge" are no values; lines in dialogue dashes ("— какой
пин от карты?" / "— 6611") alternate speakers. Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import itertools
import re

from .codes import _a_secret_code, keyed_digits
from .credential_values import plausible
from .credentials import add_prose_spans
from .lexicon import _TOKEN, _phrases, _trim
from .spans import Found, Vetoed

# A speaker's name and a colon ("Julie :", "[10:02] Ana:"), or a dialogue's dash.
_SPEAKER = re.compile(r"[ \t]*(?:\[[^\]\n]{1,20}\][ \t]*)?([^\s:：?][^:：?\n]{0,23}?)[ \t]*[:：][ \t]*")
# a dialogue's dash ("— какой пин от карты?" / "— 6611", "——17-42-08") or a quoted reply ("> jo: ...")
_DASH = re.compile(r"[ \t]*([—–]{1,2}|-{1,2}(?=[ \t\d])|>)[ \t]*")
_FILLER = re.compile(
    r"(?i:(?:yeah|yes|yep|yup|sure|ok|okay|oh|it's|its|it is|oui|c'est|ja|jo|sí|si|sim|tak|да|ага|evet|"
    r"ναι|نعم|हाँ|ya|iya|vâng|ừ|네|はい|是|就是|嗯)\b[ \t,.:—–-]*)+|[是：:][ \t]*"
)


def _speaker(line: str) -> re.Match[str] | None:
    """Who says ``line``: a name and a colon, else a dialogue's dash; None for a line of neither."""
    return _SPEAKER.match(line) or _DASH.match(line)


def chat_answers(text: str) -> list[tuple[int, int]]:
    """The answer, on the next speaker's line, to a question that names a credential or a code: digits of
    a code (three or more), or a value that ``plausible`` takes and that has a digit, a symbol or an
    underscore ("kotik_na_kryshe"; "same email as always" is no value). The question's code word must not
    be another kind of code ("what's the zip code?")."""
    if "\n" not in text or not any(q in text for q in "?？"):
        return []
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    spans = []
    for (_, question), (start, answer) in itertools.pairwise(lines):
        asked, said = _speaker(question), _speaker(answer)
        if said is None or not any(q in question for q in "?？"):
            continue  # a question without a speaker is still one: "保险柜密码是多少？" / "——17-42-08"
        if asked is not None and asked.re is _SPEAKER and asked.group(1) == said.group(1):
            continue  # one speaker twice; dashes alternate
        if not any(
            kind in ("credential", "numeric", "lock", "signin")
            or (kind == "code" and _a_secret_code(question, a, b, len(question)))
            for a, b, _, kind in _phrases(question)
        ):
            continue
        at = said.end()
        filler = _FILLER.match(answer, at)
        at = filler.end() if filler else at
        token = _TOKEN.match(answer, at)
        if token is None:
            continue
        s, e = _trim(answer, token.start(), token.end())
        value = answer[s:e].rstrip(",،、，")
        e = s + len(value)
        keyed = keyed_digits(answer[s:])
        if keyed and keyed[0][0] == 0:
            spans.append((start + s, start + s + keyed[0][1]))
        elif (value.isdigit() and 3 <= len(value) <= 12) or (
            plausible(value) and any(not c.isalpha() for c in value)
        ):
            spans.append((start + s, start + e))
    return spans


def scan_chat_answers(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): every chat answer not judged "not secret" nor a name."""
    add_prose_spans(text, chat_answers(text), found, vetoed)
