"""Writes the console starts on the memory side that no tool makes: the guard re-scan request (a retention
run now is ``memory.services.retention.retention_run_request``)."""

from __future__ import annotations

from django.db import transaction

from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from core.tenancy import current_tenant
from memory.guard import RULES_VERSION


@transaction.atomic
def guard_rescan_request() -> None:
    """Queue the re-scan with the rules in force (the job itself is idempotent and resumable)."""
    from memory.tasks import guard_rescan_task

    enterprise_id = str(current_tenant().enterprise_id)
    audit_record(action="guard.rescan_request", target_type="guard", details={"rules_version": RULES_VERSION})
    enqueue(guard_rescan_task, enterprise_id=enterprise_id)
