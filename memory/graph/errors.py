"""A refused query: it comes back as ``{error, blocked_by, hint?, allowed_*}``, never as a failure."""

from __future__ import annotations

from typing import Literal

BlockedBy = Literal["syntax", "grammar", "params"]


class Rejection(Exception):
    def __init__(
        self,
        error: str,
        *,
        blocked_by: BlockedBy,
        hint: str | None = None,
        **allowed: list[str],
    ) -> None:
        super().__init__(error)
        self.error = error
        self.blocked_by: BlockedBy = blocked_by
        self.hint = hint
        # allowed_relations, allowed_labels, ... : what the refused spot accepts.
        self.allowed = {f"allowed_{name}": sorted(values) for name, values in allowed.items()}
