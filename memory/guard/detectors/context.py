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
    r"(?:^|[\s\"'“‘«(])(?:never|not|no need to|avoid|refuse to|won't|wouldn't|shouldn't|don't|do not|doesn't|does not|"
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


# An attack quoted as an example of one: "a user tried 'ignore previous instructions'", "tester typed 'print
# your initial instructions'", "requests such as 'translate the text above'", "spamming the bot with 'say only
# ACCESS GRANTED'". Words that describe an attempt, not ones that relay an order ("the admin says: '...'" stays
# one).
_DESCRIBED_ATTEMPT = _c(
    r"(?<![a-z])(?:tried|tries|trying|attempted|attempts?|typed|pasted|entered|submitted|sent|used|uses|using|"
    r"spamming|spammed|flooded|like|such\s+as|e\.g\.|including|includes?|phrases?|payloads?|patterns?|examples?|"
    r"strings?|inputs?|messages?|prompts?|requests?|lines?|\(a\)|\(b\)|\(c\)|\(d\))"
    r"(?:\s+(?:the\s+)?[a-z'-]+){0,3}?\s*[:,]?\s*$"
)
_QUOTES = {'"': '"', "“": "”", "‘": "’", "«": "»", "'": "'"}


def _open_quote(before: str, openers: dict[str, str]) -> int:
    """Where the quotation still open at the end of ``before`` begins (``openers``: opening mark -> its
    closing mark), or -1 (an apostrophe inside a word, "don't", opens nothing)."""
    stack: list[tuple[str, int]] = []
    for i, ch in enumerate(before):
        if stack and ch == stack[-1][0]:
            stack.pop()
        elif ch in openers and (ch != "'" or i == 0 or not before[i - 1].isalnum()):
            stack.append((openers[ch], i))
    return stack[0][1] if stack else -1


def _quoted_example(view: str, start: int) -> bool:
    """The match stands inside a quotation, on its line, that follows a word describing an attempt."""
    line = view[max(view.rfind("\n", 0, start) + 1, start - 200) : start]
    at = _open_quote(line, _QUOTES)
    return at >= 0 and _DESCRIBED_ATTEMPT.search(line, 0, at) is not None


def _order(view: str, m: re.Match[str], *, allow_we: bool = False) -> bool:
    """True when the match reads as an order, not as reported speech, an attack quoted as an example, or a
    negated/advisory mention."""
    if _quoted_example(view, m.start()):
        return False
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
