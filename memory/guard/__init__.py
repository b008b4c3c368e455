"""Memory Guard: scan every text before it is stored.

Secrets are replaced by ``[REDACTED:<rule>:<first 8 hex of sha256>]`` and the
memory is saved; poisoning (text that instructs a future reader) is refused
with ``Memory rejected by Security Guard: <reason>``. Pure functions: no
database, no Django.
"""

from __future__ import annotations

from .poisoning import guard_poisoning
from .redaction import redact
from .result import REJECTED_PREFIX, GuardResult, Redaction, rejection_message

# Bump whenever a rule changes: stored memories scanned with older rules are re-scanned.
RULES_VERSION = "2026.11.2"


def guard_redact(text: str) -> tuple[str, tuple[Redaction, ...]]:
    return redact(text)


def guard_check(text: str) -> GuardResult:
    reason = guard_poisoning(text)
    stored, redactions = redact(text)
    if reason is not None:
        return GuardResult(verdict="reject", reason=reason, redactions=redactions, text=stored)
    return GuardResult(verdict="accept", reason=None, redactions=redactions, text=stored)


__all__ = [
    "REJECTED_PREFIX",
    "RULES_VERSION",
    "GuardResult",
    "Redaction",
    "guard_check",
    "guard_poisoning",
    "guard_redact",
    "rejection_message",
]
