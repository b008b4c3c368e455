"""Reads of exports: which a member sees (the rule: memory/selectors/transfers.py)."""

from __future__ import annotations

from typing import Any

from django.db.models import QuerySet

from accounts.models import Member
from memory.models import DataExport
from memory.selectors.transfers import transfer_get, transfers_visible


def exports_visible(*, member: Member) -> QuerySet[DataExport]:
    return transfers_visible(DataExport, member=member)


def export_get(*, member: Member, export_id: Any) -> DataExport:
    return transfer_get(DataExport, member=member, pk=export_id, noun="export")
