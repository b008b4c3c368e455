"""Value heuristics (entropy, placeholders, random-looking tokens) and the high-entropy layer.

The heuristics are shared by every secret layer: a rule's match is dropped when its value is a placeholder
(``xxxx``, ``<token>``, ``${VAR}``, ``EXAMPLE``, alphabets).  The layer itself (:func:`scan_high_entropy`,
lowest priority) redacts a random-looking token standing alone, or right after a secret keyword; values of
names that say "not secret" (checksums, signatures, commit ids, CSRF form tokens, public key blocks) and the
spans other layers vetoed are left alone.
"""

from __future__ import annotations

import math
import re
from collections import Counter
from collections.abc import Callable

from .spans import Found, Vetoed, containment_test

# --------------------------------------------------------------------------------------------------
# value heuristics
# --------------------------------------------------------------------------------------------------


def words_in(text: str) -> list[str]:
    """The whitespace-separated words of ``text`` (word lists are written as one string)."""
    return text.split()


def words(text: str) -> frozenset[str]:
    return frozenset(text.split())


def shannon_entropy(value: str) -> float:
    """Bits per character (same definition as gitleaks' and detect-secrets' entropy checks)."""
    if not value:
        return 0.0
    n = len(value)
    return -sum((c / n) * math.log2(c / n) for c in Counter(value).values())


PLACEHOLDER_WORDS = words(
    """password passwd pass pwd secret token apikey api_key key changeme none null nil true false empty
    required optional string str text hidden masked redacted undefined unknown example sample placeholder
    username user test testing demo default value foo bar baz abc xxx yyy zzz secret_key mypassword
    yourpassword my_password your_password password123 admin root guest login"""
)
_PLACEHOLDER_MARKERS = (
    *words_in("xxxx **** .... \u2026 < > ${ $( {{ }} %( %s your_ your- yourkey"),
    "your key",
    *words_in("insert replace put_your placeholder redacted todo dummy [redacted changeme _here -here"),
    *words_in("getenv environ process.env secrets. ####"),
)


def _run_fraction(value: str, continues: Callable[[str, str], bool]) -> float:
    """Share of characters inside runs of >= 4 where ``continues(previous, current)`` holds throughout."""
    covered = 0
    run = 1
    for i in range(1, len(value) + 1):
        if i < len(value) and continues(value[i - 1], value[i]):
            run += 1
            continue
        if run >= 4:
            covered += run
        run = 1
    return covered / len(value) if value else 0.0


def _runs_fraction(value: str) -> float:
    """Share of characters that sit in runs of >= 4 equal characters."""
    return _run_fraction(value, lambda a, b: a.lower() == b.lower())


def _sequential_fraction(value: str) -> float:
    """Share of characters inside ascending runs (abcd, 1234) of >= 4: alphabets and examples."""
    return _run_fraction(value, lambda a, b: ord(b) == ord(a) + 1)


def is_placeholder(value: str, *, strict: bool = True) -> bool:
    """True for obvious non-secrets: xxxx, <token>, ${VAR}, EXAMPLE, aaaa..., alphabets."""
    v = value.strip().strip("'\"`")
    if not v:
        return True
    low = v.lower()
    if low in PLACEHOLDER_WORDS:
        return True
    if any(m in low for m in _PLACEHOLDER_MARKERS):
        return True
    if v[0] in "$%@&*#":
        return True
    if len(set(low)) <= 3 and len(v) >= 6:
        return True
    if low.endswith("here") or _runs_fraction(v) > 0.6:
        return True
    if strict:
        if "example" in low:
            return True
        if len(v) >= 10 and _sequential_fraction(v) > 0.96:
            return True
    return False


def classes(value: str) -> int:
    """How many of lower / upper / digit / other the value uses."""
    return (
        any(c.islower() for c in value)
        + any(c.isupper() for c in value)
        + any(c.isdigit() for c in value)
        + any(not c.isalnum() for c in value)
    )


def mixed(value: str) -> bool:
    return (
        any(c.isupper() for c in value)
        and any(c.islower() for c in value)
        and any(c.isdigit() for c in value)
    )


def has_letters_digits(value: str) -> bool:
    return any(c.isalpha() for c in value) and any(c.isdigit() for c in value)


_WORDY = re.compile(r"[A-Z]?[a-z]{3,}")
IDENTIFIER_PARTS = re.compile(r"(?:\d+|[A-Za-z][a-z]+|[A-Z]+)(?:[_.\-](?:\d+|[A-Za-z][a-z]+|[A-Z]+))+")
_UUID = re.compile(r"[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-[0-9a-fA-F]{12}")
DOTTED_IDENT = re.compile(r"[A-Za-z_][\w$]*(?:\.[A-Za-z_][\w$]*)+")
_WORDS_ONLY = re.compile(r"[A-Za-z]+(?:[_\-. ][A-Za-z]+)*")
_CONSTANT_LIKE = re.compile(r"[A-Z][A-Z0-9]*(?:[_\-][A-Z0-9]+)*")


def wordiness(value: str) -> float:
    """Share of the value made of word-like runs (camelCase identifiers score high, random tokens low)."""
    return sum(len(m) for m in _WORDY.findall(value)) / len(value) if value else 0.0


def looks_random(value: str, *, min_len: int = 8) -> bool:
    """A credential-like value: long enough, mixed, not an identifier, not a placeholder."""
    v = value
    if len(v) < min_len or len(v) > 1000 or is_placeholder(v):
        return False
    if any(c.isspace() for c in v):
        return False
    if _UUID.fullmatch(v):
        return True
    if "://" in v or v.startswith(("/", "./", "../", "~/")) or "(" in v:
        return False
    if v.count("/") >= 2 and not any(c.isupper() for c in v):
        return False  # a path: "7474/db/data/"
    if DOTTED_IDENT.fullmatch(v) or _WORDS_ONLY.fullmatch(v.strip("_")) or _CONSTANT_LIKE.fullmatch(v):
        return False
    if IDENTIFIER_PARTS.fullmatch(v):
        return False  # "0012_alter_user_first_name_max_length": words and numbers joined by _ - .
    if "=" in v.rstrip("="):
        return False  # "max_length=128": a key=value pair, not one token
    if classes(v) < 2:
        # a single class: only long hex / digits strings qualify
        return (
            len(v) >= 24 and re.fullmatch(r"[0-9a-f]+|[0-9A-F]+", v) is not None and shannon_entropy(v) > 3.0
        )
    if wordiness(v) > 0.7 and not any(c.isdigit() for c in v):
        return False
    ent = shannon_entropy(v)
    return ent >= (2.7 if len(v) < 20 else 3.1)


# --------------------------------------------------------------------------------------------------
# the high-entropy layer
# --------------------------------------------------------------------------------------------------

_BARE_TOKEN = re.compile(r"[A-Za-z0-9+_\-]{20,}+={0,3}")
_BARE_BEFORE = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~@:%#$\\")
_BARE_AFTER = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/=_-.~@\\")
_NEAR_KEYWORD = re.compile(
    r"\b(?:password|passwd|passphrase|secret|token|api[ _\-]?key|access[ _\-]?key|credentials?|bearer)\b"
    r"[^\n.!?]{0,40}?[\s:=\"'(]([A-Za-z0-9+/=_\-~!@#$%^&*]{12,200})(?![A-Za-z0-9+/=_\-])"
)
_PUBLIC_BLOCK = re.compile(
    r"-----BEGIN (?:PGP PUBLIC KEY BLOCK|PUBLIC KEY|RSA PUBLIC KEY|CERTIFICATE|PGP SIGNATURE|PGP MESSAGE|SSH2 PUBLIC KEY)-----"
    r"[\s\S]{0,20000}?-----END [A-Z0-9 ]{3,30}-----"
)
_SSH_PUBLIC_KEY = re.compile(r"\b(?:ssh-(?:rsa|ed25519|dss)|ecdsa-sha2-nistp\d{3}) [A-Za-z0-9+/=]{40,}")
# values that are random but not secret: checksums, signatures, hashes, commit ids, CSRF form tokens
_NOT_SECRET_VALUE = re.compile(
    r"\b(?:signature|sig|checksum|hash|digest|etag|integrity|nonce|commit|sha|sha1|sha256|sha512|md5|revision|"
    r"fingerprint|request[_-]?id|trace[_-]?id|correlation[_-]?id|uuid|guid)[\"']?\s{0,3}[:=]\s{0,3}[\"']?"
    r"([A-Za-z0-9+/=_\-]{16,2000})"
    r"|name=[\"'][\w-]*(?:csrf|xsrf|authenticity)[\w-]*[\"']\s+value=[\"']([^\"'<>]{8,2000})"
)  # runs on the lower-cased copy


def _bare_high_entropy(value: str) -> bool:
    n = len(value)
    if n < 20 or not mixed(value) or is_placeholder(value):
        return False
    segments = re.split(r"[_\-]", value)
    if len(segments) >= 3 and all(len(seg) <= 12 for seg in segments):
        return False  # SOME_Identifier_v2_Name, release-2024-01-rc3
    if wordiness(value) > 0.45:
        return False
    digits = sum(c.isdigit() for c in value)
    if digits < 2 or digits > n * 0.8:
        return False
    return shannon_entropy(value) >= min(4.0, 0.85 * math.log2(n))


def _in_url(text: str, start: int) -> bool:
    """True when the token at ``start`` is part of a URL (path, query) rather than free-standing."""
    ws = max(
        text.rfind(" ", 0, start),
        text.rfind("\n", 0, start),
        text.rfind("\t", 0, start),
        text.rfind('"', 0, start),
    )
    prefix = text[ws + 1 : start]
    return "://" in prefix or prefix.startswith("www.")


def scan_high_entropy(text: str, low: str, out: list[Found], vetoed: Vetoed) -> None:
    vetoed = (
        vetoed
        + [m.span() for m in _PUBLIC_BLOCK.finditer(text)]
        + [m.span() for m in _SSH_PUBLIC_KEY.finditer(text)]
        + [m.span(m.lastindex or 0) for m in _NOT_SECRET_VALUE.finditer(low)]
    )

    held = containment_test(vetoed)  # sorted once: a 100 kB note may hold thousands of each

    def free(start: int, end: int) -> bool:
        return not held(start, end)

    for m in _BARE_TOKEN.finditer(text):
        if (m.start() > 0 and text[m.start() - 1] in _BARE_BEFORE) or (
            m.end() < len(text) and text[m.end()] in _BARE_AFTER
        ):
            continue
        value = m.group(0).strip("-_=")
        if text[m.end() : m.end() + 2] in ("..", "\u2026") or text[m.end() : m.end() + 1] == "\u2026":
            continue  # elided in the text itself: "ops_eyJzaWdu..."
        if (
            len(value) <= 1000
            and _bare_high_entropy(value)
            and free(m.start(), m.end())
            and not _in_url(text, m.start())
        ):
            start = m.start() + m.group(0).index(value)
            out.append(Found(start, start + len(value), "high-entropy", 1))
    for m in _NEAR_KEYWORD.finditer(low):
        if text[m.end(1) : m.end(1) + 2] == ".." or text[m.end(1) : m.end(1) + 1] == "\u2026":
            continue
        value = text[m.start(1) : m.end(1)].rstrip(".!?,;:)")
        if not free(m.start(1), m.end(1)):
            continue
        if len(value) >= 12 and looks_random(value, min_len=12) and has_letters_digits(value):
            out.append(Found(m.start(1), m.start(1) + len(value), "high-entropy", 1))
