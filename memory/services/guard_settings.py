"""What operators change about Memory Guard: the learned detector's threshold, and reports of its mistakes.

Reports are kept for the next tuning round (bench/guard/); nothing reads them automatically.
"""

from __future__ import annotations

from django.db import transaction

from accounts import access
from accounts.models import Member
from accounts.selectors.members import enterprise_current
from accounts.services.audit import audit_record
from core.errors import Conflict, Forbidden, InvalidInput, NotFound, Unprocessable
from core.tenancy import current_tenant
from memory.guard import guard_redact, model_threshold_bounds
from memory.models import GuardEvent, GuardReport, GuardReportKind
from memory.selectors.guard import THRESHOLD_SET

ADMIN_ONLY_THRESHOLD = "Only the enterprise's owners and admins set the model threshold."
ADMIN_ONLY_REPORT = "Only the enterprise's owners and admins report the guard's mistakes."
NO_MODEL = "No learned detector is installed; the rules decide alone."
OUT_OF_BOUNDS = "The model threshold must be between {lowest} and {highest} (default {default:.2f})."
REPORT_TEXT_MAX = 20_000
REPORT_NOTE_MAX = 2_000
TEXT_TOO_LONG = f"The reported text must be at most {REPORT_TEXT_MAX:,} characters."
NOTE_TOO_LONG = f"The note must be at most {REPORT_NOTE_MAX:,} characters."
BAD_KIND = "A report's kind is 'false_positive' or 'miss'."
MISS_NEEDS_TEXT = "A miss needs the text the guard let through."
FALSE_POSITIVE_NEEDS_EVENT = "A false positive names the rejection it is about."
EVENT_NOT_FOUND = "guard event {event_id} not found"
NOT_A_REJECTION = "Only a rejection can be reported as a false positive."
ALREADY_REPORTED = "This rejection is already reported as a false positive."


def _bound(value: float) -> str:
    """A bound as written in the error: two decimals, three where it needs them (0.50, 0.999)."""
    return f"{value:.2f}" if round(value, 2) == value else f"{value:.3f}"


def _manager(message: str, code: str) -> Member:
    member = current_tenant().member
    if member is None or not access.member_may_manage(member):
        raise Forbidden(message, code=code)
    return member


@transaction.atomic
def guard_threshold_set(*, value: float | None) -> float | None:
    """Set the enterprise's learned-detector threshold (None: back to the model's default), audited."""
    _manager(ADMIN_ONLY_THRESHOLD, "guard_admin_only")
    bounds = model_threshold_bounds()
    if bounds is None:
        raise Unprocessable(NO_MODEL, code="guard_no_model")
    default, lowest, highest = bounds
    # NaN compares false both ways, so it is refused here too.
    if value is not None and not lowest <= value <= highest:
        message = OUT_OF_BOUNDS.format(lowest=_bound(lowest), highest=_bound(highest), default=default)
        raise Unprocessable(message, code="guard_threshold_out_of_bounds")
    enterprise = enterprise_current()  # the door's own object: the rest of this request sees the change
    old = enterprise.guard_model_threshold
    enterprise.guard_model_threshold = value
    enterprise.save(update_fields=["guard_model_threshold"])
    audit_record(
        action=THRESHOLD_SET,
        target=enterprise,
        details={"old": old, "new": value, "default": default},
    )
    return value


def _rejection(guard_event_id: int | None) -> GuardEvent:
    if guard_event_id is None:
        raise Unprocessable(FALSE_POSITIVE_NEEDS_EVENT, code="guard_event_required")
    # Another enterprise's event is invisible here (tenant manager and RLS): not found, like a missing one.
    event = GuardEvent.objects.filter(pk=guard_event_id).first() if 0 < guard_event_id < 2**63 else None
    if event is None:
        raise NotFound(EVENT_NOT_FOUND.format(event_id=guard_event_id), code="guard_event_not_found")
    if event.action != "reject":
        raise Unprocessable(NOT_A_REJECTION, code="guard_not_a_rejection")
    if GuardReport.objects.filter(guard_event=event, kind=GuardReportKind.FALSE_POSITIVE).exists():
        raise Conflict(ALREADY_REPORTED, code="guard_already_reported")
    return event


@transaction.atomic
def guard_report(
    *, kind: str, text: str = "", note: str = "", guard_event_id: int | None = None
) -> GuardReport:
    """Keep an operator's report of a false positive (a rejection that should have passed) or a miss
    (a text that should have been rejected), secrets redacted, for the next tuning round; audited."""
    member = _manager(ADMIN_ONLY_REPORT, "guard_admin_only")
    if kind not in GuardReportKind.values:
        raise InvalidInput(BAD_KIND, code="invalid_input")
    if len(text) > REPORT_TEXT_MAX:
        raise Unprocessable(TEXT_TOO_LONG, code="guard_report_invalid")
    if len(note) > REPORT_NOTE_MAX:
        raise Unprocessable(NOTE_TOO_LONG, code="guard_report_invalid")
    event = None
    if kind == GuardReportKind.FALSE_POSITIVE:
        event = _rejection(guard_event_id)
    elif not text.strip():
        raise Unprocessable(MISS_NEEDS_TEXT, code="guard_report_invalid")
    report = GuardReport.objects.create(
        kind=kind,
        text=guard_redact(text)[0] if text else "",
        note=guard_redact(note)[0] if note else "",
        guard_event=event,
        reported_by=member,
    )
    audit_record(
        action="guard.report",
        target=report,
        details={"kind": kind, "guard_event_id": event.pk if event else None, "chars": len(text)},
    )
    return report
