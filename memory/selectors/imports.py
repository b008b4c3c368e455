"""Reads of imports: which a member sees (``DataImport``), and their progress, for the API and the console."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts import access
from accounts.models import Member
from core.errors import NotFound
from memory.models import DataImport


def imports_visible(*, member: Member) -> QuerySet[DataImport]:
    """Owners, admins and auditors see every import of the enterprise; anyone else the imports they asked for."""
    imports = DataImport.objects.select_related("project").order_by("-created_at", "-pk")
    if access.member_sees_every_project(member):
        return imports
    return imports.filter(requested_by=member)


def import_get(*, member: Member, import_id: Any) -> DataImport:
    """One import this member sees; another's (or another enterprise's) is not found, as a missing one."""
    found = imports_visible(member=member).filter(pk=import_id).first()
    if found is None:
        raise NotFound("import not found", code="not_found")
    return found


def import_describe(data_import: DataImport) -> dict[str, Any]:
    """An import's state and progress as the API and the console show it."""
    return {
        "id": str(data_import.pk),
        "format": data_import.format,
        "project": data_import.project.slug,
        "workspace": data_import.workspace,
        "original_name": data_import.original_name,
        "state": data_import.state,
        "total": data_import.total,
        "position": data_import.position,
        "percent": 100 if not data_import.total else round(100 * data_import.position / data_import.total),
        "created": data_import.created,
        "duplicates": data_import.duplicates,
        "rejected": data_import.rejected,
        "errors": data_import.errors,
        "problems": data_import.problems,
        "error": data_import.error or None,
        "created_at": data_import.created_at.isoformat(),
        "finished_at": data_import.finished_at.isoformat() if data_import.finished_at else None,
    }
