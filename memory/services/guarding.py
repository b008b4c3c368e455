"""Memory Guard at the write door: every text field scanned before anything is stored."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from core.errors import Unprocessable
from core.metrics import GUARD_DECISIONS, GUARD_REDACTIONS
from core.tenancy import current_tenant
from memory.guard import RULES_VERSION, GuardResult, guard_check
from memory.models import GuardEvent
from memory.selectors.guard import guard_model_threshold
from memory.services.events import guard_rejected_events_record

POISONING_RULE = "poisoning"


class GuardRejected(Unprocessable):
    """Poisoning: nothing is stored, and a guard event is recorded after the rollback."""

    code = "guard_rejected"

    def __init__(
        self,
        message: str,
        *,
        reason: str,
        field_name: str,
        tool: str,
        decided_by: str = "rule",
        score: float | None = None,
    ) -> None:
        super().__init__(message)
        self.reason, self.field_name, self.tool = reason, field_name, tool
        self.decided_by, self.score = decided_by, score

    def record_after_rollback(self) -> None:
        event = self.event()
        event.save(force_insert=True)
        guard_rejected_events_record([event])

    def event(self) -> GuardEvent:
        """The rejection's guard event, unsaved (a batch writes its rejections with one insert)."""
        ctx = current_tenant()
        return GuardEvent(
            enterprise_id=ctx.enterprise_id,  # type: ignore[misc]  # a write runs in a tenant's context
            action="reject",
            access_key=ctx.access_key,
            tool=self.tool,
            # The rule that refused it, so filtering the guard's events by rule finds rejections too.
            rules=[POISONING_RULE],
            reason=f"{self.field_name}: {self.reason}"[:500],
            rules_version=RULES_VERSION,
            decided_by=self.decided_by,
            score=self.score,
        )


@dataclass
class Scanned:
    """Field values as they will be stored, and the redactions applied to them."""

    values: dict[str, str]
    redactions: list[dict[str, Any]] = field(default_factory=list)

    @property
    def rules(self) -> list[str]:
        return sorted({r["rule"] for r in self.redactions})


@dataclass
class GuardMemo:
    """What a batch's items share while they are scanned: the enterprise's threshold (read once: in a
    job no door has loaded the enterprise, and each read is a query) and the verdicts already reached
    (the guard is pure, and entity names, types, tags and labels recur across items)."""

    verdicts: dict[str, GuardResult] = field(default_factory=dict)
    _threshold: list[float | None] = field(default_factory=list)

    def threshold(self) -> float | None:
        if not self._threshold:
            self._threshold.append(guard_model_threshold())
        return self._threshold[0]


def guard_fields(fields: dict[str, str | None], *, tool: str, memo: GuardMemo | None = None) -> Scanned:
    """Scan each named text; refuse poisoning in any of them; redact secrets in all of them.

    The learned detector rejects at the enterprise's own threshold (read from what the door loaded).
    ``memo``: what a batch shares across its items (``GuardMemo``)."""
    scanned = Scanned(values={})
    # A text given in two fields (a summary that is the content) is checked once: the guard is pure.
    memo = memo if memo is not None else GuardMemo()
    checked = memo.verdicts
    threshold = memo.threshold() if any(fields.values()) else None
    for name, text in fields.items():
        if not text:
            scanned.values[name] = text or ""
            continue
        result = checked.get(text)
        if result is None:
            result = checked[text] = guard_check(text, model_threshold=threshold)
        if result.verdict == "reject":
            GUARD_DECISIONS.labels(f"reject_{result.decided_by or 'rule'}").inc()
            raise GuardRejected(
                result.message or "",
                reason=result.reason or "",
                field_name=name,
                tool=tool,
                decided_by=result.decided_by or "rule",
                score=result.score,
            )
        scanned.values[name] = result.text
        scanned.redactions += [
            {"field": name, "rule": r.rule, "start": r.start, "end": r.end} for r in result.redactions
        ]
    if any(fields.values()):
        GUARD_DECISIONS.labels("accept").inc()
        if scanned.redactions:
            GUARD_REDACTIONS.inc(len(scanned.redactions))
    return scanned


def guard_record_redactions(*, memory_id: object, scanned: Scanned, tool: str) -> None:
    event = guard_redaction_event(memory_id=memory_id, scanned=scanned, tool=tool)
    if event is not None:
        event.save(force_insert=True)


def guard_redaction_event(*, memory_id: Any, scanned: Scanned, tool: str) -> GuardEvent | None:
    """The redaction event of a stored memory, unsaved; None when nothing was redacted."""
    if not scanned.redactions:
        return None
    ctx = current_tenant()
    return GuardEvent(
        enterprise_id=ctx.enterprise_id,  # type: ignore[misc]  # a write runs in a tenant's context
        action="redact",
        memory_id=memory_id,
        access_key=ctx.access_key,
        tool=tool,
        rules=scanned.rules,
        rules_version=RULES_VERSION,
    )
