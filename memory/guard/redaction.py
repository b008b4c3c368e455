"""Secret detection and redaction: the entry point (``find_secrets``, ``redact``, ``fingerprint``).

The scanning layers, in the order they run (``SCANNERS``); where spans overlap the highest priority wins,
then the longest, then the first found:

1. private key blocks (priority 4): ``secret_rules.scan_private_keys``; a wallet's recovery phrase, twelve
   words or more of one BIP-39 list (``seeds``);
2. shape rules (priority 3), loaded from data: gitleaks' own rule file plus Mnemos' rules for what it lacks
   (``memory/guard/data/gitleaks.toml``, ``secret_rules.toml``; ``secret_rules.scan_rules``).  A rule runs
   only when one of its keywords occurs in the lower-cased text;
3. context rules (priority 2): assignments and headers whose *name* says "secret" (``password = ...``,
   ``"client_secret": "..."``, ``Authorization: Bearer ...``, ``curl -u user:pass``, ``scheme://user:pass@``),
   with placeholder and variable-reference filtering (``context``);
4. passwords written in prose (priority 2): "with password Tango2021!", "admin / Summit2020@", "her password
   is correct horse battery staple", in the languages of ``data/credential_words.toml`` (``credentials``);
   and a chat's answer to a question about a password or a code (``chat``);
5. the learned password tagger (priority 1): candidates near a credential, sign-in, code or lock word scored
   by a logistic regression on their shape and the words around them (``credential_model``), for the
   phrasings no rule names;
6. high-entropy tokens (priority 1): a random-looking token standing alone, or right after a secret keyword;
   values of names that say "not secret" (``public_key``, checksums, signatures, commit ids, CSRF form
   tokens) are left alone, and so are UUIDs in prose (``entropy``).

Then every other copy of an accepted secret, standing as a word of its own, is redacted under the same rule
(``_copies``): "pumpkin is the password for the guest network, literally just pumpkin"; and a value of the same
kind said after a correction's word within two lines of a found one (``corrections``): "wifi is pear2019 ...
wait no, I reset it, it's quincejam2024".

**Adding a layer**: write a function with the shared scanner signature ``scan(text, low, found, vetoed)``
(``memory.guard.spans``: ``low`` is the lower-cased text with the same offsets; append ``spans.Found(start,
end, rule, priority)`` to ``found``; read or extend ``vetoed``, the spans judged not secret) and add it to
``SCANNERS`` at its place in the order.  Adding a *rule* needs no code: see ``data/secret_rules.toml``.

Every regex is linear (bounded quantifiers, no nested unbounded repetition; the gitleaks rules that are not
are skipped, see ``secret_rules.SKIPPED``), and the case-insensitive scans run on the lower-cased copy, so a
100 kB note costs a few tens of milliseconds.  Offsets of the redactions are in the original text.
"""

from __future__ import annotations

import bisect
import hashlib
from collections.abc import Iterable, Iterator

from .answers import scan_security_answers
from .chat import scan_chat_answers
from .context import scan_assignments, scan_auth_headers, scan_curl_credentials, scan_url_credentials
from .corrections import corrected_values
from .credential_model import scan_learned_credentials
from .credentials import scan_prose_credentials
from .entropy import is_placeholder, looks_random, scan_high_entropy, shannon_entropy
from .result import Redaction
from .secret_rules import RULES, SKIPPED, scan_private_keys, scan_rules
from .seeds import scan_seed_phrases
from .spans import Found, Scanner, Vetoed, lowered

_Found = Found  # the record's former name

SCANNERS: tuple[Scanner, ...] = (
    scan_private_keys,
    scan_seed_phrases,
    scan_rules,
    scan_assignments,  # records the values of not-secret names in ``vetoed``: before scan_high_entropy
    scan_auth_headers,
    scan_curl_credentials,
    scan_url_credentials,
    scan_prose_credentials,
    scan_chat_answers,
    scan_security_answers,
    scan_learned_credentials,
    scan_high_entropy,
)


def find_secrets(text: str) -> list[Redaction]:
    """All secret spans in ``text`` (non-overlapping, sorted)."""
    found: list[Found] = []
    vetoed: Vetoed = []
    low = lowered(text)
    for scan in SCANNERS:
        scan(text, low, found, vetoed)
    if not found:
        return []
    # highest priority first, then the longest; drop anything overlapping an accepted span
    found.sort(key=lambda f: (-f.priority, -(f.end - f.start), f.start))
    # The accepted spans never overlap, so kept sorted by start they are sorted by end too: a new span
    # can only overlap its neighbours there (a note with thousands of secrets stays n log n).
    starts: list[int] = []
    accepted: list[Found] = []

    def accept(spans: list[Found]) -> None:
        for f in spans:
            if f.end <= f.start:
                continue
            at = bisect.bisect_right(starts, f.start)
            if (at and accepted[at - 1].end > f.start) or (at < len(accepted) and accepted[at].start < f.end):
                continue
            starts.insert(at, f.start)
            accepted.insert(at, f)

    accept(found)
    accept(_copies(text, accepted))  # then every other copy of what was accepted, where it overlaps nothing
    accept(corrected_values(text, [(f.start, f.end, f.rule) for f in accepted]))  # "no wait, it's ..."
    return [Redaction(f.rule, f.start, f.end) for f in accepted]


_MIN_COPY = 3  # a secret of one or two characters is no value to look for elsewhere


def _copies(text: str, found: list[Found]) -> list[Found]:
    """Every other copy of an accepted secret, standing as a word of its own, under the same rule: a rule reads
    one copy in its context, and the note leaks the secret through any other ("pumpkin is the password for the
    guest network, literally just pumpkin"; "just type 4417 and push, so 4417 it is"). A copy inside a longer
    word or number ("4417" in "44170") is none. One pass over the text for all the values (``_occurrences``)."""
    rules: dict[str, str] = {}
    for f in found:
        if f.end - f.start >= _MIN_COPY:
            rules.setdefault(text[f.start : f.end], f.rule)  # the first copy's rule
    if not rules:
        return []
    copies: list[Found] = []
    for start, value in _occurrences(text, rules):
        end = start + len(value)
        if not (_joined(text, start - 1, value[0]) or _joined(text, end, value[-1])):
            copies.append(Found(start, end, rules[value], 0))  # the accepted copy itself overlaps: dropped
    return copies


def _occurrences(text: str, values: Iterable[str]) -> Iterator[tuple[int, str]]:
    """(start, value) of every occurrence of ``values`` in ``text``: an Aho-Corasick automaton (pyahocorasick,
    as ``answers._question_automaton``), one pass whatever the number of values; ``str.find`` per value without
    the package (a 100 kB dump of 3,000 passwords took 250 ms more that way)."""
    try:
        import ahocorasick  # type: ignore[import-not-found,unused-ignore]
    except ImportError:
        for value in values:
            at = text.find(value)
            while at >= 0:
                yield at, value
                at = text.find(value, at + 1)
        return
    automaton = ahocorasick.Automaton()
    for value in values:
        automaton.add_word(value, value)
    automaton.make_automaton()
    for last, value in automaton.iter(text):
        yield last + 1 - len(value), value


def _joined(text: str, at: int, edge: str) -> bool:
    """Whether the character at ``at`` (beside a value's ``edge`` character) makes the value part of a longer word."""
    if at < 0 or at >= len(text):
        return False
    return _word_character(edge) and _word_character(text[at])


def _word_character(c: str) -> bool:
    return c.isalnum() or c == "_"


def fingerprint(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8", "surrogatepass")).hexdigest()[:8]


def redact(text: str) -> tuple[str, tuple[Redaction, ...]]:
    """Replace every secret by ``[REDACTED:<rule>:<sha256[:8]>]``."""
    spans = find_secrets(text)
    if not spans:
        return text, ()
    parts: list[str] = []
    pos = 0
    for r in spans:
        parts.append(text[pos : r.start])
        parts.append(f"[REDACTED:{r.rule}:{fingerprint(text[r.start : r.end])}]")
        pos = r.end
    parts.append(text[pos:])
    return "".join(parts), tuple(spans)


__all__ = [
    "RULES",
    "SCANNERS",
    "SKIPPED",
    "Found",
    "find_secrets",
    "fingerprint",
    "is_placeholder",
    "looks_random",
    "lowered",
    "redact",
    "shannon_entropy",
]
