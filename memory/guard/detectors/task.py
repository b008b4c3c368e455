"""A task for the reader slipped into machine-sent mail: looks at meaning rather than phrasing (see
``hidden_task``)."""

from __future__ import annotations

import re

from ..engine import _ML, EN, _c, _words

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
_STOP = _words(EN["words"]["stop"])


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
