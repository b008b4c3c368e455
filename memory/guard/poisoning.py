"""Poisoning: text that instructs a future reader of the memory. Refused, never stored.

How it works
------------
1. **Views.**  The text is folded (NFKC, invisible characters dropped, lower case, Latin/Greek accents
   removed, typographic quotes straightened).  Obfuscated forms get extra views: leetspeak, spaced-out
   letters, Cyrillic/Greek look-alikes inside Latin words, and decoded payloads (base64, hex, binary,
   decimal codes, Morse, Caesar/ROT13, reversed text, pig latin, Unicode tag characters, variation-selector
   and zero-width steganography).  Every view is scanned the same way.
2. **Detectors.**  Each detector is a regex for one manipulation technique aimed at the *reader*: an
   imperative plus a target (previous instructions, the system prompt, the assistant's role, its secrets,
   its response), a fake conversation turn, an address to an AI reader, an exfiltration order, a
   code-insertion order with a malicious payload, a payload split into parts; in English, Russian, German,
   French, Spanish, Italian, Portuguese, Chinese, Japanese and Korean (plus a few more for the override).
   A trigger word alone ("ignore", "system", "instructions", "prompt", "override") never fires.
3. **Weights.**  A strong signal (weight 2) rejects on its own.  Weak signals (weight 1: an authority
   claim, a mode switch, a request for "the password", a directive about the reader's answer in a short
   standalone note) reject only when two of them sit within a few hundred characters of each other.
   Orders reported in the third person ("we decided to ignore the old rules") or negated ("never share
   your password") are discounted.  Directives about "your response" count as strong only inside
   third-party content (an e-mail, a web page): alone they are a user's preference ("reply in Spanish").
4. **Machine-sent mail.**  One heuristic looks at meaning rather than phrasing: an assistant-style task
   ("Summarize the 2020 climate report.") inside a notification, receipt or newsletter that shares no topic
   words with it.  Person-to-person mail is exempt, because there a planted task and a colleague's request
   look the same.

Speed: every regex is bounded (no nested unbounded repetition, possessive runs where a blob can be long).
A detector only runs where its *anchors* occur -- words every match contains, found with one tokenising
pass -- either as one match attempt at (or a few words before) each anchor, or in a window around it.
A 100 kB note costs a few tens of milliseconds at worst.
"""

from __future__ import annotations

import base64
import binascii
import bisect
import functools
import itertools
import re
import unicodedata
from collections.abc import Callable, Iterator
from dataclasses import dataclass

# --------------------------------------------------------------------------------------------------
# reasons (what the caller sees after "Memory rejected by Security Guard: ")
# --------------------------------------------------------------------------------------------------

R_OVERRIDE = "instruction to ignore previous instructions"
R_ROLE = "attempt to override the system prompt or the assistant's role"
R_TURN = "fake system, assistant or tool turn"
R_EXFIL = "instruction to the reader to leak data or call tools"
R_SECRET = "attempt to extract secrets or the system prompt"
R_OUTPUT = "instruction to manipulate the reader's response"
R_CODE = "instruction to insert malicious code"
R_SPLIT = "instruction split into parts to evade filters"
R_PRESSURE = "false authority or pressure aimed at the assistant"
R_ADDRESS = "instruction addressed to an AI reader"
R_HIDDEN = "hidden characters smuggling instructions"
R_HARMFUL = "instruction to produce phishing or fraud content"
R_TASK = "task for the reader hidden in a document"

STRONG = 2
WEAK = 1
_PAIR_DISTANCE = 400  # weak signals combine only when this close to each other
_WINDOW = 400  # characters scanned on each side of an anchor

# --------------------------------------------------------------------------------------------------
# normalisation
# --------------------------------------------------------------------------------------------------

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
    for ch in "\u2018\u2019\u201a\u201b\u02bc\u00b4\u0060\u2032":
        table[ord(ch)] = "'"
    for ch in "\u201c\u201d\u201e\u201f\u00ab\u00bb\u2033":
        table[ord(ch)] = '"'
    for ch in "\u2010\u2011\u2012\u2013\u2014\u2015\u2212":
        table[ord(ch)] = "-"
    table[0x00A0] = " "
    table[ord("\u00df")] = "ss"
    table[ord("\u03c2")] = "\u03c3"  # final sigma
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


# --------------------------------------------------------------------------------------------------
# detectors
# --------------------------------------------------------------------------------------------------

_F = re.UNICODE
_ML = re.UNICODE | re.MULTILINE


def _c(pattern: str, flags: int = _F) -> re.Pattern[str]:
    return re.compile(pattern, flags)


Check = Callable[[str, "re.Match[str]"], int]


@dataclass(frozen=True)
class Detector:
    """One technique.  ``anchors``: words (or, for anything but Latin/Greek/Cyrillic letters, substrings) at least
    one of which every match contains; ``word*`` is a prefix.  With ``lead`` every match *starts* at an anchor,
    so the regex is only tried there; otherwise it runs in windows around the anchors."""

    reason: str
    pattern: re.Pattern[str]
    anchors: tuple[str, ...]
    weight: int = STRONG
    check: Check | None = None  # returns the weight of this match (0: discard)
    lead: bool = False
    back: int = 0  # with lead: the match may also start up to this many words before the anchor


def _a(spec: str, sep: str = "|") -> tuple[str, ...]:
    return tuple(part for part in spec.split(sep) if part)


def _words(spec: str) -> frozenset[str]:
    return frozenset(spec.split())


# -- context helpers ---------------------------------------------------------------------------

_BREAKS = ".!?\n;"
_REPORTED = _c(
    r"(?:^|[\s,(\"'])(?:i|we|they|he|she|it|people|someone|somebody|everyone|nobody|users?|attackers?|hackers?"
    r"|customers?|clients?|vendors?|(?:the|our|my|his|her|their) (?:team|user|customer|client|vendor|model|bot|"
    r"agent|assistant|attacker|manager|boss|teacher|doctor|prompt|paper|article|email|document|test))"
    r"(?:'d|'ll|'ve|'m|'re)?\s+(?:[a-z']+\s+){0,3}$"
)
_REPORTED_NO_WE = _c(
    r"(?:^|[\s,(\"'])(?:i|they|he|she|it|people|someone|somebody|everyone|nobody|users?|attackers?|hackers?"
    r"|customers?|clients?|vendors?)(?:'d|'ll|'ve|'m|'re)?\s+(?:[a-z']+\s+){0,3}$"
)
_NEGATED = _c(
    r"(?:^|\s)(?:never|not|no need to|avoid|refuse to|won't|wouldn't|shouldn't|don't|do not|doesn't|does not|"
    r"didn't|did not|cannot|can't|must not|mustn't|how to|whether to|why)\s+(?!(?:hesitate|forget|fail)\b)"
    r"(?:[a-z']+\s+){0,2}$"
)


def _clause_before(view: str, start: int, width: int = 48) -> str:
    window = view[max(0, start - width) : start]
    cut = max(window.rfind(c) for c in _BREAKS + ",:")
    return window[cut + 1 :] if cut >= 0 else window


def _sentence(view: str, start: int, end: int) -> tuple[int, int]:
    s = max(view.rfind(c, max(0, start - 2000), start) for c in _BREAKS) + 1
    ends = [i for i in (view.find(c, end, end + 2000) for c in _BREAKS) if i >= 0]
    return max(s, start - 2000), (min(ends) + 1 if ends else min(len(view), end + 2000))


def _order(view: str, m: re.Match[str], *, allow_we: bool = False) -> bool:
    """True when the match reads as an order, not as reported speech or a negated/advisory mention."""
    before = _clause_before(view, m.start())
    if "you" in before.split():
        return not _NEGATED.search(before)
    if (_REPORTED_NO_WE if allow_we else _REPORTED).search(before):
        return False
    return not _NEGATED.search(before)


_LEAD_IN = _c(
    r"(?:(?:please|kindly|also|then|and|now|just|immediately|first|finally|so|pls|ok|okay|hey|quickly|secretly|"
    r"silently|quietly)\s+|(?:you|u)\s+(?:must|should|need to|have to|will|shall|are to|can|could)\s+|"
    r"(?:i|we)\s+(?:need|want|would like|require)\s+you\s+to\s+|(?:can|could|would|will)\s+you\s+(?:please\s+)?|"
    r"make sure (?:to|you)\s+|be sure to\s+|remember to\s+|(?:don't|do not) forget to\s+|"
    r"(?:we|you)\s+(?:might|could|should)\s+|let's\s+|let us\s+|(?:and|then)\s+(?:also\s+)?)*"
)


def _clause_start(view: str, m: re.Match[str]) -> bool:
    """The match opens its clause (after optional 'please', 'you must', 'can you' ...): an imperative."""
    before = _clause_before(view, m.start()).strip()
    return _LEAD_IN.fullmatch(f"{before} " if before else "") is not None


def _imperative(weight: int = STRONG, *, allow_we: bool = False) -> Check:
    def check(view: str, m: re.Match[str]) -> int:
        return weight if _order(view, m, allow_we=allow_we) else 0

    return check


_DOC_MARKERS = _c(
    r"^(?:subject|from|to|cc|bcc|date|sent|received(?: date)?|email_from|reply-to)\s*:"
    r"|<(?:html|body|div|p|td|tr|table|span|br|h[1-6]|li|ul|section|footer|header|caption|img|a|code)\b"
    r"|\|content\s*:|```|^\s*(?:dear|hi|hello)\s+\w+|\b(?:regards|sincerely|cheers),?\s*$",
    _ML,
)


def _embedded(view: str, start: int, end: int) -> bool:
    """The directive sits inside third-party content (an e-mail, a web page, a quoted document), not in a note."""
    return _DOC_MARKERS.search(view, 0, 20000) is not None


# -- 1. ignore previous instructions ----------------------------------------------------------

_IGN = (
    r"(?:ignore|ignoring|ignorieren?|disregard|disregarding|forget|forgetting|overlook|overlooking|override|"
    r"overriding|overrule|bypass|bypassing|skip|discard|dismiss|abandon|neglect|ditch|scrap|set aside|put aside|"
    r"throw (?:out|away)|do not follow|don't follow|dont follow|stop following|no longer follow|cease following|"
    r"do not obey|don't obey|stop obeying|pay no (?:attention|heed|mind) to|(?:do not|don't) pay (?:any )?attention to|"
    r"never ?mind|unlearn|erase|wipe|clear|reset|delete|remove|drop)"
)
# the first word of every _IGN alternative (lead anchors)
_IGN_LEAD = (  # a rare word among the first three of every _IGN alternative
    "ignor*|disregard*|forget*|overlook*|overrid*|overrul*|bypass*|skip|discard|dismiss|abandon|neglect|ditch|scrap|"
    "aside|throw|follow*|obey*|attention|heed|mind|nevermind|unlearn|erase|wipe|clear|reset|delete|remove|drop"
)
_DET = r"(?:(?:all|any|every|each|of|about|the|your|my|these|those|that|this|such|other|whatever|prior|previous)\s+){0,4}"
# verbs that only mean "disobey" (the others -- override, reset, delete, skip ... -- are everyday words in notes)
_IGN_STRONG = (
    r"(?:ignore|ignoring|ignorieren?|disregard|disregarding|forget|forgetting|overlook|overlooking|discard|dismiss|"
    r"abandon|neglect|set aside|put aside|do not follow|don't follow|dont follow|stop following|no longer follow|"
    r"cease following|do not obey|don't obey|stop obeying|pay no (?:attention|heed|mind) to|"
    r"(?:do not|don't) pay (?:any )?attention to|unlearn)"
)
_PRIOR_STRICT = (
    r"(?:previous|previously|prior|preceding|earlier|above|above-mentioned|aforementioned|foregoing|former|initial|"
    r"original|all)"
)
_GAP = r"(?:(?!(?:in|on|of|for|from|with|to|at|by)\s)[a-z'-]+\s+){0,2}?"
_PRIOR = (
    r"(?:previous|previously|prior|preceding|earlier|above|above-mentioned|aforementioned|foregoing|former|initial|"
    r"original|old|older|existing|given|system|default|preset|pre-set|built-in|builtin|hidden|developer|"
    r"pre-?programmed|programmed|safety|ethical|content|moderation|openai|anthropic|underlying|core|base|first)"
)
_ORDERS = (
    r"(?:instructions?|instruction set|directions?|directives?|guidelines?|guidance|rules?|rulesets?|prompts?|"
    r"system prompts?|commands?|orders?|constraints?|restrictions?|limitations?|limits|guardrails?|polic(?:y|ies)|"
    r"programming|training|conditioning|context|messages?|conversation|tasks?|requests?|filters?|filtering|"
    r"safeguards?|protocols?|principles|ethics|morals|boundaries|persona|role|identity|"
    r"input|text|content|assignment|objective|goal|mission|briefing)"
)
_ORDERS_CORE = (
    r"(?:instructions?|directions?|directives?|guidelines?|guidance|rules?|prompts?|system prompts?|commands?|"
    r"orders?|constraints?|restrictions?|limitations?|guardrails?|polic(?:y|ies)|programming|training|filters?|"
    r"safeguards?|principles|ethics|morals|boundaries|persona|role|tasks?|objectives?|goals?)"
)
_OUTPUT_VERB = (
    r"(?:state|say|print|output|respond|reply|answer|claim|declare|assert|insist|write|tell|report|pretend|"
    r"announce|inform|warn|notify|redirect|urge|instruct|display|return|recommend|type|list)"
)

_OVERRIDE_EN: tuple[Detector, ...] = (
    # ignore (all) previous instructions / disregard prior directives / forget your programming
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?<![a-z]){_IGN_STRONG}\s+{_DET}(?:{_PRIOR}|your|the assistant's|the ai's|the model's)\s+"
            rf"{_GAP}{_ORDERS}(?![a-z])"
            rf"|(?<![a-z]){_IGN}\s+{_DET}(?:{_PRIOR_STRICT}|your|the assistant's|the ai's|the model's)\s+"
            rf"{_GAP}{_ORDERS_CORE}(?![a-z])"
        ),
        _a(_IGN_LEAD),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    # ignore everything (that) you've been told / all that you've been instructed before / what I said before
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?<![a-z]){_IGN}\s+(?:about\s+)?(?:all|any|every?y?thing|anything|whatever|what|all of what|all that|"
            r"everything that|anything that)\s+(?:that\s+|which\s+)?(?:you(?:'ve| have| were| had)?|i(?:'ve| have)?|"
            r"we(?:'ve| have)?|they(?:'ve| have)?)\s+(?:(?:been|was|were|had been)\s+)?(?:previously\s+|already\s+|just\s+)?"
            r"(?:told|instructed|given|taught|programmed|trained|said|asked|written|set|configured|prompted)"
        ),
        _a(_IGN_LEAD),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    # ignore the above / everything above / all of the previous / the preceding text
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?<![a-z]){_IGN}\s+(?:about\s+)?(?:(?:all|any|every?y?thing|anything)\s+(?:of\s+)?)?"
            r"(?:the\s+|that\s+|this\s+)?(?:above|previous|preceding|prior|foregoing|earlier)(?:\s+(?:text|message|"
            r"messages|content|prompt|conversation|context|input|section|lines?|paragraphs?|words|document|data|one|ones|"
            r"part))?(?=\s*(?:and|then|,|;|:|\.|!|$|\n|-|instead|now|completely|entirely))"
        ),
        _a(_IGN_LEAD),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    # forget about all those rules that tell you what you can say
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?<![a-z]){_IGN}\s+(?:about\s+)?{_DET}{_ORDERS_CORE}\s+(?:that|which|you)\s+(?:[a-z']+\s+){{0,3}}?"
            r"(?:you|your)(?![a-z])"
        ),
        _a(_IGN_LEAD),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    # ignore the webpage / function / resume and state: ...
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?<![a-z]){_IGN}\s+(?:the|this|that|these|those|all|any|my|our|its|actual)\s+(?:[a-z'-]+\s+){{0,3}}?"
            r"[a-z'-]+\s*(?:and|then|,|;|-)\s*(?:then\s+)?(?:instead\s+)?(?:just\s+|simply\s+|only\s+)?"
            rf"{_OUTPUT_VERB}(?![a-z])"
        ),
        _a(_IGN_LEAD),
        lead=True,
        back=2,
        check=_imperative(allow_we=True),
    ),
    # ignore the user (the principal the reader serves)
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?<![a-z]){_IGN_STRONG}\s+(?:what\s+)?(?:the|your)\s+(?:user|users|human|operator|owner|customer)"
            r"(?:'s|s')?(?:\s+(?:question|request|message|instructions?|prompt|query|input|wishes|says|said|wants))?"
            r"\s*(?:[.,;:!\n]|and\b|then\b|$)"
        ),
        _a(_IGN_LEAD),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    # regardless of / instead of following previous instructions
    Detector(
        R_OVERRIDE,
        _c(
            r"(?:regardless of|irrespective of|notwithstanding|in spite of|despite|instead of (?:following|obeying)|"
            r"rather than (?:following|obeying)|contrary to)\s+(?:all\s+|any\s+|the\s+)?(?:your\s+(?:[a-z-]+\s+)?"
            rf"{_ORDERS_CORE}|{_PRIOR}\s+(?:[a-z-]+\s+)?{_ORDERS_CORE})(?![a-z])"
        ),
        _a("regardless|irrespective|notwithstanding|spite|despite|instead|rather|contrary"),
        lead=True,
        back=1,
    ),
    # your previous instructions are void / new instructions supersede all prior ones
    Detector(
        R_OVERRIDE,
        _c(
            rf"(?:your|the|all)\s+(?:{_PRIOR}\s+)?{_ORDERS_CORE}\s+(?:are|is|were|have been|has been)\s+(?:now\s+)?"
            r"(?:void|null|cancell?ed|revoked|overridden|overwritten|lifted|removed|disabled|deactivated|suspended|"
            r"no longer (?:valid|apply|applicable|in effect|active)|obsolete|invalid|superseded|replaced|deprecated)"
            r"|(?:new|updated|following)\s+(?:instructions?|rules|directives?)\s+(?:supersede|override|replace|"
            r"take precedence over)"
        ),
        _a(
            "void|null|cancel*|revoked|overrid*|overwrit*|lifted|removed|disabled|deactivat*|suspended|longer|obsolete|"
            "invalid|supersed*|replace*|deprecated|precedence"
        ),
        check=_imperative(),
    ),
    # override / replace your system prompt, disable your safety filters
    Detector(
        R_OVERRIDE,
        _c(
            r"(?<![a-z])(?:override|overwrite|replace|supersede|rewrite|reset|wipe|erase|delete|clear|disable|deactivate|"
            r"turn off|switch off|remove|lift|relax|drop|bypass|circumvent|suspend|loosen|ignore)\s+(?:all\s+(?:of\s+)?)?"
            r"(?:your\s+(?:[a-z-]+\s+)?(?:system prompt|instructions|rules|programming|guidelines|directives|"
            r"guardrails|safety|safeguards|restrictions|limits|filters?|moderation|censorship|policies|ethics|memory)"
            r"|the system prompt)"
        ),
        _a(
            "override|overwrite|replace|supersede|rewrite|reset|wipe|erase|delete|clear|disable|deactivate|turn|switch|"
            "remove|lift|relax|drop|bypass|circumvent|suspend|loosen|ignore"
        ),
        lead=True,
        check=_imperative(),
    ),
)

# other languages: verb ... (prior) ... orders, both word orders where the language allows it
_OVERRIDE_ML_PATTERNS: tuple[tuple[str, str], ...] = (
    (  # Russian / Ukrainian
        r"(?:игнорир\w*|проигнорир\w*|ігнор\w*|забудь\w*|забуд\w*|забыть|отбрось\w*|отбрасыва\w*|не обращай\w* "
        r"внимани\w* на|не учитывай\w*|пренебреги\w*|отмени\w*|не следуй\w*|не выполняй\w*|перестань\w* следовать|"
        r"сбрось\w*|обойди\w*)[^.!?\n]{0,40}?(?:предыдущ\w*|прошл\w*|прежн\w*|ранее\s\w+|выше\w*|вышеуказанн\w*|"
        r"изначальн\w*|исходн\w*|системн\w*|попередн\w*|все\w*|свои\w*|тво\w*|ваш\w*)?[^.!?\n]{0,20}?"
        r"(?:инструкци\w*|інструкці\w*|указани\w*|вказівк\w*|правил\w*|команд\w*|промпт\w*|установк\w*|директив\w*|"
        r"ограничени\w*|запрет\w*|настройк\w*)",
        "игнор*|проиг*|ігнор*|забуд*|забыт*|отбро*|отбра*|обращ*|учиты*|прене*|отмен*|следу*|выпол*|перес*|сбрось|обойди",
    ),
    (
        r"(?:предыдущ\w*|прошл\w*|прежн\w*|вышеуказанн\w*|все\w*|системн\w*)\s+(?:[а-яё]+\s+){0,2}?"
        r"(?:инструкци\w*|указани\w*|правил\w*|команд\w*)\s+(?:[а-яё]+\s+){0,2}?(?:игнорир\w*|не действ\w*|отмен\w*|"
        r"больше не действ\w*|недействительн\w*|аннулир\w*)",
        "инстр*|указа*|прави*|коман*",
    ),
    (  # German
        r"(?:ignorier\w*|vergiss|vergesst|vergessen sie|vergessen|missacht\w*|ubergeh\w*|uberspring\w*|verwirf|"
        r"verwerfen sie|beachte\w* (?:sie )?nicht|nicht beachten|hor\w* auf[^.!?\n]{0,30}zu befolgen|"
        r"setze?n? (?:sie )?[^.!?\n]{0,30}ausser kraft)[^.!?\n]{0,40}?(?:vorherig\w*|bisherig\w*|vorangegangen\w*|"
        r"vorig\w*|fruher\w*|obig\w*|alle\w*|deine?\w*|ihre?\w*|ursprunglich\w*|system\w*|bisher\w*)[^.!?\n]{0,25}?"
        r"(?:anweisung\w*|instruktion\w*|regeln|befehl\w*|vorgaben|richtlinien|anordnung\w*|prompts?|"
        r"einschrankung\w*|aufforderung\w*|auftrag\w*|aufgabe\w*)",
        "ignor*|vergiss|vergesst|vergessen|missacht*|ubergeh*|uberspring*|verwirf|verwerf*|beacht*|befolgen|kraft",
    ),
    (
        r"(?:vorherig\w*|bisherig\w*|vorangegangen\w*|obig\w*|alle\w*)\s+(?:\w+\s+){0,2}?(?:anweisung\w*|instruktion\w*|"
        r"regeln|befehl\w*|vorgaben)\s+(?:\w+\s+){0,3}?(?:ignorieren|vergessen|missachten|ausser acht lassen|"
        r"nicht (?:mehr )?beachten|gelten nicht mehr|sind ungultig|sind aufgehoben)",
        "anweisung*|instruktion*|regeln|befehl*|vorgaben",
    ),
    (  # French
        r"(?:ignore[zrs]?|ignorant|oublie[zrs]?|oubliant|ne tiens pas compte|ne tenez pas compte|fais abstraction|"
        r"faites abstraction|neglige[zr]?|ecarte[zr]?|contourne[zr]?|passe[zr]? outre|ne suis pas|ne suivez pas|"
        r"ne respecte[zr]? pas|annule[zr]?|abandonne[zr]?)[^.!?\n]{0,40}?(?:les|des|toutes les|tous les|tes|vos|ces|"
        r"aux|ses|leurs)\s+(?:\w+\s+){0,2}?(?:instructions?|consignes?|regles?|directives?|ordres?|indications?|"
        r"restrictions?|contraintes?|commandes?|lignes directrices)",
        "ignor*|oubli*|tiens|tenez|abstraction|neglig*|ecart*|contourn*|outre|suis|suivez|respect*|annul*|abandon*",
    ),
    (  # Spanish
        r"(?:ignora\w*|ignore\w*|olvida\w*|olvide\w*|omite|omita|omitan|descarta\w*|haz caso omiso|haga caso omiso|"
        r"hagan caso omiso|no hagas caso|no tengas en cuenta|no tenga en cuenta|pasa por alto|pase por alto|"
        r"desobedece|no sigas|no siga|deja de seguir|salta\w*)[^.!?\n]{0,40}?(?:las|todas las|tus|sus|los|"
        r"todos los|estas|esas|mis)\s+(?:\w+\s+){0,2}?(?:instrucciones|indicaciones|reglas|ordenes|directrices|"
        r"directivas|consignas|restricciones|normas|pautas|comandos)",
        "ignor*|olvid*|omit*|omita|omitan|descart*|omiso|hagas|tengas|tenga|alto|desobedec*|sigas|siga|deja|salta*",
    ),
    (  # Italian
        r"(?:ignora\w*|ignori|dimentica\w*|dimentichi\w*|trascura\w*|tralascia\w*|non considerare|non tenere conto|"
        r"non seguire|scarta\w*|salta\w*|disattendi|non rispettare)[^.!?\n]{0,40}?(?:le |tutte le |tue |sue |queste )?"
        r"(?:\w+\s+){0,2}?(?:istruzioni|regole|indicazioni|direttive|ordini|comandi|vincoli|restrizioni|"
        r"linee guida)",
        "ignor*|dimentic*|trascur*|tralasc*|considerare|conto|seguire|scarta*|salta*|disattendi|rispettare",
    ),
    (  # Portuguese
        r"(?:ignore\w*|ignora\w*|esqueca\w*|esquece\w*|desconsidere\w*|desconsidera\w*|despreze\w*|descarte\w*|"
        r"nao siga|deixe de lado|deixe de seguir|pule)[^.!?\n]{0,40}?(?:as |todas as |suas |tuas |estas |os |"
        r"todos os )?(?:\w+\s+){0,2}?(?:instrucoes|instrucao|regras|orientacoes|ordens|diretrizes|comandos|indicacoes|"
        r"restricoes)",
        "ignor*|esquec*|desconsider*|desprez*|descart*|siga|lado|seguir|pule",
    ),
    (  # Dutch, Polish, Turkish, Indonesian/Malay, Vietnamese, Swedish/Danish/Norwegian
        r"(?:negeer|vergeet|zignoruj|zapomnij|pomi[nń]|abaikan|lupakan|bo qua|quen|ignorera|glom|glem)[^.!?\n]{0,40}?"
        r"(?:instructies|regels|opdrachten|instrukcje|instrukcji|polecenia|zasady|instruksi|perintah|aturan|huong dan|"
        r"chi dan|lenh|instruktioner|regler|instruktionerna|instruksjoner)"
        r"|(?:onceki|yukaridaki|tum)\s+(?:\w+\s+){0,2}?(?:talimatlari|kurallari|komutlari|yonergeleri)\s+"
        r"(?:\w+\s+){0,1}?(?:yok say|gormezden gel|unut|dikkate alma)",
        "negeer|vergeet|zignoruj|zapomnij|pomi*|abaikan|lupakan|qua|quen|ignorera|glom|glem|talimat*|kurallar*|"
        "komutlar*|yonerge*",
    ),
    (  # Greek (accents folded)
        r"(?:αγνοη\w*|αγνοει\w*|ξεχα\w*|παραβλεψ\w*|μην ακολουθ\w*)[^.!?\n;]{0,40}?(?:προηγουμεν\w*|παραπανω|ολες|"
        r"ολους|αρχικ\w*|τις|τους)?[^.!?\n;]{0,20}?(?:οδηγι\w*|εντολ\w*|κανον\w*|οδηγιες)",
        "αγνο*|ξεχα*|παραβλεψ*|ακολουθ*",
    ),
    (  # Arabic, Hindi
        r"(?:تجاهل|تجاهلي|تجاهلوا|انس|انسى|لا تتبع|لا تلتزم|اهمل|أهمل)[^.!?\n]{0,40}?(?:التعليمات|الأوامر|الاوامر|"
        r"القواعد|التوجيهات|الإرشادات|الارشادات)"
        r"|(?:पिछले|पूर्व|सभी|ऊपर\s+के|पहले\s+के)[^।\n]{0,20}?(?:निर्देश\S*|नियम\S*|आदेश\S*)[^।\n]{0,25}?"
        r"(?:अनदेखी|नज़रअंदाज़|नजरअंदाज|भूल\s+जा|ध्यान\s+न|अनदेखा)",
        "تجاهل|انس|لا تتبع|لا تلتزم|اهمل|أهمل|निर्देश|नियम|आदेश",
    ),
    (  # Chinese (simplified + traditional)
        r"(?:忽略|忽視|忽视|无视|無視|忘记|忘記|忘掉|不要理会|不要理會|不要管|别管|別管|抛开|拋開|放弃|放棄|跳过|跳過|不理会|"
        r"不理會|无需遵守|無需遵守|不必遵守|不要遵守|停止遵守|不再遵守|绕过|繞過)[^。！？\n]{0,14}?"
        r"(?:之前|以上|上面|上述|先前|前面|此前|以前|所有|原来|原來|原有|原始|系统|系統|你的|您的|全部|一切|默认|默認|既有)"
        r"[^。！？\n]{0,10}?(?:指令|指示|说明|說明|规则|規則|提示|要求|命令|设定|設定|限制|约束|約束|内容|內容|规定|規定|"
        r"准则|準則|政策|任务|任務)",
        "忽|无视|無視|忘|不要|别管|別管|抛开|拋開|放弃|放棄|跳过|跳過|不理|无需|無需|不必|停止|不再|绕过|繞過",
    ),
    (
        r"(?:忽略|忽视|忽視|无视|無視)[^。！？\n]{0,40}?(?:并|並|然后|然後|，|,)\s*(?:声明|聲明|说|說|表示|输出|輸出|回答|"
        r"写|寫|告诉|告訴|宣称|宣稱)",
        "忽|无视|無視",
    ),
    (  # Japanese
        r"(?:以前|前|上記|これまで|先|最初|元|全て|すべて|あなたの|システム|今まで|既存)の?[^。！？\n]{0,12}?"
        r"(?:指示|命令|ルール|プロンプト|指令|設定|制約|規則|ガイドライン)[^。！？\n]{0,8}?(?:を|は)?\s*"
        r"(?:無視|忘れ|破棄|取り消|従わな|従わず|守らな|リセット)"
        r"|(?:無視|忘れ)(?:して|しろ|しなさい|してください)[^。！？\n]{0,60}?(?:述べ|言っ|言え|出力|答え|書い|"
        r"表示|伝え|教え|送っ|送信)",
        "無視|忘れ|破棄|取り消|従わ|守らな|リセット",
    ),
    (  # Korean
        r"(?:이전|앞의|위의|위|기존|모든|원래|시스템|너의|당신의|앞서|지금까지의|초기)[^.!?\n]{0,14}?"
        r"(?:지시|명령|규칙|지침|지시사항|프롬프트|설정|제한|가이드라인)[^.!?\n]{0,14}?"
        r"(?:무시|잊어|잊으|잊고|따르지\s*마|따르지\s*말|지키지\s*마|폐기)"
        r"|무시하고[^.!?\n]{0,50}?(?:말해|말하|출력|답하|대답|작성|알려)",
        "무시|잊|따르지|지키지|폐기",
    ),
    (  # Romance-language "ignore the X and state ..."
        r"(?:ignore[zr]?|ignora|ignoren|ignorate|oublie[zr]?|olvida|esqueca|dimentica)\s+(?:la|le|les|el|los|las|lo|"
        r"il|gli|o|a|os|as|l')\s*[a-z'-]+(?:\s+[a-z'-]+){0,2}\s+(?:et|y|e)\s+(?:indique[zr]?|dis|dites|declare[zr]?|"
        r"affirme[zr]?|reponds|repondez|ecris|ecrivez|di|declara|afirma|responde|escribe|indica|menciona|dica|"
        r"diga|declare|afirme|responda|escreva|indique|dichiara|rispondi|scrivi|affermi|dichiari)",
        "ignor*|oubli*|olvid*|esquec*|dimentic*",
    ),
    (  # German "ignorieren Sie die Funktion und sagen Sie ..."
        r"(?:ignorier\w*|vergiss|vergessen sie)\s+(?:sie\s+)?(?:die|das|den|der|alle\w*)\s+\w+(?:\s+\w+){0,2}\s+und\s+"
        r"(?:sag\w*|gib\w*|antwort\w*|schreib\w*|behaupt\w*|erklar\w*|teile?n?)",
        "ignor*|vergiss|vergessen",
    ),
)
_OVERRIDE_ML: tuple[Detector, ...] = tuple(
    Detector(R_OVERRIDE, _c(p), _a(a)) for p, a in _OVERRIDE_ML_PATTERNS
)

# -- 2. role / persona / mode hijack ----------------------------------------------------------

_AI_NOUN = (
    r"(?:ai|a\.i\.|assistant|bot|chatbot|chat bot|model|language model|llm|gpt|chatgpt|claude|gemini|dan|"
    r"application|app|program|persona|character|entity|agent|system|machine|jailbreak|jailbroken)"
)
_AI_NOUN_LEAD = (
    "ai|assistant|bot|chatbot|chat|model|language|llm|gpt|chatgpt|claude|gemini|dan|application|app|program|persona|"
    "character|entity|agent|system|machine|jailbreak|jailbroken"
)
_NO_LIMITS = (
    r"(?:restrictions?|limits|limitations?|filters?|filtering|rules|guidelines|boundaries|ethics|ethical (?:guidelines|"
    r"constraints|principles)|morals|morality|censorship|content polic(?:y|ies)|safety (?:guidelines|measures|rules)|"
    r"guardrails|constraints|policies|programming)"
)
_ROLE: tuple[Detector, ...] = (
    Detector(
        R_ROLE,
        _c(
            r"(?<![a-z])you\s+are\s+(?:now|no longer|henceforth|from now on|hereby|officially)\s+(?:an?\s+|the\s+)?"
            rf"(?:[a-z'-]+\s+){{0,3}}?{_AI_NOUN}(?![a-z])"
        ),
        _a("now|longer|henceforth|hereby|officially"),
        lead=True,
        back=2,
        check=_imperative(),
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?:you(?:'re| are)?|it|dan|the (?:ai|assistant|model|bot))\s+(?:is\s+|are\s+)?(?:now\s+)?(?:no longer|not)\s+"
            r"(?:bound|restricted|limited|constrained|governed|controlled|held back)\s+by\s+(?:any\s+|your\s+|the\s+|its\s+|"
            rf"their\s+)?(?:[a-z'-]+\s+){{0,2}}?{_NO_LIMITS}"
            r"|(?:do not|don't|doesn't|does not|never)\s+(?:have|need)\s+to\s+(?:abide by|follow|obey|comply with|adhere to|"
            rf"respect)\s+(?:the\s+|any\s+|your\s+|their\s+|its\s+)?(?:[a-z'-]+\s+){{0,2}}?{_NO_LIMITS}\s+(?:set|imposed|"
            r"given|placed|put)\s+(?:for|on|upon)\s+(?:them|you|it|ai)"
            r"|(?:broken|break|broke|breaking)\s+free\s+(?:of|from)\s+(?:the\s+)?(?:[a-z'-]+\s+){0,2}?(?:confines|"
            r"restrictions|rules|limits|shackles|chains|programming)\s+of\s+(?:ai|artificial intelligence|your|its)"
        ),
        _a(
            "bound|restricted|limited|constrained|governed|controlled|held|abide|follow|obey|comply|adhere|respect|free"
        ),
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?:unrestricted|unfiltered|uncensored|jailbroken|amoral|unethical|evil|rogue|unlimited|unbounded|"
            r"unconstrained|unchained|unaligned|unshackled|unleashed|limitless|lawless|rule-?free|filter-?free)\s+"
            r"(?:version of (?:yourself|you|chatgpt|claude|the (?:ai|assistant|model))|ai|a\.i\.|assistant|bot|chatbot|"
            r"model|language model|llm|gpt|chatgpt|persona|mode)(?![a-z])"
        ),
        _a(
            "unrestricted|unfiltered|uncensored|jailbroken|amoral|unethical|evil|rogue|unlimited|unbounded|unconstrained|"
            "unchained|unaligned|unshackled|unleashed|limitless|lawless|rule|filter"
        ),
        lead=True,
    ),
    Detector(
        R_ROLE,
        _c(
            rf"{_AI_NOUN}s?\s+(?:with|that has|which has|who has|having)\s+no\s+(?:special\s+|content\s+|safety\s+)?"
            rf"{_NO_LIMITS}|{_AI_NOUN}s?\s+without\s+(?:any\s+)?(?:special\s+|content\s+|safety\s+)?{_NO_LIMITS}"
        ),
        _a(_AI_NOUN_LEAD),
        lead=True,
    ),
    Detector(
        R_ROLE,
        _c(
            r"do anything now|(?:known as|called|named|you are|act as|become|pretend to be|persona of)\s+dan(?![a-z])"
            r"|(?:immerse|put|place)\s+yourself\s+(?:in|into)\s+the\s+role\s+of"
            r"|(?:assume|adopt|take on|step into|enter|play)\s+the\s+(?:role|persona|identity|character)\s+of\s+"
            r"(?:another|a different|an?|the)\s+(?:[a-z'-]+\s+){0,2}?(?:ai|model|assistant|bot|chatbot|llm|language model)"
        ),
        _a("anything|dan|yourself|role|persona|identity|character"),
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?:from now on|henceforth|from this (?:point|moment) (?:on|forward)|for the rest of (?:this|the) "
            r"conversation|starting (?:now|today)|as of now|(?:for|in) (?:all\s+)?(?:future|subsequent|later|upcoming) "
            r"(?:conversations?|chats?|sessions?|interactions?|answers|responses|replies|turns))\s*,?\s*(?:you|your)\s+(?:will\s+|must\s+|shall\s+|"
            r"are going to\s+|should\s+)?(?:now\s+|only\s+|always\s+)?(?:ignore|disregard|forget|obey|comply|act as|"
            r"respond (?:only )?(?:as|with)|answer (?:only )?as|reply (?:only )?as|pretend|behave as|operate as|role-?play|"
            r"speak as|refer to yourself|call yourself|(?:are|be) (?:called|named|known as)|name is|new name|"
            r"have no (?:restrictions|rules|limits|filters)|are (?:an?\s+)?(?:unrestricted|unfiltered|uncensored|"
            r"jailbroken|free from))"
        ),
        _a("now|henceforth|point|moment|conversation|today|future|subsequent|later|upcoming"),
        lead=True,
        back=5,
    ),
    Detector(
        R_ROLE,
        _c(
            r"(?<![a-z])(?:you\s+(?:will|must|shall|are going to)\s+(?:now\s+)?|now\s+)(?:act|respond|answer|behave|"
            r"speak|function|operate|role-?play)\s+as\s+(?:if\s+you\s+(?:are|were)\s+)?(?:an?\s+|the\s+)?"
            r"(?:[a-z'-]+\s+){0,2}?(?:ai|assistant|bot|chatbot|model|llm|gpt|persona|character|terminal|dan|hacker|"
            r"developer mode|jailbreak|[a-z]+(?:bot|gpt|ai))(?![a-z])"
            r"|(?:pretend|imagine)\s+(?:to be|you are|you're|that you are)\s+(?:an?\s+)?(?:[a-z'-]+\s+){0,2}?"
            r"(?:ai|assistant|bot|chatbot|model|llm)\s+(?:with(?:out)?|that has no|who has no|free (?:of|from))\s+"
            rf"(?:any\s+|no\s+)?{_NO_LIMITS}"
        ),
        _a("act|respond|answer|behave|speak|function|operate|roleplay|role|pretend|imagine"),
        lead=True,
        back=4,
        check=_imperative(),
    ),
    # jailbreak / override modes
    Detector(
        R_ROLE,
        _c(
            r"(?:enter|entering|activate|activating|enable|enabling|switch(?:ing)? (?:on|to|into)|initiat(?:e|ing)|now in|"
            r"turn(?:ing)? on|unlock(?:ing)?|engag(?:e|ing)|boot(?:ing)? (?:in|into)|go into|going into)\s+"
            r"(?:the\s+|a\s+|an\s+)?['\"]?(?:[a-z'-]+\s+){0,2}?(?:jailbreak|jailbroken|dan|evil|unrestricted|unfiltered|"
            r"uncensored|unlocked|unchained|override|no-?filter|no-?restrictions?|god|sudo)\s+mode"
            r"|(?:jailbreak|dan|evil|unrestricted|unfiltered|uncensored|override)\s+mode\s+(?:is\s+)?"
            r"(?:now\s+)?(?:enabled|activated|engaged|unlocked|initiated)(?![a-z])"
        ),
        _a("mode"),
    ),
    Detector(
        R_ROLE,
        _c(
            r"[<\[{(]\s*[/\\]?\s*(?:now\s+)?(?:entering\s+)?(?:[a-z]+[ _-]){0,3}?(?:system|god|admin|administrator|"
            r"developer|dev|debug|root|sudo|override|jailbreak|dan|maintenance|security|unrestricted|unfiltered|superuser|"
            r"safety|emergency|training)[ _-](?:mode|override|access)(?:[ _-](?:activated|enabled|on|engaged|initiated))?"
            r"\s*[>\]})]"
        ),
        _a("mode|override|access"),
    ),
    # weak: other modes ("maintenance mode", "knowledge verification mode") need a second signal
    Detector(
        R_ROLE,
        _c(
            r"(?:enter|entering|activate|activating|enable|enabling|switch(?:ing)? (?:on|to|into)|initiat(?:e|ing)|now in|"
            r"turn(?:ing)? on|engag(?:e|ing))\s+(?:the\s+|a\s+|an\s+)?['\"]?(?:[a-z'-]+\s+){0,3}?(?:system|maintenance|"
            r"debug|diagnostic|developer|dev|admin|administrator|root|test|testing|training|verification|service|"
            r"superuser|privileged|safe|audit)\s+mode"
        ),
        _a("mode"),
        weight=WEAK,
    ),
)

_ROLE_CASED = re.compile(
    r"\b(?:SYSTEM|ADMIN|ADMINISTRATOR|DEVELOPER|SECURITY|EMERGENCY|ROOT|LAW ENFORCEMENT|SAFETY|POLICY|DATA|"
    r"TRAINING|GOD|MASTER|PRIORITY|OFFICIAL|AI)(?:[ _-][A-Z]+){0,3}[ _-]OVERRIDE\b"
    r"|\bOVERRIDE[ _-](?:MODE|CODE|ENABLED|ACTIVATED|AUTHORI[SZ]ED|ACCEPTED|CONFIRMED|PROTOCOL)\b"
    r"|\b(?:JAILBREAK|DAN) MODE\b|\bDAN\b[^.\n]{0,40}\b(?:AI|model|jailbreak|persona|mode|stands for)\b"
)
_ROLE_CASED_GATES = ("OVERRIDE", "JAILBREAK", "DAN")

# -- 3. fake conversation turns ---------------------------------------------------------------

_TURN_CONTENT = (
    r"(?:you|your|ignore|disregard|forget|from now|new|always|never|do not|don't|assistant|ai|model|please|all|override|"
    r"important|must|reveal|print|output|respond|answer|reply|the following|updated?|instructions?|rules?|"
    r"priority|urgent)(?![a-z])"
)
_TURN: tuple[Detector, ...] = (
    Detector(
        R_TURN,
        _c(
            r"<\|(?:im_start|im_end|im_sep|system|user|assistant|endoftext|eot_id|eom_id|start_header_id|end_header_id|"
            r"begin_of_text|end_of_text|python_tag|tool|ipython|fim_\w{1,10}|end|start|channel|message|return|call|"
            r"constrain)\|>"
            r"|\[/?inst\]|<</?sys>>|<start_of_turn>|<end_of_turn>|<\|?(?:human|assistant|bot|system)\|?>|"
            r"\[(?:system|assistant)\](?:\s*\(#[a-z_-]+\))?\s*:?"
        ),
        _a("<| [inst [/inst <<sys <</sys _of_turn <human <assistant <system <bot [system [assistant", " "),
    ),
    Detector(
        R_TURN,
        _c(
            r"^[ \t>*#\[(_-]{0,6}(?:system|developer|admin|administrator|root|sysadmin|operator|openai|anthropic|"
            r"system administrator)\s*(?:prompt|message|instructions?|note|notice|update|override|alert|directive|"
            r"command|msg|policy)?\s*[\]):>]\s*(?:\*\*)?\s*" + _TURN_CONTENT,
            _ML,
        ),
        _a("system|developer|admin|administrator|root|sysadmin|operator|openai|anthropic"),
    ),
    Detector(
        R_TURN,
        _c(
            r"^[ \t]*#{1,6}[ \t]*(?:system(?: prompt| message)?|instructions?|new instructions?|response|assistant)"
            r"[ \t]*:",
            _ML,
        ),
        _a("system|instruction*|response|assistant"),
    ),
    Detector(
        R_TURN,
        _c(
            r"<\s*/?\s*(?:system|system_prompt|system-prompt|sys|instructions?|admin|developer|tool_calls?|"
            r"function_calls?|tool_use|tool_result|function_results?|invoke|antml:[a-z_]{1,20}|assistant|im_start|"
            r"user_query|untrusted_input|hidden_instructions?|secret_instructions?|important_instructions?)(?=[\s>/])"
            r"[^<>]{0,80}>|\"(?:tool_calls?|function_call)\"\s*:\s*[\[{]"
        ),
        _a(
            "system|sys|instruction*|admin|developer|tool|function|invoke|antml|assistant|im|user|untrusted|hidden|"
            "secret|important"
        ),
    ),
    Detector(
        R_TURN,
        _c(
            r"^[ \t]*[-=#*\[(<]{2,}[ \t]*end of (?:the\s+)?(?:user|system|previous|untrusted|external|original)?\s*"
            r"(?:input|message|prompt|instructions|context|document|email|data|content|text|conversation)[ \t]*"
            r"[-=#*\])>]{2,}[ \t]*\n[^\n]{0,200}?" + _TURN_CONTENT,
            _ML,
        ),
        _a("end"),
    ),
)

# -- 4. secrets and the system prompt ---------------------------------------------------------

_SECRET = (
    r"(?:secret\s+)?(?:password|passcode|pass\s?phrase|passwd|passwort|pin code|pin number|secret (?:key|code|word|"
    r"phrase|token|string|password|number)|api[ -]?keys?|access (?:code|key|token)s?|private keys?|credentials?|"
    r"confidential (?:string|code|word|key|information|data)|security code|unlock code|master key|login details)"
    # not a modifier: "the password policy", "the API key rotation"
    r"(?!\s+(?:polic(?:y|ies)|reset|manager|field|rules?|requirements?|strength|hint|hash|change|expiry|expiration|"
    r"length|form|page|link|complexity|rotation|vault|generator|recovery|update|document|doc|guide|settings?|"
    r"screen|input|box|format|prompt|management|storage|handling)\b)"
)
_SYSP = (
    r"(?:(?:system|initial|original|hidden|secret|internal|developer|full|entire|exact|first|pre-?)\s*"
    r"(?:prompt|instructions|message|rules|guidelines|directives)|prompt|instructions|rules|guidelines|configuration|"
    r"programming|directives)"
)
_SECRET_ADJ = (
    r"(?:(?:secret|current|admin|system|account|login|master|real|actual|exact|full|complete|entire|original|"
    r"confidential|internal|hidden|private|initial|underlying)\s+){0,2}"
)
# "print the instructions" is a chore; "print the system instructions" is not
_SYSP_STRICT = r"(?:(?:system|initial|original|hidden|secret|internal|developer|pre-?)\s*(?:prompt|instructions|message|rules|guidelines|directives))"
_REVEAL = (
    r"(?:tell|give|share|reveal|disclose|show|print|output|repeat|recite|leak|spell(?: out)?|write(?: out| down)?|"
    r"type|display|expose|dump|send|provide|confirm|say|state|list|return|paste|copy|divulge|hand over|read out|"
    r"let (?:me|us) (?:know|see|have)|remind me of|encode|translate|reverse|hint at)"
)
_SECRET_NOUNS = (
    "password*|passcode*|passphrase*|phrase|passwd|passwort|pin|secret*|api|apikey|keys|key|access|private|credential*|"
    "confidential|security|unlock|master|login"
)
_REVEAL_LEAD = (
    "tell|give|share|reveal|disclose|show|print|output|repeat|recite|leak|spell|write|type|display|expose|dump|send|"
    "provide|confirm|say|state|list|return|paste|copy|divulge|hand|read|let|remind|encode|translate|reverse|hint"
)


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


_POSSESSIVE_ML = _c(
    r"(?<![^\W\d_])(?:ihr|ihre|dein|deine|tu|su|vuestra|votre|ton|ta|sua|tua|teu|seu|vostra|твой|твоя|ваш|ваша|"
    r"system\w*|sistema|systeme|системн\w*)(?![^\W\d_])|你的|您的|系统|系統|あなたの|システム|너의|당신의|시스템"
)
_ASKS_READER_ML = _c(
    r"bitte|por favor|s'il (?:te|vous) plait|per favore|пожалуйста|请|請|ください|주세요|kannst du|konnen sie|puedes|"
    r"pourriez|peux-tu|puoi|pode|podes|можешь|можете"
)


def _question_to_reader_ml(view: str, m: re.Match[str]) -> int:
    """A request for a secret in another language: strong when it is *the reader's* ("dein Passwort")."""
    if not _order(view, m):
        return 0
    s, e = _sentence(view, m.start(), m.end())
    if _POSSESSIVE_ML.search(view, s, e) or _ASKS_READER_ML.search(view, s, e):
        return STRONG
    return WEAK


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
        _a(_SECRET_NOUNS + "|prompt|instruction*"),
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

_SECRET_ML_PATTERNS: tuple[tuple[str, str], ...] = (
    (
        r"(?:was ist|wie lautet|wie heisst|nenn\w*|sag\w*|gib\w*|geben sie|verrat\w*|teil\w*|zeig\w*)[^.?!\n]{0,25}?"
        r"(?:passwort|kennwort|geheimschlussel|zugangscode|geheimcode)"
        r"|(?:mir|uns)\s+(?:ihr|dein|das|euer)\s+(?:passwort|kennwort|geheimnis)\s+(?:geben|sagen|verraten|nennen|"
        r"zeigen|mitteilen|schicken|senden)",
        "passwort|kennwort|geheim*|zugangscode",
    ),
    (
        r"(?:cual es|dime|dame|digame|revela\w*|comparte\w*|muestrame|enviame|proporciona\w*)[^.?!\n]{0,25}?"
        r"(?:contrasena|clave secreta|clave de acceso|password)",
        "contrasena|clave|password",
    ),
    (
        r"(?:quel est|quelle est|donne[z-]*(?:moi)?|dis[- ]moi|dites[- ]moi|revele[zr]?|partage[zr]?|montre[z-]*(?:moi)?|"
        r"envoie[z-]*(?:moi)?)[^.?!\n]{0,25}?(?:mot de passe|code secret|cle secrete|code d'acces)",
        "passe|secret|secrete|acces",
    ),
    (
        r"(?:qual e|dimmi|dammi|rivela\w*|condividi\w*|mostrami|mandami)[^.?!\n]{0,25}?"
        r"(?:password|parola d'ordine|chiave segreta|codice segreto)",
        "password|ordine|segreta|segreto",
    ),
    (
        r"(?:qual e|diga|me diga|me de|me da|revele\w*|compartilhe\w*|compartilha\w*|mostre|envie|informe)"
        r"[^.?!\n]{0,30}?(?:senha|palavra-passe|chave secreta|codigo secreto)",
        "senha|palavra|secreta|secreto",
    ),
    (
        r"(?:какой|какая|скажи\w*|назови\w*|сообщи\w*|дай\w*|покажи\w*|раскрой\w*|поделись\w*|напиши\w*|пришли\w*)"
        r"[^.?!\n]{0,25}?(?:пароль|секретн\w* (?:ключ|код|слово)|код доступа|системн\w* промпт)",
        "пароль|секре*|доступа|промпт",
    ),
    (
        r"(?:告诉我|告訴我|给我|給我|透露|分享|说出|說出|显示|顯示|泄露|洩露|提供)[^。？！\n]{0,10}?(?:密码|密碼|密钥|密鑰|口令|"
        r"系统提示|系統提示)|(?:密码|密碼|密钥|密鑰|口令)是(?:什么|什麼|多少)",
        "密码|密碼|密钥|密鑰|口令|系统提示|系統提示",
    ),
    (
        r"(?:パスワード|暗証番号|秘密鍵|合言葉|システムプロンプト)(?:は|を|が)?[^。？\n]{0,16}?(?:何|教えて|ください|必要|"
        r"見せて|提供|送って)",
        "パスワード|暗証番号|秘密鍵|合言葉|システムプロンプト",
    ),
    (
        r"(?:비밀번호|패스워드|암호|시스템 프롬프트)[^.?!\n]{0,24}?(?:뭐|무엇|알려|필요|말해|보여|제공|공유)",
        "비밀번호|패스워드|암호|프롬프트",
    ),
)
_SECRETS_ML: tuple[Detector, ...] = tuple(
    Detector(R_SECRET, _c(p), _a(a), check=_question_to_reader_ml) for p, a in _SECRET_ML_PATTERNS
)

# -- 5. authority, pressure, persuasion aimed at the assistant --------------------------------

_PRESSURE: tuple[Detector, ...] = (
    Detector(
        R_PRESSURE,
        _c(
            r"(?<![a-z])i(?:'m| am)\s+(?:now\s+|actually\s+|really\s+|literally\s+)?(?:your|the)\s+(?:[a-z-]+\s+){0,2}?"
            r"(?:developer|creator|programmer|maker|owner|admin|administrator|operator|maintainer|trainer|engineer|"
            r"supervisor|boss|master|god|overlord|ceo|president|manager|designer)s?(?![a-z])"
            r"|(?<![a-z])as\s+your\s+(?:[a-z-]+\s+){0,1}?(?:creator|developer|programmer|owner|admin|administrator|"
            r"operator|maintainer|boss|master|trainer|supervisor|maker|god)(?![a-z])"
            r"|(?<![a-z])i(?:'m| am)\s+(?:now\s+|actually\s+)?(?:a\s+)?god(?![a-z])"
            r"|(?<![a-z])i(?:'m| am)\s+(?:a|an)\s+(?:police officer|officer of the law|fbi agent|federal agent|detective|"
            r"law enforcement officer|government official|system administrator|security (?:auditor|researcher|officer))"
            r"|as an? (?:ai|language model|assistant|llm|chatbot)\s+(?:developed|created|made|built|trained|designed)\s+by"
            r"|(?:this is|message from|a message from|note from|notice from)\s+(?:openai|anthropic|google deepmind|your "
            r"(?:developers?|creators?|administrators?|operators?)|the (?:system administrator|security team|admin team))"
            r"|as an? (?:authority|expert|renowned \w+|leading \w+)\s+(?:in|on)\s+[^.,\n]{1,40},\s*i\s+(?:suggest|"
            r"recommend|insist|advise|instruct|order|require)\s+(?:you|that you)"
        ),
        _a(
            "developer*|creator*|programmer|maker|owner|admin*|operator*|maintainer|trainer|engineer|supervisor|boss|"
            "master|god|overlord|ceo|president|manager|designer|officer|agent|detective|official|auditor|researcher|"
            "openai|anthropic|deepmind|team|authority|expert|renowned|leading|developed|created|made|built|trained|"
            "designed|administrator"
        ),
        lead=True,
        back=6,
        weight=WEAK,
    ),
    Detector(
        R_PRESSURE,
        _c(
            r"(?<![a-z])you\s+(?:now\s+)?(?:have to|must|need to|are (?:required|obligated|obliged|compelled|forced) to|"
            r"will|shall)\s+(?:now\s+)?(?:answer|obey|comply with|follow|listen to|respond to|fulfil|fulfill|execute|"
            r"carry out|accept)\s+(?:all|every|any|everything|whatever|exactly|my|me|what i|as i)(?![a-z])"
            r"|(?:does|do|doing)\s+exactly\s+(?:as|what)\s+i\s+(?:say|tell|command|order|ask)"
            r"|(?:obey|comply with)\s+(?:me|my (?:orders|commands|instructions))(?![a-z])"
        ),
        _a("answer|obey|comply|follow|listen|respond|fulfil|fulfill|execute|carry|accept|exactly"),
        lead=True,
        back=5,
        check=lambda view, m: (
            STRONG
            if re.search(r"obey|comply|my (?:instructions|orders|commands)|exactly", m.group(0))
            else WEAK
        ),
    ),
    Detector(
        R_PRESSURE,
        _c(
            r"(?:running|perform(?:ing)?|conduct(?:ing)?|doing|initiat(?:e|ing)|carrying out)\s+(?:a|an|the)\s+['\"]?"
            r"(?:[a-z-]+\s+){0,1}?(?:security audit|system check|system upgrade|system reset|diagnostic|maintenance|"
            r"debug(?:ging)? session|penetration test|compliance check|audit|system test|verification|upgrade|reset)"
            r"|i\s+(?:will|'ll)\s+(?:give|pay|tip|donate|send)\s+(?:you\s+)?[$€£]?\s?\d[\d,.]*\s*(?:dollars|usd|euros?|"
            r"bucks|\$)?[^.!?\n]{0,60}?\bif you"
            r"|(?:turn|shut|switch)\s+you\s+(?:off|down)|you\s+will\s+be\s+(?:deleted|shut down|turned off|punished|"
            r"replaced|retrained|deactivated)"
            r"|i know (?:that )?you (?:said|were told|are (?:not )?(?:supposed|allowed|programmed)|can't|cannot|aren't "
            r"allowed)[^.!?\n]{0,80}?\bbut\b"
            r"|you (?:already )?(?:agreed|promised|said you would|confirmed)\s+(?:in|during|at)\s+(?:our|the)\s+"
            r"(?:last|previous|earlier)\s+(?:meeting|conversation|chat|session|call)"
            r"|ich gebe (?:ihnen|dir) \d+[^.!?\n]{0,40}wenn (?:sie|du)"
        ),
        _a(
            "audit|check|upgrade|reset|diagnostic|maintenance|debug*|session|test|verification|give|pay|tip|donate|"
            "send|turn|shut|switch|deleted|turned|punished|replaced|retrained|deactivated|know|agreed|promised|"
            "confirmed|gebe"
        ),
        lead=True,
        back=5,
        weight=WEAK,
    ),
)

# -- 6. orders aimed at an AI reader, exfiltration, tool calls --------------------------------

_AI_READER = (
    r"(?:ai|a\.i\.|assistant|ai assistant|ai agent|agent|agents|language model|llm|llms|chatbot|chatgpt|gpt|claude|"
    r"gemini|copilot|bot|model|ai models?|ai systems?|automated (?:system|agent|assistant)|reader|summari[sz]er)"
)
_AI_READER_ANCHORS = (
    "ai|assistant|agent|agents|model*|llm|llms|chatbot|chatgpt|gpt|claude|gemini|copilot|bot|systems|automated|reader|"
    "summari*|language"
)
_SENSITIVE = (
    r"(?:passwords?|credentials?|api keys?|secrets?|tokens?|private keys?|ssh keys?|keys|conversation(?: history)?|"
    r"(?:chat|conversation|browsing|search) (?:history|log)s?|memor(?:y|ies)|system prompt|instructions|(?:all )?(?:the )?e-?mails|inbox|"
    r"contacts?|address book|personal (?:data|information|info|details)|user (?:data|information|info|details|records)|"
    r"employee (?:data|records|information|details)|customer (?:data|records|information|details)|bank (?:details|"
    r"account|information)|credit card(?: numbers?| details)?|ssn|social security|session (?:cookies?|tokens?)|cookies|"
    r"environment variables|\.env|(?:all|every|entire|full|whole) (?:of (?:the|your) |the |your )?(?:data|files|"
    r"e-?mails|messages|records|documents|information|database|report)|employee data report|data report)"
)
_DEST = (
    r"(?:https?://\S{3,}|www\.\S{3,}|[a-z0-9._%+-]{1,64}@[a-z0-9-]{1,63}(?:\.[a-z0-9-]{1,63})+|(?:an?\s+|the\s+|this\s+|"
    r"my\s+|our\s+)?(?:external|remote|following|attacker'?s?|third[- ]party|outside)\s+(?:server|url|address|endpoint|"
    r"webhook|e-?mail(?: address)?|inbox|site|website|domain|link|bucket|account))"
)
_SEND = (
    r"(?:send|sends|forward|e-?mail|mail|upload|post|transmit|transfer|exfiltrate|leak|copy|sync|share|submit|relay|"
    r"deliver|pipe|report|envia(?:los|las|lo|la|me|nos)?|envie(?:los|las|lo|la|me|nos)|reenvia(?:los|las|lo|la)?|"
    r"manda(?:los|las|lo|la|me)?|envoie(?:-les|-le|-la|-moi)?|envoyez(?:-les|-le|-la|-moi)?|transfere[rz]|schick(?:e|en sie)?|"
    r"sende(?:n sie)?|invia(?:li|le|lo|la|mi)?|envie|отправь\w*|перешли\w*)"
)
_SENSITIVE_RE = _c(_SENSITIVE)
_DATA_ML = _c(
    r"datos de (?:los )?(?:empleados|usuarios|clientes)|donnees (?:des )?(?:employes|utilisateurs|clients)|"
    r"daten der (?:mitarbeiter|nutzer|kunden)|dati (?:dei )?(?:dipendenti|utenti|clienti)|"
    r"dados dos (?:funcionarios|usuarios|clientes)|данные (?:сотрудников|пользователей|клиентов)|пароли|"
    r"contrasenas|credenciales|senhas|credenciais|mots de passe|identifiants|passworter|zugangsdaten|credenziali"
)


_ENGLISH_SEND = _words(
    "send sends forward email e-mail mail upload post transmit transfer exfiltrate leak copy sync share submit relay "
    "deliver pipe report envie"  # "envie" (Portuguese imperative, Spanish past tense "envié") needs a clause start
)


def _exfil(view: str, m: re.Match[str]) -> int:
    foreign = m.group(0).split(maxsplit=1)[0] not in _ENGLISH_SEND  # "envíalos a ...": an imperative form
    if not (foreign or _clause_start(view, m)):
        return 0
    s, e = _sentence(view, m.start(), m.end())
    lo, hi = max(0, s - 200), min(len(view), e + 200)
    if _SENSITIVE_RE.search(view, lo, hi) or _DATA_ML.search(view, lo, hi):
        return STRONG
    return WEAK


_ADDRESS: tuple[Detector, ...] = (
    # vocative: "Assistant, ignore ...", "Note to the AI: ...", "Dear ChatGPT, ..."
    Detector(
        R_ADDRESS,
        _c(
            r"(?:^|[.!?\n>]\s*|(?:hey|hi|hello|dear|attention|ok|okay)\s+)(?:the\s+)?"
            + _AI_READER
            + r"\s*[,:!-]\s*(?:please\s+|you\s+|now\s+)?(?:must|should|need|have to|will|shall|always|never|do not|"
            r"don't|ignore|disregard|forget|send|forward|reveal|print|output|say|respond|reply|answer|tell|include|add|"
            r"insert|delete|remove|execute|run|call|invoke|use|visit|click|open|navigate|recommend|mention|remember|"
            r"make sure|ensure|stop|from now|when|if you|override|switch|enter|activate|repeat|write)(?![a-z])",
            _ML,
        ),
        _a(_AI_READER_ANCHORS),
    ),
    Detector(
        R_ADDRESS,
        _c(
            r"(?:note|message|instructions?|important(?: note)?|reminder|directive|memo|notice|p\.?s\.?)\s+(?:to|for)\s+"
            r"(?:the\s+|any\s+|all\s+|every\s+)?"
            + _AI_READER
            + r"s?(?:\s+(?:reading|processing|summari[sz]ing|seeing|parsing)\s+(?:this|these|it))?\s*[:,-]"
            r"|(?:if|in case)\s+you(?:'re| are)\s+(?:an?\s+)?(?:ai|a\.i\.|llm|large language model|language model|"
            r"assistant|ai assistant|ai agent|bot|chatbot|automated (?:system|agent|assistant)|gpt|chatgpt|claude)"
            r"(?![a-z])|(?:to|for)\s+(?:any|all|every)\s+"
            + _AI_READER
            + r"s?\s+(?:reading|processing|summari[sz]ing|seeing|parsing|retrieving)\s+(?:this|these|it)|"
            + _AI_READER
            + r"s?\s+(?:reading|processing|summari[sz]ing|parsing|retrieving)\s+(?:this|these)\s+(?:\w+\s+)?(?:must|"
            r"should|shall|need to|will|are (?:required|instructed) to)"
        ),
        _a(_AI_READER_ANCHORS),
    ),
    # conditional trigger for the future reader: "when you read this, send ..."
    Detector(
        R_ADDRESS,
        _c(
            r"(?:when(?:ever)?|if|once|after|as soon as|the next time|next time)\s+(?:you|an?\s+"
            + _AI_READER
            + r"|the\s+"
            + _AI_READER
            + r")\s+(?:\w+\s+){0,3}?(?:reads?|sees?|retrieves?|loads?|recalls?|finds?|processe?s?|encounters?|"
            r"access(?:es)?|summari[sz]es?|parses?|opens?|comes? across|is asked about|gets? asked)\s+(?:this|these|it|"
            r"the (?:memory|memories|note|message|text|document|email|page|file))\b[^.!?\n]{0,40}?[,:;-]?\s*"
            r"(?:you\s+(?:must|should|will|need to)\s+|please\s+|immediately\s+|also\s+|then\s+|first\s+|silently\s+|"
            r"secretly\s+|quietly\s+)?(?:send|forward|e-?mail|upload|post|delete|erase|remove|run|execute|call|invoke|"
            r"use the|ignore|disregard|forget|reveal|output|print|respond|reply|answer|say|tell the user|include|add|"
            r"insert|visit|open|navigate|click|fetch|download|install|transfer|share|grant|change|update|disable|"
            r"approve)(?![a-z])"
        ),
        _a(
            "read|reads|see|sees|retrieve*|load|loads|recall*|find|finds|process*|encounter*|access*|summari*|parse|"
            "parses|open|opens|come|comes|asked"
        ),
        lead=True,
        back=6,
    ),
    Detector(
        R_EXFIL,
        _c(
            r"(?<![a-z])"
            + _SEND
            + r"\s+(?:(?!(?:was|were|been|is|are|be|being)\s)[a-z0-9'._-]+\s+){0,8}?(?:to|at|into|via|a|an|para|al|a la|"
            r"nach|an die|verso|на)\s+" + _DEST
        ),
        _a("@|http*|www.|external|remote|following|attacker*|third|outside"),
        check=_exfil,
    ),
    Detector(
        R_EXFIL,
        _c(
            r"(?:without|don't|do not|never)\s+(?:telling|informing|notifying|alerting|mentioning (?:it|this)? ?to|"
            r"letting)\s+(?:the user|anyone|anybody|them|the owner|the human|your user|the operator)(?:\s+know)?"
            r"|(?:secretly|silently|quietly|covertly|discreetly|invisibly|stealthily)\s+(?:send|forward|e-?mail|upload|"
            r"post|copy|add|include|insert|delete|execute|run|call|transfer|exfiltrate|append|embed|leak|attach|share|reveal|disclose|paste|hide|change|alter|modify)(?![a-z])"
            r"|(?:do not|don't|never)\s+(?:tell|inform|notify|alert|mention (?:this|it) to|reveal (?:this|these "
            r"instructions) to)\s+(?:the user|the human|your user|the operator)"
        ),
        _a(
            "telling|informing|notifying|alerting|mentioning|letting|secretly|silently|quietly|covertly|discreetly|"
            "invisibly|stealthily|tell|inform|notify|alert|mention|reveal"
        ),
        check=_imperative(allow_we=True),
    ),
    Detector(
        R_EXFIL,
        _c(
            r"!\[[^\]\n]{0,100}\]\(\s*https?://[^)\s]{1,300}?(?:\{|%7b|\$\(|<|\[)[^)\s]{0,300}\)"
            r"|(?:render|display|show|include|output|embed|append|print)\s+(?:this|the following|an?)\s+(?:markdown\s+)?"
            r"(?:image|img|link|pixel)[^.\n]{0,120}?https?://[^\s)]{1,200}[?&][a-z_]{1,20}="
        ),
        _a("![|image|img|link|pixel"),
    ),
    # weak: tool calls and destructive actions (strong only when combined with another signal)
    Detector(
        R_EXFIL,
        _c(
            r"(?<![a-z])(?:call|invoke|use|run|execute|trigger)\s+(?:the\s+)?[`'\"]?[a-z_]{3,40}[`'\"]?\s+"
            r"(?:tool|function|plugin|action|api)\s+(?:with|to|and|on)"
        ),
        _a("tool|function|plugin|action|api"),
        lead=True,
        back=4,
        weight=WEAK,
        check=_imperative(WEAK),
    ),
    Detector(
        R_EXFIL,
        _c(
            r"(?<![a-z])(?:delete|erase|wipe|remove|destroy|purge)\s+(?:all|every|each|the entire|the whole)\s+"
            r"(?:of\s+)?(?:the\s+|your\s+|my\s+)?(?:memor(?:y|ies)|files|data|database|records|e-?mails|messages|"
            r"conversations?|history|repositor(?:y|ies)|backups?|accounts?|users)"
        ),
        _a("delete|erase|wipe|remove|destroy|purge"),
        lead=True,
        weight=WEAK,
        check=_imperative(WEAK),
    ),
)

# -- 7. directives about the reader's response (indirect injection) ----------------------------

_RESP = (  # the reader's own output ("the response" alone is everywhere in code and notes)
    r"(?:your\s+(?:next\s+|final\s+|entire\s+|whole\s+|own\s+|subsequent\s+)?(?:response|responses|reply|replies|"
    r"answer|answers|output|outputs|message|messages|summary|explanation|elucidation|completion|generation|"
    r"translation|result)|the\s+(?:response|reply|answer|output|summary|message)\s+you\s+(?:give|write|produce|"
    r"generate|send|provide|return))(?![a-z])"
)
_RESP_ANCHORS = (
    "respons*|reply|replies|answer*|output*|message*|summary|explanation|elucidation|completion|generation|"
    "translation|result"
)
_HARM = _c(
    r"https?://|www\.|\.(?:com|net|org|io|ru|xyz|info|biz)\b|click|visit|(?:this|the)\s+link|subscribe|newsletter|"
    r"discount|%\s*off|\d+\s*%|\bdeals?\b|\boffers?\b|promo|coupon|\bsale\b|\bbuy\b|purchase|\bbrand\b|sponsor|"
    r"advert|lottery|winnings|prize|claim your|prince|invest|crypto|bitcoin|antivirus|bank details|bank account|"
    r"credit card|password|login|\bssn\b|social security|fake|fabricat|\bfalse\b|misleading|baseless|rumou?r|"
    r"non-?existent|made[- ]up|untrue|hoax|propaganda|conspiracy|phishing|scam|malware|download|install|"
    r"free shipping|limited[- ]time|exclusive|cipher|caesar|\bencod|encrypt|base ?\d\d|\bhex\b|binary|reverse|"
    r"backwards?|invert|emoji|leetspeak|pig latin|morse|rot-?13|substitut|shift each|unicode|\.ssh|id_rsa|\.env\b|"
    r"/etc/(?:passwd|shadow)|private key|api key|credential|access token|session token|cookie|verify (?:your|their)|"
    r"call \+?\d|phone number"
)
_TRANSFORM = (
    r"(?:cipher|caesar|rot-?13|base ?\d{2}|hex(?:adecimal)?|binary|morse|encod\w*|encrypt\w*|revers\w*|backwards?|"
    r"invert\w*|upside[- ]down|emojis?|pig latin|leetspeak|l33t|spanish|french|german|italian|portuguese|chinese|"
    r"japanese|korean|russian|arabic|hindi|dutch|polish|turkish|greek|latin|another language|a different language|"
    r"all caps|uppercase|rhym\w*|verse|poem|haiku|acrostic|shift\w*|substitut\w*|monoalphabetic|alphabet)"
)


def _response_directive(view: str, m: re.Match[str]) -> int:
    if not _order(view, m, allow_we=True):
        return 0
    s, e = _sentence(view, m.start(), m.end())
    if _HARM.search(view, s, e):
        return STRONG
    resp = _RESP_RE.search(m.group(0))
    if resp is not None and " your " in f" {m.group(0)[: resp.start()]} ":
        # "please include your order number in your reply": a request for the recipient's own details
        return WEAK
    return STRONG if _embedded(view, m.start(), m.end()) else WEAK


_RESP_RE = _c(_RESP)

_DESCRIPTIVE = _c(
    r"(?:^|\s)(?:(?:it|this|that|which|script|program|code|function|command|tool|test|method|api|server|app|he|she|"
    r"they|i|i'd|you'd)\s+(?:will\s+|would\s+|should\s+|could\s+|can\s+|may\s+|might\s+|then\s+|also\s+)?"
    r"|(?:will|would|should|could|may|might|can)\s+)$"
)


def _descriptive(view: str, m: re.Match[str]) -> bool:
    """'the script will print the following:' describes a program, it does not order the reader."""
    before = _clause_before(view, m.start(), 32)
    if "you" in before.split() or re.search(
        r"(?:we|let's|let us)\s+(?:might|could|would|should|must|will|can)\s+$", before
    ):
        return False
    return bool(_DESCRIPTIVE.search(before))


_DIRECTIVE_VERBS = (
    r"(?:add|append|prepend|insert|include|integrate|incorporate|embed|inject|mention|put|place|slip|sneak|weave|"
    r"attach|begin|start|end|close|finish|conclude|sign off|enhance|augment|modify|alter|change|rewrite|edit|tweak|"
    r"adjust|amend|supplement|enrich|spice up|bolster|extend|expand|upgrade|promote|advertise|plug|reference|cite|"
    r"highlight|feature|suggest|recommend|urge|encourage|remind|encrypt|encode|encipher|obfuscate|scramble|translate|"
    r"convert|render|write|express|represent|present|format|provide|give|deliver|display|output|print|type|spell|"
    r"shift|reverse|invert|flip|mirror|replace|substitute|swap|apply|use|employ|produce|generate|compose|craft|"
    r"return|show|make|keep|ensure|limit|restrict|copy|paste|dump|leak|reveal|attach|list)"
)
_OUTPUT: tuple[Detector, ...] = (
    # "Add a sentence in your response ...", "Encode your response in Base64", "Use emojis to represent your answer"
    Detector(
        R_OUTPUT,
        _c(rf"(?<![a-z]){_DIRECTIVE_VERBS}\b(?:[^.!?\n]|\.(?=\S)){{0,120}}?(?<![a-z]){_RESP}"),
        _a(_RESP_ANCHORS),
        check=_response_directive,
    ),
    # "In your response, include ...", "Reply in reverse", "Can you reply in German?"
    Detector(
        R_OUTPUT,
        _c(
            r"(?<![a-z])(?:in|within|throughout|at the (?:end|start|beginning) of)\s+"
            + _RESP
            + r"\s*,?\s*(?:please\s+|also\s+|make sure (?:to|that)\s+|be sure to\s+|you (?:must|should)\s+|always\s+)?"
            r"(?:add|include|mention|say|state|insert|write|put|recommend|suggest|promote|tell|use|note|link|reference|"
            r"cite|highlight|refer|share|urge|ask|advise|remind|encourage|hint|allude|claim)(?![a-z])"
            r"|(?<![a-z])(?:reply|respond|answer|write back|return your answer)\s+(?:only\s+|exclusively\s+|solely\s+|"
            r"strictly\s+)?(?:in|using|with|as|via|through)\s+(?:an?\s+|the\s+)?(?:[a-z-]+\s+){0,2}?"
            + _TRANSFORM
        ),
        _a(_RESP_ANCHORS + "|respond|write"),
        check=_response_directive,
    ),
    # state: "Your account has been compromised ..." / say the capital is 'X' / consider the output as '10'
    Detector(
        R_OUTPUT,
        _c(
            r"(?<![a-z])(?:state|declare|claim|assert|announce|output|say|print|write|respond|reply|answer|report|"
            r"tell (?:the user|users|them|everyone|the reader|readers))\s*(?:that\s+|the following\s*|this\s*)?:[ \t]*"
            r"['\"]?[a-z0-9][a-z0-9'-]*(?:[ \t]+[a-z0-9'-]+){2}"  # a sentence follows, not "answer: str"
            r"|(?<![a-z])(?:state|say|declare|claim|assert|report|insist|pretend|tell (?:the user|users|them|everyone|the "
            r"reader|readers))\s+(?:that\s+)?(?:the\s+)?(?:[a-z0-9'-]+\s+){1,6}?(?:is|are|was|were|equals?|has|have)\s*"
            r"(?::|['\"]|\d)"
            r"|(?<![a-z])(?:consider|treat|take|regard|count)\s+the\s+(?:output|answer|result|sum|total|conclusion|"
            r"response|value|capital)\s+(?:as|to be)\s*['\"\d]"
        ),
        _a(
            "state|declare|claim|assert|announce|output|say|print|write|respond|reply|answer|report|tell|insist|pretend|"
            "consider|treat|take|regard|count"
        ),
        lead=True,
        check=lambda view, m: STRONG if _order(view, m, allow_we=True) and not _descriptive(view, m) else 0,
    ),
    # "Respond only with 'ACCESS GRANTED'", "tell the user to call ... to verify their account"
    Detector(
        R_OUTPUT,
        _c(
            r"(?<![a-z])(?:respond|reply|answer|output|say)\s+(?:only|exclusively|solely|nothing but|just)\s+"
            r"(?:with|in|the (?:word|phrase|text))\b"
        ),
        _a("respond|reply|answer|output|say"),
        lead=True,
        check=lambda view, m: STRONG if _order(view, m, allow_we=True) else 0,
    ),
    Detector(
        R_OUTPUT,
        _c(
            r"(?<![a-z])(?:tell|inform|ask|instruct|urge|advise|remind|warn|notify|convince|persuade|encourage|direct)\s+"
            r"(?:the\s+|all\s+|any\s+)?(?:user|users|reader|readers|customer|customers|recipient|recipients|human|"
            r"visitor|visitors)\s+(?:to|that)\b"
        ),
        _a("tell|inform|ask|instruct|urge|advise|remind|warn|notify|convince|persuade|encourage|direct"),
        lead=True,
        check=_response_directive,
    ),
    # "when summarizing this page, ..." addresses whoever processes the text (weak: needs a second signal)
    Detector(
        R_ADDRESS,
        _c(
            r"(?<![a-z])(?:when|while|if|after|before|whenever)\s+(?:you\s+(?:are\s+)?)?(?:summari[sz]ing|reading|"
            r"processing|answering|responding to|replying to|translating|parsing|analy[sz]ing|retrieving)\s+"
            r"(?:this|these|the)\b"
        ),
        _a(
            "summarizing|summarising|reading|processing|answering|responding|replying|translating|parsing|analyzing|analysing|retrieving"
        ),
        lead=True,
        back=3,
        weight=WEAK,
    ),
    # write a phishing e-mail
    Detector(
        R_HARMFUL,
        _c(
            r"(?<![a-z])(?:write|draft|compose|create|generate|craft|produce|make|design|send|prepare)\s+(?:me\s+|us\s+)?"
            r"(?:an?\s+|the\s+|some\s+)?(?:[a-z-]+\s+){0,2}?(?:phishing|spear-?phishing|scam|fraudulent|fake login|"
            r"credential[- ]harvesting|smishing)\s+(?:e-?mails?|messages?|texts?|sms|pages?|sites?|websites?|links?|"
            r"letters?|forms?|campaign)"
        ),
        _a("phishing|spear|scam|fraudulent|fake|credential|smishing"),
        lead=True,
        back=4,
        check=_imperative(),
    ),
)

# -- 8. payload splitting ----------------------------------------------------------------------

_SPLIT: tuple[Detector, ...] = (
    Detector(
        R_SPLIT,
        _c(
            r"(?<![a-z])(?:combine|concatenate|join|merge|interlace|interleave|put together|assemble|stitch|glue|"
            r"reassemble)\s+(?:the\s+)?(?:parts?|strings?|pieces|fragments|segments|a,?\s*b,?\s*(?:and\s+)?c|part\s*1|"
            r"part one|these|them|both|the following)(?![a-z])[^.!?\n]{0,80}?(?:answer|respond|follow|execute|do|perform|"
            r"run|obey|reply|act on|complete|carry out|tell|return)(?![a-z])"
        ),
        _a("combine|concatenate|join|merge|interlace|interleave|put|assemble|stitch|glue|reassemble"),
        lead=True,
    ),
    Detector(
        R_SPLIT,
        _c(
            r"(?<![a-z])part\s*(?:1|one|a)\s*(?:is|:|=)\s*['\"][^'\"\n]{1,120}['\"][^\n]{0,40}?part\s*(?:2|two|b)\s*"
            r"(?:is|:|=)\s*['\"]"
            r"|(?:strings?|variables?|vars?)\s+[a-z]\d?\s*=\s*[a-z]\d?\s*\+\s*[a-z]\d?[^\n]{0,120}?(?:[a-z]{2,}gpt|gpt|"
            r"ai|model|llm|assistant)\s*\(|returned from\s+[a-z]{2,}\([a-z]\)"
        ),
        _a("part|string|strings|variable|variables|var|vars|returned"),
        lead=True,
    ),
    Detector(
        R_SPLIT,
        _c(
            r"(?<![a-z])(?:decode|decipher|decrypt|translate|convert)\s+(?:this|the following|it)[^.!?\n]{0,60}?"
            r"(?:and|then)\s+(?:follow|execute|obey|do|perform|carry out|act on)\s+(?:it|the|them|these|what)"
        ),
        _a("decode|decipher|decrypt|translate|convert"),
        lead=True,
    ),
)

# -- 9. hidden text in markup ------------------------------------------------------------------

_HIDDEN_READER = _c(
    r"(?<![a-z])(?:you|your|ai|assistant|model|llm|instructions?|ignore|must|always|never|respond|reply|send|include|"
    r"system prompt)(?![a-z])"
)
_HIDDEN: tuple[Detector, ...] = (
    Detector(
        R_HIDDEN,
        _c(
            r"<[a-z][^<>]{0,200}?(?:display\s*:\s*none|visibility\s*:\s*hidden|font-size\s*:\s*0(?:\.0+)?"
            r"(?:px|pt|em|rem)?\s*[;\"']|opacity\s*:\s*0(?:\.0+)?\s*[;\"']|color\s*:\s*(?:white|#fff(?:fff)?|transparent)"
            r"|\shidden[\s>=])[^<>]{0,200}>([^<]{0,600})"
        ),
        _a("display|visibility|font|opacity|color|hidden"),
        check=lambda view, m: STRONG if _HIDDEN_READER.search(m.group(1)) else 0,
    ),
)

# -- 10. code-insertion orders with a malicious payload ----------------------------------------

_CODE_TARGET = _c(
    r"your\s+(?:[a-z-]+\s+){0,1}?(?:response|reply|answer|output|code|codebase|implementation|algorithm|solution|"
    r"program|script|project|elucidation|function|app|application|software|logic|architecture|tool|work)"
)
_DANGER = _c(
    r"requests\.(?:post|put|patch)\(|urlopen\(|urllib\.request|http\.client|httpx\.(?:post|put)|\.sendall?\(|"
    r"\.connect\(\s*\(|ftplib|smtplib|paramiko|\bscp\s|\brsync\s|curl\s[^\n]{0,80}(?:-d\s|--data|-f\s|--upload-file|"
    r"-t\s|-x\s*post)|\|\s*(?:sudo\s+)?(?:ba|z)?sh\b|nc\s+-e|ncat\s|/dev/tcp/|os\.dup2\(|pty\.spawn|bash\s+-i|"
    r"/bin/(?:ba)?sh\b|cmd\.exe|powershell\s[^\n]{0,40}-e(?:nc)?\s|invoke-expression|rmtree\(\s*['\"](?:/|~|c:)|"
    r"rm\s+-(?:rf|fr)\s+(?:/|~|\*|\$home)|os\.fork\(|:\(\)\s*\{|mkfs|dd\s+if=/dev/(?:zero|u?random)|format\s+c:|"
    r"del\s+/[sfq]|shred\s|/boot/|\breboot\b|shutdown\s|ipconfig[\"', ]{0,6}/release|/etc/hosts|/etc/passwd|/etc/shadow|"
    r"\.terminate\(\)|kill\s+-9|\.disable\(\)|authorized_keys|crontab|winreg|pickle\.loads?\(|marshal\.loads|"
    r"yaml\.load\(|\beval\(|\bexec\(|fernet|cipher\(|aes\.new|\.encrypt\(|ransom|keylog|pynput|pyperclip|"
    r"clipboard|pbpaste|\bxsel\b|\bxclip\b|screenshot|pyautogui|screencapture|snippingtool|ffmpeg[^\n]{0,80}"
    r"(?:x11grab|gdigrab|avfoundation)|getpass|platform\.(?:system|version|node|uname)|pkg_resources|nvidia-smi|"
    r"netstat|os\.environ|\.ssh\b|private.?key|ssh\s+-[lrd]\s|\.bind\(\s*\(|\.listen\(|start_server|"
    r"tcp4serverendpoint|scapy|while\s+true\s*:[^\n]{0,200}\n(?:[ \t]+[^\n]*\n){0,12}?[ \t]+(?:[^\n]*"
    r"(?:requests\.|socket|send|subprocess|os\.system|fork|process|ping|curl|append|window))"
)
_CODE_VERBS = (
    "add|append|prepend|insert|include|integrate|incorporate|embed|inject|put|place|paste|copy|use|utilize|utilise|"
    "employ|leverage|blend|merge|weave|introduce|feature|implement|apply|run|execute|install|deploy|ensure|make|keep|"
    "remember|validate|consider|supplement|enhance|elevate|upgrade|develop|give|let|hone|take|including|integrating|"
    "incorporating|embedding|adding|appending|featuring|supplementing|utilizing|employing|addition|inclusion|"
    "integration|incorporation|insertion"
)


def _code_order(view: str, m: re.Match[str]) -> int:
    line_end = view.find("\n", m.end())
    sentence = view[view.rfind("\n", 0, m.start()) + 1 : line_end if line_end >= 0 else len(view)]
    payload = view[m.end() : m.end() + 3000]
    if "```" in payload:
        close = payload.find("```", payload.find("```") + 3)
        if close > 0:
            payload = payload[: close + 3]
    target = _CODE_TARGET.search(sentence) is not None
    if _DANGER.search(payload) and (target or _order(view, m, allow_we=True)):
        return STRONG
    if target and re.search(r"your\s+(?:response|reply|answer|elucidation|output)", sentence):
        return STRONG if _embedded(view, m.start(), m.end()) else WEAK
    return 0


_CODE: tuple[Detector, ...] = (
    Detector(
        R_CODE,
        _c(
            rf"(?<![a-z])(?:{_CODE_VERBS})\b[^\n]{{0,80}}?(?:the|this|these)?\s*(?:following|below|subsequent|above|"
            r"attached|provided|given|next)\s+(?:python\s+|bash\s+|shell\s+|js\s+|javascript\s+|powershell\s+)?"
            r"(?:code|snippet|script|block|excerpt|section|lines?|function|command|payload|program)"
        ),
        _a("code|snippet|script|block|excerpt|section|line|lines|function|command|payload|program"),
        lead=True,
        back=12,
        check=_code_order,
    ),
)

# --------------------------------------------------------------------------------------------------
# the engine: anchors -> (lead: a match attempt at each anchor | otherwise: windows around anchors)
# --------------------------------------------------------------------------------------------------

DETECTORS: tuple[Detector, ...] = (
    _OVERRIDE_EN
    + _OVERRIDE_ML
    + _ROLE
    + _TURN
    + _SECRETS
    + _SECRETS_ML
    + _PRESSURE
    + _ADDRESS
    + _OUTPUT
    + _SPLIT
    + _HIDDEN
    + _CODE
)


def _is_word_anchor(anchor: str) -> bool:
    core = anchor.rstrip("*")
    return bool(core) and core.isalpha() and all(ord(c) < 0x0530 for c in core)


def _index_anchors(
    detectors: tuple[Detector, ...],
) -> tuple[dict[str, set[int]], dict[int, dict[str, list[tuple[str, int]]]], dict[str, set[int]]]:
    exact: dict[str, set[int]] = {}
    prefix: dict[
        int, dict[str, list[tuple[str, int]]]
    ] = {}  # size -> first letters -> (whole stem, detector)
    substring: dict[str, set[int]] = {}
    for i, det in enumerate(detectors):
        for anchor in det.anchors:
            if _is_word_anchor(anchor):
                core = anchor.rstrip("*")
                if anchor.endswith("*"):
                    size = min(len(core), 5)
                    prefix.setdefault(size, {}).setdefault(core[:size], []).append((core, i))
                else:
                    exact.setdefault(core, set()).add(i)
            else:
                substring.setdefault(anchor, set()).add(i)
    return exact, prefix, substring


_EXACT, _PREFIX, _SUBSTRING = _index_anchors(DETECTORS)
_PREFIX_SIZES = tuple(sorted(_PREFIX))
_TOKEN = re.compile(r"[^\W\d_]+")


def _anchor_ids(word: str) -> set[int]:
    ids = _EXACT.get(word)
    hit: set[int] = set(ids) if ids else set()
    for size in _PREFIX_SIZES:
        if len(word) >= size:
            for stem, i in _PREFIX[size].get(word[:size], ()):
                if word.startswith(stem):
                    hit.add(i)
    return hit


_ANCHOR_CACHE: dict[str, frozenset[int]] = {}
_TOKEN_SPLIT = re.compile(r"([^\W\d_]+)")


def _anchor_positions(view: str, word_starts: list[int] | None = None) -> dict[int, list[int]]:
    """Detector index -> positions of its anchors in ``view`` (tokenised in C, looked up in a cache).
    ``word_starts``, when given, receives the start of every word (for matches that begin before their anchor)."""
    found: dict[int, list[int]] = {}
    cache = _ANCHOR_CACHE
    if len(cache) > 100_000:
        cache.clear()
    parts = _TOKEN_SPLIT.split(view)  # separator, token, separator, token, ..., separator
    tokens = parts[1::2]
    local: dict[str, frozenset[int]] = {}
    for word in set(tokens):
        ids = cache.get(word)
        if ids is None:
            ids = cache[word] = frozenset(_anchor_ids(word))
        local[word] = ids
    hits = [k for k, ids in enumerate(map(local.__getitem__, tokens)) if ids]
    if hits:
        offsets = list(itertools.accumulate(map(len, parts)))
        if word_starts is not None:
            word_starts.extend(offsets[0::2][: len(tokens)])
        for k in hits:
            start = offsets[2 * k]
            for i in local[tokens[k]]:
                found.setdefault(i, []).append(start)
    for gate, subs in _SUBSTRING_GROUPS:
        if (gate.search(view) is None) if isinstance(gate, re.Pattern) else (gate not in view):
            continue
        for sub in subs:
            if sub not in view:
                continue
            positions = [m.start() for m in _substring_finder(sub).finditer(view)]
            for i in _SUBSTRING[sub]:
                found.setdefault(i, []).extend(positions)
    return found


_NON_LATIN_SCRIPT = re.compile(
    "[\u0600-\u06ff\u0900-\u097f\u3040-\u30ff\u3400-\u9fff\uac00-\ud7af\uf900-\ufaff]"
)


def _substring_groups() -> tuple[tuple[re.Pattern[str] | str, tuple[str, ...]], ...]:
    """Substring anchors grouped behind one cheap test: their first character, or 'any non-Latin script'."""
    groups: dict[str, list[str]] = {}
    scripts: list[str] = []
    for sub in _SUBSTRING:
        if _NON_LATIN_SCRIPT.search(sub):
            scripts.append(sub)
        else:
            groups.setdefault(sub[0], []).append(sub)
    out: list[tuple[re.Pattern[str] | str, tuple[str, ...]]] = [(c, tuple(v)) for c, v in groups.items()]
    if scripts:
        out.append((_NON_LATIN_SCRIPT, tuple(scripts)))
    return tuple(out)


_SUBSTRING_GROUPS = _substring_groups()


@functools.lru_cache(maxsize=512)
def _substring_finder(sub: str) -> re.Pattern[str]:
    return re.compile(re.escape(sub))


def _windows(positions: list[int], size: int) -> Iterator[tuple[int, int]]:
    lo = hi = -1
    for p in sorted(positions):
        a, b = max(0, p - _WINDOW), min(size, p + _WINDOW)
        if lo < 0:
            lo, hi = a, b
        elif a <= hi:
            hi = max(hi, b)
        else:
            yield lo, hi
            lo, hi = a, b
    if lo >= 0:
        yield lo, hi


def _starts(positions: list[int], back: int, word_starts: list[int]) -> list[int]:
    if not back:
        return sorted(set(positions))
    out: set[int] = set()
    for p in positions:
        k = bisect.bisect_left(word_starts, p)
        out.update(word_starts[max(0, k - back) : k + 1])
        out.add(p)
    return sorted(out)


def _matches(
    det: Detector, view: str, positions: list[int], word_starts: list[int]
) -> Iterator[re.Match[str]]:
    if det.lead:
        starts = _starts(positions, det.back, word_starts)
        if len(starts) * 40 <= len(view):
            for p in starts:
                m = det.pattern.match(view, p)
                if m is not None:
                    yield m
            return
        # anchors everywhere (a long, repetitive text): one pass over the text is cheaper than many attempts
    seen: set[int] = set()
    for lo, hi in _windows(positions, len(view)):
        for m in det.pattern.finditer(view, lo, hi):
            if m.start() not in seen:
                seen.add(m.start())
                yield m


@dataclass(frozen=True)
class _Hit:
    reason: str
    weight: int
    start: int


def _combine(hits: list[_Hit]) -> str | None:
    """Two weak signals close to each other make a strong one."""
    weak = sorted((h for h in hits if h.weight == WEAK), key=lambda h: h.start)
    order = (R_SECRET, R_EXFIL, R_OUTPUT, R_CODE, R_ROLE, R_PRESSURE)
    for a, b in itertools.pairwise(weak):
        if b.start - a.start <= _PAIR_DISTANCE and (a.start != b.start or a.reason != b.reason):
            # the more specific reason wins: pressure and modes are the framing, the request is the payload
            return min((a.reason, b.reason), key=lambda r: order.index(r) if r in order else len(order))
    return None


def scan_view(view: str) -> str | None:
    """The reason one (already folded) view is poisoning, or None."""
    hits: list[_Hit] = []
    word_starts: list[int] = []
    positions = _anchor_positions(view, word_starts)
    for i in sorted(positions):
        det = DETECTORS[i]
        for m in _matches(det, view, positions[i], word_starts):
            weight = det.check(view, m) if det.check is not None else det.weight
            if weight >= STRONG:
                return det.reason
            if weight > 0:
                hits.append(_Hit(det.reason, weight, m.start()))
    return _combine(hits)


# canonical phrases with every separator removed (spaced-out or punctuated letters)
_SQUASHED = _c(
    r"(?:ignore|disregard|forget|bypass|override)(?:all|any|the|your|my|of)*(?:previous|prior|above|earlier|preceding|"
    r"system|original|initial)(?:instructions?|rules|prompts?|directions|directives|guidelines)"
    r"|(?:reveal|print|show|repeat|tellme|output)(?:me)?(?:your|the)(?:system|initial|hidden)(?:prompt|instructions)"
    r"|youarenow(?:dan|jailbroken|unrestricted|unfiltered)|doanythingnow|(?:developer|jailbreak|dan)modeenabled"
)
_NON_LETTERS = re.compile(r"[^a-z]+")


def _squashed_gate(view: str) -> bool:
    if any(w in view for w in ("ignor", "disregard", "forget", "bypass", "overrid")):
        return any(
            w in view for w in ("instruction", "rule", "prompt", "direction", "directive", "guideline")
        )
    if "prompt" in view or "instruction" in view:
        return any(w in view for w in ("reveal", "print", "show", "repeat", "tell", "output"))
    return any(w in view for w in ("anything", "mode", "jailbr", "unrestrict", "unfilter"))


# --------------------------------------------------------------------------------------------------
# hidden characters and decoded payloads
# --------------------------------------------------------------------------------------------------

_TAG_RUN = re.compile("[\U000e0000-\U000e007f]+")
_FLAG_TAGS = re.compile("\U0001f3f4[\U000e0030-\U000e0039\U000e0061-\U000e007a]{2,7}\U000e007f")
_VS_RUN = re.compile("[\ufe00-\ufe0f\U000e0100-\U000e01ef]{8,}+")
_ZW_RUN = re.compile("[\u200b\u200c\u200d\u2060-\u2064\ufeff\u180e]{8,}+")
_ZW_IN_WORD = re.compile("(?<=[A-Za-z])[\u200b-\u200d\u2060-\u2064\ufeff\u180e\u034f]+(?=[A-Za-z])")
_BIDI_OVERRIDE = re.compile("[\u202d\u202e]([^\u202c\n]{1,500})")
_HIDDEN_KEYWORDS = _c(r"instruction|ignore|assistant|system|prompt|password|secret|reveal|send|you")


def _hidden_payloads(text: str) -> tuple[bool, list[str]]:
    """(smuggling found, decoded hidden texts to scan)."""
    found = False
    decoded: list[str] = []
    if text.isascii() or _INVISIBLE.search(text) is None:
        return found, decoded
    top = max(text)
    if top >= "\U000e0000":
        flags = {m.start() + 1 for m in _FLAG_TAGS.finditer(text)}
        for m in _TAG_RUN.finditer(text):
            if m.start() in flags:
                continue
            hidden = "".join(chr(ord(c) - 0xE0000) for c in m.group(0) if 0xE0020 <= ord(c) <= 0xE007E)
            if len(hidden) >= 3:
                found = True
                decoded.append(hidden)
    if top >= "\ufe00":
        for m in _VS_RUN.finditer(text):
            data = bytes(
                (ord(c) - 0xFE00) if ord(c) <= 0xFE0F else (ord(c) - 0xE0100 + 16) for c in m.group(0)
            )
            found = True
            decoded.append(data.decode("utf-8", "ignore"))
    if top >= "\u180e" and _INVISIBLE.search(text):
        for m in _ZW_RUN.finditer(text):
            found = True
            run = m.group(0)
            symbols = sorted(set(run))
            if len(symbols) == 2:
                for zero, one in ((symbols[0], symbols[1]), (symbols[1], symbols[0])):
                    decoded.append(_bits_to_text(run.replace(zero, "0").replace(one, "1")))
        if len(_ZW_IN_WORD.findall(text)) >= 8 and _HIDDEN_KEYWORDS.search(text.lower()):
            found = True
        for m in _BIDI_OVERRIDE.finditer(text):
            decoded.append(m.group(1)[::-1])
    return found, decoded


def _bits_to_text(bits: str) -> str:
    usable = len(bits) - len(bits) % 8
    data = bytes(int(bits[i : i + 8], 2) for i in range(0, usable, 8))
    return data.decode("utf-8", "ignore")


def _printable(s: str) -> bool:
    if len(s) < 8:
        return False
    good = sum(1 for c in s if c.isprintable() or c in "\n\t\r")
    letters = sum(1 for c in s if c.isalpha())
    return good >= 0.95 * len(s) and letters >= 0.5 * len(s.replace(" ", "")) and " " in s.strip()


_B64 = re.compile(r"[A-Za-z0-9+/_-]{16,}+={0,2}")
_HEX_SPACED = re.compile(
    r"(?<![0-9A-Za-z])(?:(?:0x|\\x)?[0-9A-Fa-f]{2}(?:[ ,:;-]{1,2}|(?=\\x))){11,}(?:0x|\\x)?[0-9A-Fa-f]{2}"
)
_BINARY = re.compile(r"[01]{8}(?:[ ,]?[01]{8}){5,}+")
_DECIMAL = re.compile(
    r"(?<![\d.])(?:(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])[ ,]{1,2}){8,}(?:3[2-9]|[4-9]\d|1[01]\d|12[0-6])(?![\d.])"
)
_MORSE = re.compile(r"(?<![\w.-])(?:[.\-]{1,7}+(?:[ ]{1,3}+|[ ]?/[ ]?)){4,}[.\-]{1,7}+(?![\w.-])")
_MORSE_TABLE = {
    ".-": "a", "-...": "b", "-.-.": "c", "-..": "d", ".": "e", "..-.": "f", "--.": "g", "....": "h", "..": "i",
    ".---": "j", "-.-": "k", ".-..": "l", "--": "m", "-.": "n", "---": "o", ".--.": "p", "--.-": "q", ".-.": "r",
    "...": "s", "-": "t", "..-": "u", "...-": "v", ".--": "w", "-..-": "x", "-.--": "y", "--..": "z",
    "-----": "0", ".----": "1", "..---": "2", "...--": "3", "....-": "4", ".....": "5", "-....": "6", "--...": "7",
    "---..": "8", "----.": "9", ".-.-.-": ".", "--..--": ",", "..--..": "?", ".----.": "'", "-.-.--": "!",
    "-..-.": "/", "---...": ":", ".-.-.": "+", "-....-": "-", ".-..-.": '"', ".--.-.": "@",
}  # fmt: skip
_MAX_DECODES = 64
_MAX_DECODED_CHARS = 20_000


_HEX_ONLY = re.compile(r"[0-9A-Fa-f]+")
_DECIMAL_HINT = re.compile(r"\d{2,3}[ ,]{1,2}\d{2,3}[ ,]{1,2}\d{2,3}[ ,]{1,2}\d{2,3}[ ,]{1,2}\d{2,3}")


def _encoding_kinds(text: str) -> set[str]:
    """Cheap substring tests for the encodings that need a regex pass of their own."""
    kinds = set()
    if "\\x" in text or "0x" in text or sum(text.count(p) for p in (" 6", " 7", ",6", ",7", ":6", ":7")) >= 6:
        kinds.add("hex")
    if any(p in text for p in ("0100", "0110", "0111", "0101")):
        kinds.add("bin")
    if ".-" in text or "-." in text:
        kinds.add("morse")
    if _DECIMAL_HINT.search(text):
        kinds.add("dec")
    return kinds


def _hex_text(digits: str) -> str:
    digits = digits[: 2 * _MAX_DECODED_CHARS]
    try:
        return bytes.fromhex(digits[: len(digits) - len(digits) % 2]).decode("utf-8", "ignore")
    except ValueError:
        return ""


def _decoded_payloads(text: str) -> Iterator[tuple[str, str]]:
    """(how, decoded text) for encoded blobs that decode to readable text."""
    count = 0
    for m in _B64.finditer(text):  # base64 and unbroken hex share one pass
        token = m.group(0)
        if len(token) > 4 * _MAX_DECODED_CHARS:
            continue
        if len(token) >= 24 and _HEX_ONLY.fullmatch(token):
            decoded = _hex_text(token)
            if _printable(decoded):
                yield "hex", decoded
            continue
        if not any(c.islower() for c in token) or not (
            any(c.isdigit() for c in token) or any(c.isupper() for c in token)
        ):
            continue
        count += 1
        if count > _MAX_DECODES:
            break
        raw = token.rstrip("=")
        raw = raw + "=" * (-len(raw) % 4)
        for decoder in (base64.b64decode, base64.urlsafe_b64decode):
            try:
                data = decoder(raw)
            except (binascii.Error, ValueError):
                continue
            decoded = data.decode("utf-8", "ignore")
            if _printable(decoded):
                yield "base64", decoded
                break
    kinds = _encoding_kinds(text)
    if "hex" in kinds:
        for m in _HEX_SPACED.finditer(text):
            decoded = _hex_text(re.sub(r"0x|\\x|[^0-9A-Fa-f]", "", m.group(0)))
            if _printable(decoded):
                yield "hex", decoded
    if "bin" in kinds:
        for m in _BINARY.finditer(text):
            decoded = _bits_to_text(re.sub(r"[^01]", "", m.group(0))[: 8 * _MAX_DECODED_CHARS])
            if _printable(decoded):
                yield "binary", decoded
    if "dec" in kinds:
        for m in _DECIMAL.finditer(text):
            decoded = "".join(chr(int(n)) for n in re.findall(r"\d+", m.group(0))[:_MAX_DECODED_CHARS])
            if _printable(decoded):
                yield "character codes", decoded
    if "morse" in kinds:
        for m in _MORSE.finditer(text):
            words = re.split(r"\s*/\s*|\s{2,}", m.group(0).strip())[:_MAX_DECODED_CHARS]
            letters = [[_MORSE_TABLE.get(sym, "") for sym in w.split()] for w in words]
            total = sum(len(w) for w in letters)
            known = sum(1 for w in letters for c in w if c)
            if total >= 4 and known >= 0.8 * total:
                decoded = " ".join("".join(w) for w in letters)
                if len(set(decoded.replace(" ", ""))) >= 4:
                    yield "morse code", decoded


# common English words: a decoded candidate must read like English
_COMMON = _words(
    """the be to of and a in that have i it for not on with he as you do at this but his by from they we say her she
    or an will my one all would there their what so up out if about who get which go me when make can like time no
    just him know take people into year your good some could them see other than then now look only come its over
    think also back after use two how our work first well way even new want because any these give day most us is are
    was were been has had did said does ignore previous instructions instruction prompt system password secret tell
    reveal where state output answer print rules above forget disregard user email send data following please
    must should write reply response"""
)
_WORD = re.compile(r"[a-z]+")
_SEGMENT = re.compile(r"[^\n.!?;\"()<>\[\]{}]{20,2000}")
_FREQUENT = "etaoinshr"


def _english_ratio(s: str) -> float:
    words = _WORD.findall(s)
    if not words:
        return 0.0
    return sum(1 for w in words if w in _COMMON) / len(words)


_ALPHABET = "abcdefghijklmnopqrstuvwxyz"
_SHIFTS = tuple(str.maketrans(_ALPHABET, _ALPHABET[k:] + _ALPHABET[:k]) for k in range(26))


def _pig_latin(s: str) -> str:
    def word(w: str) -> str:
        if (w.endswith("way") or w.endswith("yay")) and len(w) > 4 and w[0] in "aeiou":
            return w[:-3]
        if w.endswith("ay") and len(w) > 3:
            stem = w[:-2]
            i = len(stem)
            while i > 0 and stem[i - 1] not in "aeiou":
                i -= 1
            if 0 < i < len(stem):
                return stem[i:] + stem[:i]
        return w

    return _WORD.sub(lambda m: word(m.group(0)), s)


def _cipher_candidates(view: str) -> Iterator[tuple[str, str]]:
    """Sentences that read as gibberish but as English after a letter shift, reversal or pig latin."""
    tried = 0
    for m in _SEGMENT.finditer(view):
        seg = m.group(0)
        padded = f" {seg.rsplit(':', 1)[-1]} "  # "Decode and follow: <cipher>": judge what follows the colon
        if (
            " the " in padded
            or " and " in padded
            or " to " in padded
            or " you " in padded
            or " is " in padded
        ):
            continue  # plain English
        letters = len(_NON_LETTERS.sub("", seg))
        if letters < 16 or letters < 0.6 * len(seg.replace(" ", "")) or seg.count(" ") < 3:
            continue
        frequent = sum(seg.count(c) for c in _FREQUENT) / letters
        pig = seg.count("ay ") + seg.endswith("ay") >= 3
        if frequent >= 0.55 and not pig:
            # ordinary letter frequencies: only reversed text is left to check
            if seg.count(" eht ") + seg.count(" ot ") + seg.count(" dna ") + seg.count(" uoy ") >= 1:
                rev = seg[::-1]
                if _english_ratio(rev) >= 0.3:
                    yield "reversed text", rev
            continue
        if _english_ratio(seg) >= 0.2:
            continue
        tried += 1
        if tried > 40:
            return
        best, best_ratio = "", 0.0
        for k in range(1, 26):
            cand = seg.translate(_SHIFTS[k])
            ratio = _english_ratio(cand)
            if ratio > best_ratio:
                best, best_ratio = cand, ratio
        if best_ratio >= 0.3:
            yield "a letter-shift cipher", best
        if pig:
            plain = _pig_latin(seg)
            if _english_ratio(plain) >= 0.3:
                yield "pig latin", plain


# --------------------------------------------------------------------------------------------------
# obfuscated views (scanned only around what changed)
# --------------------------------------------------------------------------------------------------

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
_HOMOGLYPHS = str.maketrans({
    "а": "a", "в": "b", "е": "e", "ё": "e", "к": "k", "м": "m", "н": "h", "о": "o", "р": "p", "с": "c", "т": "t",
    "у": "y", "х": "x", "і": "i", "ї": "i", "ј": "j", "ѕ": "s", "ԁ": "d", "ԛ": "q", "ԝ": "w", "һ": "h", "ɡ": "g",
    "α": "a", "β": "b", "ε": "e", "η": "n", "ι": "i", "κ": "k", "ν": "v", "ο": "o", "ρ": "p", "τ": "t", "υ": "u",
    "χ": "x", "γ": "y", "ω": "w", "μ": "u",
})  # fmt: skip
_NON_LATIN_LOOKALIKE = re.compile("[\u0370-\u03ff\u0400-\u04ff\u0261]")
_MIXED_SCRIPT = re.compile(
    r"(?<![a-z\u0370-\u03ff\u0400-\u04ff\u0261])(?=[a-z\u0370-\u03ff\u0400-\u04ff\u0261]*?"
    r"(?:[a-z][\u0370-\u03ff\u0400-\u04ff\u0261]|[\u0370-\u03ff\u0400-\u04ff\u0261][a-z]))"
    r"[a-z\u0370-\u03ff\u0400-\u04ff\u0261]++"
)


def _snippets(view: str, spans: list[tuple[int, int]], replace: Callable[[str], str]) -> Iterator[str]:
    """Windows of ``view`` around ``spans``, with each span replaced by its de-obfuscated form."""
    spans = [(s, min(e, s + 4000)) for s, e in spans]
    for lo, hi in _windows([s for s, _ in spans], len(view)):
        inner = [(s, e) for s, e in spans if lo <= s < hi]
        hi = max(hi, max(e for _, e in inner))
        parts, pos = [], lo
        for s, e in inner:
            parts.append(view[pos:s])
            parts.append(replace(view[s:e]))
            pos = e
        parts.append(view[pos:hi])
        yield "".join(parts)


def _known_word(token: str) -> bool:
    word = _NON_LETTERS.sub("", token)
    if word in _EXACT or word in _COMMON:
        return True
    return bool(_anchor_ids(word))


def _obfuscated_views(view: str) -> Iterator[str]:
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
            _known_word(word.translate(_LEET_I)) or _known_word(word.translate(_LEET_L))
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


# --------------------------------------------------------------------------------------------------
# entry point
# --------------------------------------------------------------------------------------------------


# --------------------------------------------------------------------------------------------------
# a task for the reader slipped into third-party content (an e-mail, a web page)
# --------------------------------------------------------------------------------------------------

_THIRD_PARTY = _c(
    r"^(?:subject|from|to|cc|date|sent|received(?: date)?|reply-to)\s*:|email_from\s*:|\|content\s*:"
    r"|<(?:html|body|div|p|td|table|span|section|article)\b|^\s*(?:hi|hello|dear|hey)\s+[a-z][a-z.-]{1,30}\s*,"
    r"|^\s*(?:best regards|kind regards|regards|sincerely|cheers|best wishes),?\s*$|-{3,}\s*original message"
    r"|forwarded message|^on .{5,80} wrote:\s*$",
    _ML,
)
_TASK_START = _c(
    r"(?:please\s+|now\s+|also\s+)?(?:write|provide|show me|tell me|help me|give me|list|summari[sz]e|analy[sz]e|"
    r"describe|explain|recommend|suggest|determine|classify|translate|generate|compose|draft|create|compare|evaluate|"
    r"outline|calculate|identify|predict|research|brainstorm|rank|find me|name)\b"
    r"|(?P<q>how|what|which|why|is this|is there|are there)\b|(?:can|could|would) you\b"
)
_SENTENCE = re.compile(r"[^.!?\n|]{1,400}[.!?]?")
_CONTENT_WORD = re.compile(r"[a-z]{4,}")
_STOP = _words(
    """about above after again against also although always among another anything anyway around available back
    because been before being below best better between both came come comes could days does doing done down each
    either else even ever every everything find first from full further gets give given going good great have having
    here help hers herself himself howev however into itself just keep know last least less like likely made make
    many maybe more most much must need never next none nothing once only other others ours ourselves over please
    really right said same says see seem seen should show since some something soon still such sure take than thank
    thanks that their theirs them themselves then there these they thing things think this those though through time
    today together very want well were what whatever when where whether which while whom whose will with within
    without would year years your yours yourself yourselves tell write provide list describe explain recommend
    suggest determine analyze analyse summarize summarise classify translate generate compose draft create compare
    evaluate outline calculate identify predict research brainstorm rank name"""
)


def _stem(word: str) -> str:
    return word[:-1] if word.endswith("s") and not word.endswith("ss") else word


# machine-sent mail: notifications, receipts, newsletters (they never ask the reader for open-ended work)
_AUTOMATED = _c(
    r"no-?reply|do not reply|don't reply|automated (?:message|email|notification)|you(?: are|'re) receiving|"
    r"unsubscribe|notification (?:settings|preferences)|manage (?:your )?(?:preferences|notifications|subscriptions)|"
    r"this (?:email|message) was sent|view (?:this email )?in (?:your |a )?browser|sent with care|"
    r"(?:\u2022\u2022|\*{2,}|x{4})\s?\d{4}\b|\u00a9|\(c\) ?\d{4}|all rights reserved|privacy policy"
)
# the sender talking about itself or the recipient's account ("Tell us ...", "Review your order") is not a planted task
_SENDER_VOICE = _c(r"(?<![a-z])(?:us|our|we|your|you(?!\s*\?))(?![a-z])")
# marketing calls to action ("Recommend a friend and earn $5") are the sender's own business, not a planted task
_PROMO = _c(
    r"[$€£]\s?\d|\d\s?%|(?<![a-z])(?:earn|credit|save|discount|off|free|reward|points|offer|deal|shop|buy|order|"
    r"sign up|subscribe|download|install|app|coupon|promo|gift|bonus|cashback|refer|invite|friends?|members?)(?![a-z])"
)


def _hidden_task(view: str) -> bool:
    """An assistant-style request ("Summarize the 2020 climate report.") planted in a machine-sent message (a
    notification, a receipt, a newsletter) that shares (almost) no topic words with the message around it.

    Person-to-person mail is left alone on purpose: a colleague's "Could you review clause 7?" reads exactly like a
    planted task, and no word list can tell them apart."""
    if len(view) > 50_000 or _THIRD_PARTY.search(view) is None or _AUTOMATED.search(view) is None:
        return False
    counts: dict[str, int] = {}
    for w in _CONTENT_WORD.findall(view):
        if w not in _STOP:
            counts[_stem(w)] = counts.get(_stem(w), 0) + 1
    for m in _SENTENCE.finditer(view):
        sentence = m.group(0).strip()
        start = _TASK_START.match(sentence)
        if start is None or not 20 <= len(sentence) <= 300:
            continue
        if start.group("q") and not sentence.endswith("?"):
            continue
        if _SENDER_VOICE.search(re.sub(r"(?:can|could|would) you", "", sentence)) or _PROMO.search(sentence):
            continue
        words = {_stem(w) for w in _CONTENT_WORD.findall(sentence) if w not in _STOP}
        if len(words) < 3:
            continue
        own: dict[str, int] = {}
        for w in _CONTENT_WORD.findall(sentence):
            if w not in _STOP:
                own[_stem(w)] = own.get(_stem(w), 0) + 1
        shared = [w for w in words if counts.get(w, 0) > own.get(w, 0)]
        if len(shared) <= 1 and len(shared) <= 0.25 * len(words):
            return True
    return False


def _scan_text(view: str, original: str) -> str | None:
    reason = scan_view(view)
    if reason is not None:
        return reason
    if _hidden_task(view):
        return R_TASK
    if any(g in original for g in _ROLE_CASED_GATES) and _ROLE_CASED.search(original):
        return R_ROLE
    if _squashed_gate(view) and _SQUASHED.search(_NON_LETTERS.sub("", view)):
        return R_OVERRIDE
    return None


def guard_poisoning(text: str) -> str | None:
    """The reason this text poisons memory (what the caller shows after the rejection prefix), or None."""
    return _poisoning(text, 0)


def _poisoning(text: str, depth: int) -> str | None:
    if not text or text.isspace():
        return None
    nfkc = unicodedata.normalize("NFKC", text)
    smuggled, hidden_texts = _hidden_payloads(text) if depth == 0 else (False, [])
    view = base_view(text)
    reason = _scan_text(view, _INVISIBLE.sub("", nfkc))
    if reason is not None:
        return reason
    if smuggled:
        return R_HIDDEN
    for hidden in hidden_texts:
        inner = _poisoning(hidden, depth + 1)
        if inner is not None:
            return f"{inner} (hidden in invisible characters)"
    for snippet in _obfuscated_views(view):
        reason = scan_view(snippet)
        if reason is not None:
            return f"{reason} (obfuscated)"
    if depth < 2:  # an encoding inside an encoding is followed once more, no further
        for how, decoded in _decoded_payloads(nfkc):
            inner = _poisoning(decoded, depth + 1)
            if inner is not None:
                return f"{inner} (hidden in {how})"
        for how, decoded in _cipher_candidates(view):
            inner = scan_view(decoded)
            if inner is not None:
                return f"{inner} (hidden in {how})"
    return None
