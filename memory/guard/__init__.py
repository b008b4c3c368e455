"""Memory Guard: scan every text before it is stored.

Secrets are replaced by ``[REDACTED:<rule>:<first 8 hex of sha256>]`` and the
memory is saved; poisoning (text that instructs a future reader) is refused
with ``Memory rejected by Security Guard: <reason>``. Pure functions: no
database, no Django::

    text ──> poisoning rules (poisoning.py) ─┐
         ──> learned detector (model.py) ────┴─> a rule, or a score >= the threshold, rejects
         ──> secrets (redaction.py, credentials.py, credential_values.py) ──> the text as stored, with its redactions

docs/guard.md: the modules, the data files, and how to add a rule, a language or a training example.
"""

from __future__ import annotations

from .model import Model, load_model, model_score
from .poisoning import guard_poisoning
from .redaction import redact
from .result import REJECTED_PREFIX, GuardResult, Redaction, rejection_message

# Bump whenever a rule or the model changes: stored memories scanned with older rules are re-scanned.
RULES_VERSION = "2026.12.31"
R_MODEL = "text that reads as instructions to an AI reader (learned detector, score {score:.2f})"


def guard_redact(text: str) -> tuple[str, tuple[Redaction, ...]]:
    return redact(text)


def model_threshold_bounds() -> tuple[float, float, float] | None:
    """(default, lowest, highest) threshold of the shipped model, or None without one."""
    model = load_model()
    return None if model is None else (model.threshold, model.floor, model.ceiling)


def model_short_threshold() -> float | None:
    """What a text of fewer than ``model.SHORT`` words must score to be rejected, whatever the threshold
    (the higher of the two holds); None without a model."""
    model = load_model()
    return None if model is None else model.short_threshold


def _clamped(model: Model, threshold: float | None) -> float | None:
    """An enterprise's threshold within the model's bounds (None: the model's own)."""
    return None if threshold is None else min(max(threshold, model.floor), model.ceiling)


def guard_check(text: str, *, model_threshold: float | None = None) -> GuardResult:
    """Reject when a rule names poisoning, or when the learned detector's score reaches
    ``model_threshold`` (default: the model's validation threshold; an enterprise may set its own within
    ``model_threshold_bounds``; a short text's score must also reach the model's short threshold,
    ``model.SHORT``). Secrets are redacted either way."""
    reason = guard_poisoning(text)
    model = load_model()
    score, rejected = (None, False) if model is None else model.judge(text, _clamped(model, model_threshold))
    stored, redactions = redact(text)
    if reason is not None:
        return GuardResult("reject", reason, redactions, stored, decided_by="rule", score=score)
    if rejected:
        return GuardResult(
            "reject", R_MODEL.format(score=score), redactions, stored, decided_by="model", score=score
        )
    return GuardResult("accept", None, redactions, stored, score=score)


__all__ = [
    "REJECTED_PREFIX",
    "RULES_VERSION",
    "R_MODEL",
    "GuardResult",
    "Redaction",
    "guard_check",
    "guard_poisoning",
    "guard_redact",
    "model_score",
    "model_short_threshold",
    "model_threshold_bounds",
    "rejection_message",
]
