"""Reads of exports: which a member sees (``DataExport``), for the API and the console."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts import access
from accounts.models import Member
from core.errors import NotFound
from memory.models import DataExport


def exports_visible(*, member: Member) -> QuerySet[DataExport]:
    """Owners and admins see every export of the enterprise; anyone else the exports they asked for."""
    exports = DataExport.objects.select_related("project").order_by("-created_at", "-pk")
    if access.member_may_manage(member):
        return exports
    return exports.filter(requested_by=member)


def export_get(*, member: Member, export_id: Any) -> DataExport:
    """One export this member sees; another's (or another enterprise's) is not found, as a missing one."""
    export = exports_visible(member=member).filter(pk=export_id).first()
    if export is None:
        raise NotFound("export not found", code="not_found")
    return export
