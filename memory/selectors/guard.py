"""Reads of Memory Guard's settings and reports: the learned detector's threshold, the operators' reports."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime

from accounts.models import AuditEvent
from accounts.selectors.members import enterprise_current
from memory.guard import model_short_threshold, model_threshold_bounds
from memory.models import GuardReport

THRESHOLD_SET = "guard.threshold_set"


def guard_model_threshold() -> float | None:
    """The enterprise's own threshold (None: the model's default); no query on the key and console doors."""
    return enterprise_current().guard_model_threshold


@dataclass(frozen=True)
class GuardDetectorSettings:
    """The learned detector as an enterprise has it: None everywhere but ``chosen`` without a model."""

    installed: bool
    chosen: float | None  # the enterprise's own threshold, None for the model's default
    default: float | None
    lowest: float | None
    highest: float | None
    set_by: str | None  # who set it last (from the audit trail), None when nobody has
    set_at: datetime | None
    short: float | None = None  # the model's short threshold (texts of fewer than five words)

    @property
    def in_force(self) -> float | None:
        return self.default if self.chosen is None else self.chosen

    @property
    def short_in_force(self) -> float | None:
        """What a short text must score: the short threshold, or the threshold in force where higher."""
        if self.short is None or self.in_force is None:
            return self.short
        return max(self.short, self.in_force)


def _actor(event: AuditEvent) -> str:
    if event.actor_member is not None:
        return event.actor_member.user.username
    return f"key {event.access_key.prefix}" if event.access_key is not None else event.door


def guard_detector_settings() -> GuardDetectorSettings:
    """The threshold in force, its bounds, and who set it last: one query (the last audit event)."""
    bounds = model_threshold_bounds()
    last = (
        AuditEvent.objects.select_related("actor_member__user", "access_key")
        .filter(action=THRESHOLD_SET)
        .order_by("-created_at", "-id")
        .first()
    )
    default, lowest, highest = bounds if bounds is not None else (None, None, None)
    return GuardDetectorSettings(
        installed=bounds is not None,
        chosen=guard_model_threshold(),
        default=default,
        lowest=lowest,
        highest=highest,
        set_by=_actor(last) if last is not None else None,
        set_at=last.created_at if last is not None else None,
        short=model_short_threshold(),
    )


def guard_reports_list(*, limit: int = 100) -> list[GuardReport]:
    """The enterprise's reports, newest first, with who reported them (one query)."""
    reports = GuardReport.objects.select_related("reported_by__user", "guard_event").order_by(
        "-created_at", "-id"
    )
    return list(reports[:limit])
