"""Assertions the guard's tests share."""

from __future__ import annotations

from memory.guard import guard_redact
from memory.guard.credential_model import RULE, rules_only


def assert_found_by_the_tagger_alone(text: str, secret: str) -> None:
    """No phrasing rule reads ``text``; the learned tagger removes ``secret``, and only it redacts."""
    with rules_only():
        assert guard_redact(text) == (text, ())  # no rule names this phrasing
    stored, redactions = guard_redact(text)
    assert secret not in stored
    assert [r.rule for r in redactions] == [RULE]


def assert_found_by_the_rules_alone(text: str, secret: str) -> None:
    """With the learned tagger held off, a phrasing rule removes ``secret`` from ``text``."""
    with rules_only():
        stored, redactions = guard_redact(text)
    assert secret not in stored
    assert redactions
