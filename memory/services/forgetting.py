"""forget: a soft delete. Gone from every read, kept for the audit trail; summaries flagged."""

from __future__ import annotations

from django.utils import timezone
from guardian.core import ObjectPermissionChecker

from accounts.errors import Forbidden
from accounts.models import Member
from accounts.services.audit import audit_record
from memory.models import Memory, Status

MAY_NOT_FORGET = "this membership may not forget memories in this project"


def member_may_write_project(member: Member, project_id: object) -> bool:
    if not member.may_write:
        return False
    if member.is_admin:
        return True
    from accounts.models import Project

    project = Project.objects.get(pk=project_id)
    return ObjectPermissionChecker(member.user).has_perm("write_project", project)


def memory_forget(*, memory: Memory, member: Member, reason: str = "") -> list[str]:
    """Forget one memory; returns the ids of memories derived from it, now flagged."""
    if memory.author_id != member.pk and not member_may_write_project(member, memory.project_id):
        raise Forbidden(MAY_NOT_FORGET, code="may_not_forget")
    derived = list(
        Memory.objects.filter(derived_from__contains=[memory.pk], forgotten_at__isnull=True).values_list(
            "pk", flat=True
        )
    )
    if memory.forgotten_at is None:
        memory.forgotten_at = timezone.now()
        memory.status = Status.FORGOTTEN
        memory.save(update_fields=["forgotten_at", "status"])
        Memory.objects.filter(pk__in=derived).update(source_forgotten=True)
        audit_record(
            action="memory.forget",
            target=memory,
            details={"reason": reason[:500], "derived_flagged": [str(d) for d in derived]},
        )
    return sorted(str(d) for d in derived)
