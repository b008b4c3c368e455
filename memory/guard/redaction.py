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

from .answers import scan_security_answers
from .chat import scan_chat_answers
from .context import scan_assignments, scan_auth_headers, scan_curl_credentials, scan_url_credentials
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
    for f in found:
        if f.end <= f.start:
            continue
        at = bisect.bisect_right(starts, f.start)
        if (at and accepted[at - 1].end > f.start) or (at < len(accepted) and accepted[at].start < f.end):
            continue
        starts.insert(at, f.start)
        accepted.insert(at, f)
    return [Redaction(f.rule, f.start, f.end) for f in accepted]


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
