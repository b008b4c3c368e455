"""Result types of Memory Guard (pure data, no Django)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

REJECTED_PREFIX = "Memory rejected by Security Guard: "


def rejection_message(reason: str) -> str:
    """The message the public API shows when a memory is rejected."""
    return f"{REJECTED_PREFIX}{reason}"


@dataclass(frozen=True)
class Redaction:
    """One secret replaced in the stored text; offsets are in the ORIGINAL input text."""

    rule: str
    start: int
    end: int


@dataclass(frozen=True)
class GuardResult:
    verdict: Literal["accept", "reject"]
    reason: str | None
    redactions: tuple[Redaction, ...]
    text: str
    decided_by: Literal["rule", "model"] | None = None  # what rejected it
    score: float | None = None  # the learned detector's score (None where it has no model)

    @property
    def accepted(self) -> bool:
        return self.verdict == "accept"

    @property
    def message(self) -> str | None:
        if self.verdict == "reject" and self.reason is not None:
            return rejection_message(self.reason)
        return None
