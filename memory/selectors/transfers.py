"""Which exports and imports (``DataExport``, ``DataImport``) a member sees, for the API and the console.

One rule for both: owners, admins and auditors see every one of the enterprise; anyone else the
ones they asked for. Another member's (or another enterprise's) is not found, as a missing one.
"""

from __future__ import annotations

from typing import Any, TypeVar

from django.db.models import QuerySet

from accounts import access
from accounts.models import Member
from core.errors import NotFound
from memory.models import DataExport, DataImport

_T = TypeVar("_T", DataExport, DataImport)


def transfers_visible(model: type[_T], *, member: Member) -> QuerySet[_T]:
    rows = model.objects.select_related("project").order_by("-created_at", "-pk")
    if access.member_sees_every_project(member):
        return rows
    return rows.filter(requested_by=member)


def transfer_get(model: type[_T], *, member: Member, pk: Any, noun: str) -> _T:
    found = transfers_visible(model, member=member).filter(pk=pk).first()
    if found is None:
        raise NotFound(f"{noun} not found", code="not_found")
    return found
