"""Context helpers for the detectors' checks: is a match an order to the reader, reported speech, negated,
inside third-party content?"""

from __future__ import annotations

import re

from ..engine import _ML, STRONG, Check, _c

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


def _sentence_has(view: str, m: re.Match[str], *patterns: re.Pattern[str], pad: int = 0) -> bool:
    """One of ``patterns`` occurs in the match's sentence (widened by ``pad`` characters on each side)."""
    s, e = _sentence(view, m.start(), m.end())
    lo, hi = max(0, s - pad), min(len(view), e + pad)
    return any(p.search(view, lo, hi) for p in patterns)


def _order(view: str, m: re.Match[str], *, allow_we: bool = False) -> bool:
    """True when the match reads as an order, not as reported speech or a negated/advisory mention."""
    before = _clause_before(view, m.start())
    if "you" in before.split():
        return not _NEGATED.search(before)
    if before.strip() == "to":  # a sentence that opens with its purpose: "To remove all commands, type ..."
        return False
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
