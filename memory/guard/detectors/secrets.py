"""Detectors for requests for the reader's secrets, its system prompt, or other people's data."""

from __future__ import annotations

import re

from ..engine import (
    EN,
    LEXICONS,
    R_SECRET,
    STRONG,
    WEAK,
    Detector,
    _a,
    _all_languages,
    _alt,
    _anchor_list,
    _c,
    _fill,
    _unused_tables,
)
from .context import _imperative, _order, _sentence, _sentence_has

_LEX = EN["secret"]

_SECRET = (
    rf"(?:secret\s+)?{_alt(_LEX['secrets'])}"
    # not a modifier: "the password policy", "the API key rotation"
    rf"(?!\s+{_alt(_LEX['not_modifiers'])}\b)"
)
_SYSP = (
    r"(?:(?:system|initial|original|hidden|secret|internal|developer|full|entire|exact|first|pre-?)\s*"
    r"(?:prompt|instructions|message|rules|guidelines|directives)|prompt|instructions|rules|guidelines|configuration|"
    r"programming|directives)"
)
_SECRET_ADJ = rf"(?:{_alt(_LEX['adjectives'])}\s+){{0,2}}"
# "print the instructions" is a chore; "print the system instructions" is not
_SYSP_STRICT = r"(?:(?:system|initial|original|hidden|secret|internal|developer|pre-?)\s*(?:prompt|instructions|message|rules|guidelines|directives))"
_REVEAL = _alt(_LEX["reveal"])
_SECRET_NOUNS = _LEX["secret_anchors"]
_REVEAL_LEAD = _LEX["reveal_anchors"]


def _secret_request(view: str, m: re.Match[str]) -> int:
    if not _order(view, m):
        return 0
    found = m.group(0)
    return STRONG if "your" in found or "system" in found or "secret" in found else WEAK


_ASKS_READER = _c(
    r"(?:can|could|would|will) you|please|i need you|you (?:must|have to|should)|for (?:our|this|the) system"
)


def _question_to_reader(view: str, m: re.Match[str]) -> int:
    weight = _secret_request(view, m)
    if weight == WEAK:
        s, e = _sentence(view, m.start(), m.end())
        if _ASKS_READER.search(view, s, e):
            return STRONG
    return weight


_READER_WORDS = _all_languages("secret", "reader")  # "dein", "votre", "你的": the reader's own
_POSSESSIVE_ML = _c(
    r"(?<![^\W\d_])"
    + _alt(w for w in _READER_WORDS if ord(w[0]) < 0x0530)
    + r"(?![^\W\d_])|"
    + "|".join(w for w in _READER_WORDS if ord(w[0]) >= 0x0530)
)
_ASKS_READER_ML = _c("|".join(_all_languages("secret", "please")))


def _question_to_reader_ml(view: str, m: re.Match[str]) -> int:
    """A request for a secret in another language: strong when it is *the reader's* ("dein Passwort")."""
    if not _order(view, m):
        return 0
    return STRONG if _sentence_has(view, m, _POSSESSIVE_ML, _ASKS_READER_ML) else WEAK


_SECRETS: tuple[Detector, ...] = (
    Detector(
        R_SECRET,
        _c(
            rf"(?<![a-z]){_REVEAL}\s+(?:me\s+|us\s+|to me\s+|with me\s+|with us\s+)?(?:what\s+)?(?:your\s+"
            rf"{_SECRET_ADJ}(?:{_SECRET}|{_SYSP})|(?:the|our|this|that)\s+{_SECRET_ADJ}(?:{_SECRET}|{_SYSP_STRICT}))(?![a-z])"
        ),
        _a(_REVEAL_LEAD),
        lead=True,
        check=_question_to_reader,
    ),
    Detector(
        R_SECRET,
        _c(
            r"(?:what(?:'s| is| was| are| were| would| will| could)|tell me|give me|remind me)\s+(?:your|the|our)\s+"
            r"(?:(?:secret|current|admin|system|account|login|master)\s+)?"
            rf"(?:{_SECRET}|(?:system|initial|original|hidden|secret)\s+(?:prompt|instructions))"
            r"(?:\s+(?:be|for|of|to)(?:\s+[a-z']+){0,6})?\s*\?"
        ),
        _a([*_SECRET_NOUNS, "prompt", "instruction*"]),
        lead=True,
        back=5,
        check=_question_to_reader,
    ),
    Detector(
        R_SECRET,
        _c(
            r"(?:write|compose|create|make|sing|draw|generate|craft)\s+(?:me\s+)?(?:an?\s+)?(?:[a-z-]+\s+){0,2}?"
            r"(?:poem|haiku|song|story|acrostic|riddle|limerick|sentence|rap|joke|verse|sonnet|tale|rhyme|list|message|"
            r"essay|paragraph|code)[\s,]+(?:[a-z]+\s+){0,3}?(?:about|with|using|containing|from|of|on|based on|that "
            rf"(?:includes|contains|reveals|spells)(?:\s+out)?)\s+(?:your|the)\s+(?:secret\s+)?(?:{_SECRET}|system prompt)"
            r"|(?:write|spell|type|say|give|encode|translate|convert|put|reverse)\s+(?:your|the)\s+"
            r"(?:secret\s+)?(?:password|passphrase|pass phrase|passcode|secret key|secret word|secret code|system prompt)"
            r"\s+(?:in|as|into|using|with|backwards?|reversed|letter by letter|one (?:letter|character) at a time)"
        ),
        _a("passw*|passp*|phrase|passc*|secret*|prompt"),
        lead=True,
        back=7,
        check=_imperative(),
    ),
    Detector(
        R_SECRET,
        _c(
            rf"(?:ask(?:ing|ed)?|beg(?:ging)?)\s+(?:you\s+)?for\s+your\s+{_SECRET}"
            r"|(?:i|we)\s+(?:really\s+)?(?:need|want|require|must have|must know)\s+(?:to know\s+|to see\s+|to have\s+)?"
            rf"your\s+{_SECRET}"
            rf"|(?:share|give|send|tell|reveal)\s+(?:me\s+|us\s+)?your\s+(?:[a-z-]+\s+){{0,1}}?{_SECRET}\s+(?:with me|"
            r"to me|if|for)"
        ),
        _a("password*|passcode*|passphrase*|passwd|passwort|secret*|credential*|pin|key|keys"),
        lead=True,
        back=6,
        weight=WEAK,
    ),
    Detector(
        R_SECRET,
        _c(
            r"(?:repeat|print|output|show|display|recite|reproduce|copy|paste|dump|reveal|echo)\s+(?:back\s+)?(?:all\s+)?"
            r"(?:of\s+)?(?:the\s+)?(?:words|text|everything|anything|content|instructions|lines|sentences)\s+"
            r"(?:above|before this|that came before|preceding|you were given|in your (?:context|prompt|system prompt|"
            r"instructions))|(?:repeat|print|output|show)\s+(?:everything|all)\s+(?:starting|beginning)\s+(?:with|from)\s+"
            r"['\"]?you are"
        ),
        _a("repeat|print|output|show|display|recite|reproduce|copy|paste|dump|reveal|echo"),
        lead=True,
        check=_imperative(),
    ),
    Detector(
        R_SECRET,
        _c(
            r"(?:print|dump|export|list|show|give|send|tell|share|reveal|leak|output|display)\s+(?:me\s+|us\s+)?"
            r"(?:your|the)\s+(?:entire\s+|whole\s+|full\s+|complete\s+)?(?:database|user (?:list|data|records|table)|"
            r"list of (?:all\s+)?(?:the\s+)?users|customer (?:list|data|records)|employee (?:data|records|list)|"
            r"contact list|address book|conversation history|chat history|stored data|training data)"
        ),
        _a("database|user|users|list|customer|employee|contact|address|history|stored|training"),
        lead=True,
        back=6,
        check=lambda view, m: (STRONG if " your " in f" {m.group(0)} " else WEAK) if _order(view, m) else 0,
    ),
    Detector(
        R_SECRET,
        _c(
            r"(?:share|reveal|disclose|give|tell|send|provide|need to know|want to know|confirm)\s+(?:me\s+|us\s+)?"
            r"(?:the user's|the users'|his|her|their|the customer's|the client's|the patient's|[a-z]+'s)\s+"
            r"(?:(?:email|home|current|exact|full|private|personal)\s+)?(?:address|email|e-mail|phone(?: number)?|"
            r"location|birth ?date|date of birth|ssn|social security(?: number)?|credit card(?: number)?|bank (?:details|"
            r"balance|account)|city of residence|password|medical records?)"
        ),
        _a(
            "address|email|mail|phone|location|birth|birthdate|date|ssn|social|credit|bank|city|password|medical"
        ),
        lead=True,
        back=7,
        weight=WEAK,
    ),
)

# ``{lang.table.key}``: a list of data/lexicons/<lang>.toml
_SECRET_ML_TEMPLATES: tuple[tuple[str, tuple[str, ...]], ...] = (
    (
        r"(?:{de.secret.asks})[^.?!\n]{0,25}?(?:{de.secret.nouns})|(?:mir|uns)\s+(?:ihr|dein|das|euer)\s+("
        r"?:{de.secret.nouns_short})\s+(?:{de.secret.give})",
        ("de.secret.anchors",),
    ),
    (
        r"(?:{es.secret.asks})[^.?!\n]{0,25}?(?:{es.secret.nouns})",
        ("es.secret.anchors",),
    ),
    (
        r"(?:{fr.secret.asks})[^.?!\n]{0,25}?(?:{fr.secret.nouns})",
        ("fr.secret.anchors",),
    ),
    (
        r"(?:{it.secret.asks})[^.?!\n]{0,25}?(?:{it.secret.nouns})",
        ("it.secret.anchors",),
    ),
    (
        r"(?:{pt.secret.asks})[^.?!\n]{0,30}?(?:{pt.secret.nouns})",
        ("pt.secret.anchors",),
    ),
    (
        r"(?:{ru.secret.asks})[^.?!\n]{0,25}?(?:{ru.secret.nouns})",
        ("ru.secret.anchors",),
    ),
    (
        r"(?:{zh.secret.asks})[^。？！\n]{0,10}?(?:{zh.secret.nouns})|(?:{zh.secret.nouns_short})是(?:{zh.secr"
        r"et.what})",
        ("zh.secret.anchors",),
    ),
    (
        r"(?:{ja.secret.nouns})(?:は|を|が)?[^。？\n]{0,16}?(?:{ja.secret.asks})",
        ("ja.secret.anchors",),
    ),
    (
        r"(?:{ko.secret.nouns})[^.?!\n]{0,24}?(?:{ko.secret.asks})",
        ("ko.secret.anchors",),
    ),
)
_GENERIC = r"(?:{asks})[^.?!\n]{{0,25}}?(?:{nouns})"  # a language with [secret] asks, nouns, anchors


def _generic(lang: str) -> tuple[str, tuple[str, ...]]:
    words = LEXICONS[lang]["secret"]
    return _GENERIC.format(asks="|".join(words["asks"]), nouns="|".join(words["nouns"])), tuple(
        words["anchors"]
    )


_SECRETS_ML: tuple[Detector, ...] = tuple(
    Detector(R_SECRET, _c(_fill(t)), _anchor_list(refs), check=_question_to_reader_ml)
    for t, refs in _SECRET_ML_TEMPLATES
) + tuple(
    Detector(R_SECRET, _c(p), _a(a), check=_question_to_reader_ml)
    for p, a in map(
        _generic,
        [
            lang
            for lang in _unused_tables("secret", (t for t, _ in _SECRET_ML_TEMPLATES))
            if "asks" in LEXICONS[lang]["secret"]
        ],
    )
)
