"""Writes the console starts on the memory side that no tool makes: the guard re-scan request, a retention
run now."""

from __future__ import annotations

from django.db import transaction
from django.utils import timezone

from accounts.models import Member
from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from core.tenancy import current_tenant
from memory.guard import RULES_VERSION
from memory.services.retention import RETENTION_BATCH, retention_manage_check, retention_run_pending


@transaction.atomic
def guard_rescan_request() -> None:
    """Queue the re-scan with the rules in force (the job itself is idempotent and resumable)."""
    from memory.tasks import guard_rescan_task

    enterprise_id = str(current_tenant().enterprise_id)
    audit_record(action="guard.rescan_request", target_type="guard", details={"rules_version": RULES_VERSION})
    enqueue(guard_rescan_task, enterprise_id=enterprise_id)


@transaction.atomic
def retention_run_request(*, member: Member, batch_size: int = RETENTION_BATCH) -> bool:
    """Apply the enterprise's retention policies now (what the hourly sweep does, docs/lifecycle.md):
    enqueue the run's first batch unless a run is pending already (False then). Owners and admins; audited."""
    from memory.tasks import retention_apply_task

    retention_manage_check(member)
    if retention_run_pending():
        return False
    started = timezone.now().isoformat()
    audit_record(action="retention.run_request", target_type="retention", details={"run": started})
    kwargs: dict[str, object] = {"run_started": started}
    if batch_size != RETENTION_BATCH:
        kwargs["batch_size"] = batch_size
    enqueue(retention_apply_task, enterprise_id=str(current_tenant().enterprise_id), **kwargs)
    return True
