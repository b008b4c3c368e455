"""Reads of imports: which a member sees (``DataImport``), and their progress, for the API and the console."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import Member
from memory.models import DataImport
from memory.selectors.transfers import transfer_get, transfers_visible


def imports_visible(*, member: Member) -> QuerySet[DataImport]:
    return transfers_visible(DataImport, member=member)


def import_get(*, member: Member, import_id: Any) -> DataImport:
    return transfer_get(DataImport, member=member, pk=import_id, noun="import")


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
