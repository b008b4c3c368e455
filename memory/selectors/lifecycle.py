"""Reads of the data lifecycle's records for the console's pages: exports, imports, retention policies,
erasures (docs/lifecycle.md, "Console"). Who sees which is decided by the selectors they narrow
(``exports_visible``, ``imports_visible``) or by the pages' oversight check (policies, erasures)."""

from __future__ import annotations

import uuid
from typing import Any

from django.db.models import F

from accounts.models import Member
from memory.models import (
    DataExport,
    DataImport,
    Entity,
    Erasure,
    ErasureState,
    ErasureSubject,
    LegalHold,
    RetentionPolicy,
    TransferState,
)
from memory.selectors.exports import exports_visible
from memory.selectors.imports import imports_visible

LIST_LIMIT = 50
RUNNING = (TransferState.PENDING, TransferState.RUNNING)


def exports_listed(*, member: Member, limit: int = LIST_LIMIT) -> list[DataExport]:
    """The latest exports this member sees, with who asked for each (one query)."""
    return list(exports_visible(member=member).select_related("requested_by__user")[:limit])


def imports_listed(*, member: Member, limit: int = LIST_LIMIT) -> list[DataImport]:
    """The latest imports this member sees, with who asked for each (one query)."""
    return list(imports_visible(member=member).select_related("requested_by__user")[:limit])


def transfers_running(rows: list[DataExport] | list[DataImport]) -> bool:
    """Whether any of these exports or imports still waits or runs (the page polls while one does)."""
    return any(row.state in RUNNING for row in rows)


def retention_policies_list() -> list[RetentionPolicy]:
    """The tenant's retention policies, oldest first (the order they apply in), with their project."""
    return list(
        RetentionPolicy.objects.select_related("project", "created_by__user").order_by("created_at", "pk")
    )


def holds_listed(*, limit: int = 200) -> list[LegalHold]:
    """Every hold, active ones first, then released ones, newest first, with who placed and released it
    and what it holds (one query)."""
    holds = LegalHold.objects.select_related(
        "project", "entity", "tag", "created_by__user", "released_by__user"
    )
    return list(holds.order_by(F("released_at").desc(nulls_first=True), "-created_at")[:limit])


def erasures_list(*, limit: int = 100) -> list[Erasure]:
    """Erasures, newest first: the requests awaiting confirmation, and the tombstones of done ones."""
    return list(
        Erasure.objects.select_related("member__user", "requested_by__user", "confirmed_by__user").order_by(
            "-created_at", "-pk"
        )[:limit]
    )


def erasure_get(*, erasure_id: Any) -> Erasure | None:
    """One erasure of the tenant (another tenant's is not found, as a missing one)."""
    try:
        pk = uuid.UUID(str(erasure_id))
    except ValueError:
        return None
    return (
        Erasure.objects.select_related("member__user", "requested_by__user", "confirmed_by__user")
        .filter(pk=pk)
        .first()
    )


def erasure_awaits_confirmation(erasure: Erasure) -> bool:
    return erasure.state == ErasureState.REQUESTED


def erasure_subject_label(erasure: Erasure) -> str:
    """Who or what an erasure is about, as the confirmation names it: the member's username, or the
    entity's name while it exists (once erased only its id is left: the tombstone keeps no name)."""
    if erasure.subject == ErasureSubject.MEMBER:
        return f"member {erasure.member.user.username}" if erasure.member else "a member no longer here"
    name = Entity.objects.filter(pk=erasure.entity_id_erased).values_list("name", flat=True).first()
    return f"entity {name}" if name is not None else f"entity #{erasure.entity_id_erased} (erased)"
