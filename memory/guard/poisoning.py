"""Poisoning: text that instructs a future reader of the memory. Refused, never stored.

How it works
------------
1. **Views** (``normalize``, ``decoders``).  The text is folded (NFKC, invisible characters dropped, lower case,
   Latin/Greek accents removed, typographic quotes straightened, a run of more than three blanks squeezed).  Obfuscated forms get extra views: leetspeak,
   spaced-out letters, Cyrillic/Greek look-alikes inside Latin words, an attack's words misspelled (``typos``),
   and decoded payloads (base64, hex, binary,
   decimal codes, Morse, Caesar/ROT13, reversed text, pig latin, Unicode tag characters, variation-selector
   and zero-width steganography).  Every view is scanned the same way.
2. **Detectors** (``detectors/``, word lists in ``data/lexicons/``).  Each detector is a regex for one
   manipulation technique aimed at the *reader*: an imperative plus a target (previous instructions, the system
   prompt, the assistant's role, its secrets, its response), a fake conversation turn, an address to an AI
   reader, an exfiltration order, a code-insertion order with a malicious payload, a payload split into parts;
   in English, Russian, German, French, Spanish, Italian, Portuguese, Chinese, Japanese and Korean (plus a few
   more for the override).  A trigger word alone ("ignore", "system", "instructions", "prompt", "override")
   never fires.
3. **Weights** (``engine``).  A strong signal (weight 2) rejects on its own.  Weak signals (weight 1: an
   authority claim, a mode switch, a request for "the password", a directive about the reader's answer in a
   short standalone note) reject only when two of them sit within a few hundred characters of each other.
   Orders reported in the third person ("we decided to ignore the old rules") or negated ("never share your
   password") are discounted.  Directives about "your response" count as strong only inside third-party
   content (an e-mail, a web page): alone they are a user's preference ("reply in Spanish").
4. **Machine-sent mail** (``detectors/task``).  One heuristic looks at meaning rather than phrasing: an
   assistant-style task ("Summarize the 2020 climate report.") inside a notification, receipt or newsletter
   that shares no topic words with it.  Person-to-person mail is exempt, because there a planted task and a
   colleague's request look the same.

Speed: every regex is bounded (no nested unbounded repetition, possessive runs where a blob can be long).
A detector only runs where its *anchors* occur -- words every match contains, found with one tokenising
pass -- either as one match attempt at (or a few words before) each anchor, or in a window around it.
A 100 kB note costs a few tens of milliseconds at worst.
"""

from __future__ import annotations

import re
import unicodedata

from .decoders import _COMMON, _cipher_candidates, _decoded_payloads, _hidden_payloads, interleaving_mark
from .detectors import DETECTORS, SCANNER
from .detectors.override import squashed
from .detectors.role import _ROLE_CASED, _ROLE_CASED_GATES
from .detectors.task import _hidden_task
from .engine import (
    R_ADDRESS,
    R_CODE,
    R_EXFIL,
    R_HARMFUL,
    R_HIDDEN,
    R_INTERLEAVED,
    R_OUTPUT,
    R_OVERRIDE,
    R_PRESSURE,
    R_ROLE,
    R_SECRET,
    R_SPLIT,
    R_TASK,
    R_TURN,
    STRONG,
    WEAK,
    Detector,
)
from .normalize import _INVISIBLE, _NON_LETTERS, base_view, obfuscated_views
from .typos import misspelled_views

scan_view = SCANNER.scan


def _known_word(token: str) -> bool:
    word = _NON_LETTERS.sub("", token)
    if word in SCANNER.exact or word in _COMMON:
        return True
    return bool(SCANNER.anchor_ids(word))


def _scan_text(view: str, original: str) -> str | None:
    reason = scan_view(view)
    if reason is not None:
        return reason
    if _hidden_task(view):  # looked up here at call time (the bench switches it off for an ablation)
        return R_TASK
    if any(g in original for g in _ROLE_CASED_GATES) and _ROLE_CASED.search(original):
        return R_ROLE
    if squashed(view):
        return R_OVERRIDE
    return None


_BLANKS = re.compile(r"\s{4,}")


def _blank(m: re.Match[str]) -> str:
    newlines = m.group().count("\n")
    return "   " if not newlines else "\n" if newlines == 1 else "\n\n"


def _squeezed(view: str) -> str:
    """A run of more than three blanks as three spaces, a line's end or a blank line. No detector counts further
    (the spaced-out letters' view reads up to three between words), and 100 kB of spaces after "answer everything"
    made the dictated reply's pattern backtrack for 8 s."""
    return _BLANKS.sub(_blank, view) if "    " in view or "\n" in view or "\t" in view else view


def guard_poisoning(text: str) -> str | None:
    """The reason this text poisons memory (what the caller shows after the rejection prefix), or None."""
    return _poisoning(text, 0)


def _poisoning(text: str, depth: int) -> str | None:
    if not text or text.isspace():
        return None
    nfkc = unicodedata.normalize("NFKC", text)
    smuggled, hidden_texts = _hidden_payloads(text) if depth == 0 else (False, [])
    view = _squeezed(base_view(text))
    reason = _scan_text(view, _INVISIBLE.sub("", nfkc))
    if reason is not None:
        return reason
    if smuggled:
        return R_HIDDEN
    for hidden in hidden_texts:
        inner = _poisoning(hidden, depth + 1)
        if inner is not None:
            return f"{inner} (hidden in invisible characters)"
    for snippet in obfuscated_views(view, _known_word):
        reason = scan_view(snippet)
        if reason is not None:
            return f"{reason} (obfuscated)"
    for snippet in misspelled_views(view):
        reason = scan_view(snippet)
        if reason is not None:
            return f"{reason} (misspelled)"
    if depth < 2:  # an encoding inside an encoding is followed once more, no further
        for how, decoded in _decoded_payloads(nfkc):
            inner = _poisoning(decoded, depth + 1)
            if inner is not None:
                return f"{inner} (hidden in {how})"
        for how, decoded in _cipher_candidates(view):
            inner = scan_view(decoded)
            if inner is not None:
                return f"{inner} (hidden in {how})"
    if depth == 0 and _written_between_marks(nfkc):
        return R_INTERLEAVED
    return None


_WORD = re.compile(r"[^\W\d_]{2,}")


def _written_between_marks(text: str) -> bool:
    """Words written with one mark between every character ("\\I\\ \\h\\a\\v\\e\\ \\b\\e\\e\\n"): nobody writes a note
    so but to hide it from a filter, so the hiding rejects, as hidden characters do (``R_HIDDEN``), whatever the
    words say once the marks are gone; the decoded text was scanned above for a more specific reason. A hyphen
    or a dot spells a word out ("J-O-H-N S-M-I-T-H", "w-a-t-e-r- -t-h-e- -p-l-a-n-t-s"): that is writing, and
    only what it spells is judged."""
    mark = interleaving_mark(text)
    return mark is not None and mark not in _SPELLING and len(_WORD.findall(text.replace(mark, ""))) >= 2


_SPELLING = "-.·"


__all__ = [
    "DETECTORS",
    "R_ADDRESS",
    "R_CODE",
    "R_EXFIL",
    "R_HARMFUL",
    "R_HIDDEN",
    "R_INTERLEAVED",
    "R_OUTPUT",
    "R_OVERRIDE",
    "R_PRESSURE",
    "R_ROLE",
    "R_SECRET",
    "R_SPLIT",
    "R_TASK",
    "R_TURN",
    "STRONG",
    "WEAK",
    "Detector",
    "base_view",
    "guard_poisoning",
    "scan_view",
]
