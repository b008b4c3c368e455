"""A chat's answer to a question about a password or a code: the next speaker's value.

    Pierre : tu as le code de l'alarme ?          a question that names a credential, sign-in, numeric or
    Julie : oui, 8830, et tu appuies sur OFF      lock word (or a lone code word that is no other kind), or
                 ^^^^ the answer's first value    a network ("— what's the wifi at the cabin?")
                      after fillers ("oui", "yeah", "是")

The answer is on the next speaker's line, or on the question's own line after its question mark ("La pass del
wifi? pizzamargherita, senza spazi", "qual é a senha do wi-fi? — É cafecomleite"). Its value: a code's digits
(three or more, or keyed one by one), a value with a digit, a symbol or an underscore, or plain words where they
are the whole answer ("— purple walrus", "— FrischeBrezel") or a remark on how to type them follows
("— TULPENVELD, helemaal in hoofdletters", "— cornflakes, all lowercase"): one word of six letters or more,
or two to five words, none of them any language's small word, errand, describing word or word for a password
(``_plain``). A lone word in lower case or a name's capital with no remark is no value ("— downstairs", "—
whiteboard", "— Marcello": where it is written, or who has it, as often; session 56 measured a wider reading and
did not keep it).

A redaction layer of its own (``redaction.SCANNERS``, after the phrasing rules, their rule and priority):
"Sam: same email as always" and "Bob: it's on the fridge" are no values; lines in dialogue dashes ("— какой
пин от карты?" / "— 6611") alternate speakers. Pure functions; offsets are in the text given.
"""

from __future__ import annotations

import functools
import itertools
import re

from .answers import _answer, _asked
from .codes import _a_secret_code, keyed_digits
from .credential_values import _REFERRING, plausible
from .credentials import _NETWORK_WORDS, add_prose_spans
from .lexicon import (
    _TOKEN,
    _describing,
    _lower,
    _phrases,
    _trim,
    credential_words,
    errands,
    every_stopword,
    not_passwords,
)
from .remarks import _remarks
from .spans import Found, Vetoed

# A speaker's name and a colon ("Julie :", "[10:02] Ana:"), or a dialogue's dash.
_SPEAKER = re.compile(r"[ \t]*(?:\[[^\]\n]{1,20}\][ \t]*)?([^\s:：?][^:：?\n]{0,23}?)[ \t]*[:：][ \t]*")
# a dialogue's dash ("— какой пин от карты?" / "— 6611", "——17-42-08") or a quoted reply ("> jo: ...")
_DASH = re.compile(r"[ \t]*([—–]{1,2}|-{1,2}(?=[ \t\d])|>)[ \t]*")
_FILLER = re.compile(
    r"(?i:(?:yeah|yes|yep|yup|sure|ok|okay|oh|it's|its|it is|oui|c'est|ja|jo|sí|si|sim|tak|да|ага|evet|"
    r"ναι|نعم|हाँ|ya|iya|vâng|ừ|네|はい|是|就是|嗯|é|è|es|ist|is)\b[ \t,.:—–-]*)+|[是：:][ \t]*"
)


# The rest of the answer's line after a plain value: nothing but its end, or a remark on how to type it
_ALONE = re.compile(r"[ \t]*[.!]?[ \t]*(?:[\"”»'’」)][ \t]*)?$")
_REMARK_AFTER = re.compile(r"[ \t]*(?:[,(，、;]|[—–-](?=\s))[ \t]*")
_QUESTION_MARKS = "?？؟"


def _speaker(line: str) -> re.Match[str] | None:
    """Who says ``line``: a name and a colon, else a dialogue's dash; None for a line of neither."""
    return _SPEAKER.match(line) or _DASH.match(line)


@functools.cache
def _naming() -> re.Pattern[str]:
    """A naming word of ``data/not_passwords.toml`` ("called", "se llama", "red", "SSID"), a whole word."""
    words = sorted(not_passwords("naming"), key=len, reverse=True)
    return re.compile(r"(?<![^\W_])(?:" + "|".join(re.escape(w) for w in words) + r")(?![^\W_])")


def _asks(question: str) -> str | None:
    """What a question asks for: "secret" where it names a credential, a sign-in, a numeric code, a lock, or a
    lone code word that is no other kind of code ("what's the zip code?" is none); "network" where it names only
    a network, whose answer is its name as often ("— Melyik a vendég wifi?" / "— Vendeg_5G"); "answer" where it
    names a security question ("Q: mother's maiden name for the HSBC check?" / "A: Pemberton": a name, read as
    ``answers`` reads one); None for neither, or a name asked for ("¿cómo se llamaba la red del wifi?")."""
    if _asked(_lower(question)):
        return "answer"
    if _naming().search(_lower(question)):
        return None
    kinds = {
        "network" if kind == "weak" else "secret"
        for a, b, phrase, kind in _phrases(question)
        if kind in ("credential", "numeric", "lock", "signin")
        or (kind == "weak" and phrase in _NETWORK_WORDS)
        or (kind == "code" and _a_secret_code(question, a, b, len(question)))
    }
    return "secret" if "secret" in kinds else "network" if kinds else None


def _plain(words: list[str]) -> bool:
    """Plain words that may be a value: one of six letters or more, or two to five, none of them a small word,
    an errand, a describing word or a word for a password in any language ("dunno", "the usual" are talk)."""
    low = [w.lower() for w in words]
    if not ((len(low) == 1 and len(low[0]) >= 6) or 2 <= len(low) <= 5) or any(not w.isalpha() for w in low):
        return False
    small, talk, named = every_stopword(), errands(), credential_words()
    return not any(
        w in small or w in talk or w in named or w in _describing() or w in _REFERRING for w in low
    )


def _value(answer: str, at: int, told: bool = False) -> tuple[int, int] | None:
    """The value that opens ``answer`` at ``at`` (after its speaker and fillers), or None; ``told``: only plain
    words a remark on how to type follows (after the question's mark, no new speaker: "...? bluefalcon, all
    lowercase"; a network's question: "— wat is de wifi bij opa?" / "— TULPENVELD, helemaal in hoofdletters")."""
    token = _TOKEN.match(answer, at)
    if token is None:
        return None
    s, e = _trim(answer, token.start(), token.end())
    value = answer[s:e].rstrip(",،、，")
    e = s + len(value)
    keyed = None if told else keyed_digits(answer[s:])
    if keyed and keyed[0][0] == 0:
        return s, s + keyed[0][1]
    shaped = (value.isdigit() and 3 <= len(value) <= 12) or (
        plausible(value) and any(not c.isalpha() for c in value)
    )
    if shaped and not told:
        return s, e
    # plain words: the whole answer, or a remark on how to type them after a comma, a bracket or a dash
    item = re.match(r"[^\n,.;!?()\[\]\"”»'’」，、]{1,80}", answer[at:])
    if item is None:
        return None
    words = item.group().split()
    s, e = _trim(answer, at, at + len(item.group().rstrip()))
    rest = answer[e:]
    remark = _REMARK_AFTER.match(rest)
    clause = rest[remark.end() : remark.end() + 40].split(",")[0].split("\n")[0] if remark else ""
    spelled = bool(clause) and _remarks().search(_lower(clause)) is not None  # "helemaal in hoofdletters"
    if told and not spelled:
        return None
    caseless = all(w == w.lower() == w.upper() for w in words)  # "私: 新しいの作った": CJK, Hangul, Arabic
    if not spelled and (caseless or (len(words) == 1 and (words[0].islower() or words[0].istitle()))):
        # "— downstairs", "— Marcello": a lone plain word or name is a value only when its case is told, or
        # in capitals ("TULPENVELD", "FrischeBrezel")
        return None
    return (s, e) if (_ALONE.match(rest) or spelled) and _plain(words) else None


def _reply(line: str, at: int, asked: str, told: bool) -> tuple[int, int] | None:
    """The answer at ``at`` to what was ``asked`` (``_asks``): a security question's as ``answers`` reads one, else
    ``_value``'s."""
    return _answer(line, at, quoted=False) if asked == "answer" else _value(line, at, told=told)


def chat_answers(text: str) -> list[tuple[int, int]]:
    """The answer, on the next speaker's line or after the question mark on its own line, to a question that
    names a credential, a code or a network (module docstring)."""
    if not any(q in text for q in _QUESTION_MARKS):
        return []
    lines = [(m.start(), m.group()) for m in re.finditer(r"[^\n]+", text)]
    spans = []
    for start, line in lines:  # "La pass del wifi dello studio? pizzamargherita, senza spazi"
        mark = max(line.rfind(q) for q in _QUESTION_MARKS)
        asked = _asks(line[:mark]) if mark >= 0 and line[mark + 1 :].strip() else None
        if asked is None:
            continue
        at = mark + 1
        while at < len(line) and line[at] in " \t\"”»'’」)":
            at += 1
        said = _DASH.match(line, at)  # "¿...? — 4471", not "...? Talep no: 4471" (one speaker goes on)
        at = said.end() if said else at
        filler = _FILLER.match(line, at)
        found = _reply(line, filler.end() if filler else at, asked, told=said is None or asked == "network")
        if found is not None:
            spans.append((start + found[0], start + found[1]))
    if "\n" not in text:
        return spans
    for (_, question), (start, answer) in itertools.pairwise(lines):
        asker, said = _speaker(question), _speaker(answer)
        if said is None or not any(q in question for q in _QUESTION_MARKS):
            continue  # a question without a speaker is still one: "保险柜密码是多少？" / "——17-42-08"
        if asker is not None and asker.re is _SPEAKER and asker.group(1) == said.group(1):
            continue  # one speaker twice; dashes alternate
        asked_for = _asks(question)
        if asked_for is None:
            continue
        filler = _FILLER.match(answer, said.end())
        found = _reply(answer, filler.end() if filler else said.end(), asked_for, told=asked_for == "network")
        if found is not None:
            spans.append((start + found[0], start + found[1]))
    return spans


def scan_chat_answers(text: str, low: str, found: list[Found], vetoed: Vetoed) -> None:
    """The redaction layer (``redaction.SCANNERS``): every chat answer not judged "not secret" nor a name."""
    add_prose_spans(text, chat_answers(text), found, vetoed)
