"""Erasure (the right to be forgotten): hard deletes, asked for, then confirmed. docs/lifecycle.md, "Erasure".

``forget`` stays soft. An erasure removes rows for good: a member's authored memories, or every memory
linked to an entity (a data subject, with its renames), and every memory derived from them
(``derived_from``, transitively: a summary of a subject's data is the subject's data). With the rows go
their vectors and full-text entries (columns of the row; the BM25 statistics and the plan's counts are
kept by the triggers on the table), their entity and tag links, memory links and import records (cascades),
idempotency records whose stored response names them, and, for an entity, the entity itself, its renames
and co-occurrence rows (the co-occurrence counts of the entities left are recomputed). Guard events keep
no content (rules and a reason) and are unlinked. Partner reads are live through links: nothing is copied
to the partner; a consumer's own aliases naming the entity are removed by the partners app's hook.
Finished exports that may hold the erased memories are withdrawn (link expired, file deleted).

What stays is the ``Erasure`` row, the tombstone: the memory ids, the rows removed per table, a sha256 over
the erased rows (``content_hash``, see ``erased_rows_hash``), who asked, who confirmed, when. Never the
content, never the subject's name (only the sha256 of the entity's folded key).
"""

from __future__ import annotations

import hashlib
import logging
import uuid
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import Q
from django.utils import timezone

from accounts import access
from accounts.models import Member
from accounts.services.audit import audit_record
from core.errors import Conflict, Forbidden, InvalidInput, NotFound
from memory.models import (
    DataExport,
    Entity,
    EntityCooccurrence,
    EntityRename,
    Erasure,
    ErasureState,
    ErasureSubject,
    ExportScope,
    GuardEvent,
    HoldTarget,
    IdempotencyRecord,
    ImportedRecord,
    LegalHold,
    LinkKind,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryTag,
    TaskRun,
    TransferState,
)
from memory.selectors.entities import entity_by_ref, entity_family
from memory.services.archivist import archivist_reembed
from memory.services.events import memory_erased_events_record
from memory.services.holds import hold_check, hold_refusal

logger = logging.getLogger(__name__)

ERASE_CHUNK = 1000  # memories per DELETE statement (its cascades load the related rows)

ERASURE_MANAGE_DENIED = "only an owner or an admin may request or confirm an erasure"
ERASURE_NOT_FOUND = "erasure not found"
ERASURE_SUBJECT_INVALID = "subject must be one of: member, entity"
ERASURE_MEMBER_NOT_FOUND = "no member '{ref}' in this enterprise"
ERASURE_ENTITY_NOT_FOUND = "no entity '{ref}' in this enterprise"
ERASURE_CANCELLED = "this erasure was cancelled: request a new one"
ERASURE_DONE = "this erasure is done already: it cannot be cancelled"
ERASURE_REASON_TOO_LONG = "the reason is at most 5000 characters"

# Called with the folded keys of the entities an erasure removes, in the erasure's transaction and tenant
# context; each returns how many rows of its own it removed (a later app's copies: partners' aliases).
ENTITY_ERASURE_HOOKS: dict[str, Callable[[list[str]], int]] = {}


def _manage_check(member: Member) -> None:
    if not access.member_may_manage(member):
        raise Forbidden(ERASURE_MANAGE_DENIED, code="erasure_forbidden")


def subject_hash(key: str) -> str:
    """The tombstone's trace of an entity: the sha256 of its folded key (``Entity.key``)."""
    return hashlib.sha256(key.encode()).hexdigest()


def erased_rows_hash(rows: Iterable[tuple[Any, str, str, Any]]) -> str:
    """sha256 over erased memories in id order: for each, its id, created_at (ISO 8601), summary and
    content, separated by U+001F and ended by U+001E. Whoever holds a copy of the rows (a backup, an
    export) can recompute it and show that exactly these rows were erased; the hash reveals nothing."""
    digest = hashlib.sha256()
    for memory_id, summary, content, created_at in rows:
        created = created_at.isoformat() if hasattr(created_at, "isoformat") else str(created_at)
        digest.update(f"{memory_id}\x1f{created}\x1f{summary}\x1f{content}\x1e".encode())
    return digest.hexdigest()


def with_derived(memory_ids: set[uuid.UUID]) -> set[uuid.UUID]:
    """The memories and everything derived from them (``derived_from``), transitively, forgotten or not."""
    found = set(memory_ids)
    frontier = list(memory_ids)
    while frontier:
        derived = set(Memory.objects.filter(derived_from__overlap=frontier).values_list("pk", flat=True))
        frontier = list(derived - found)
        found |= derived
    return found


@dataclass
class HardDeleted:
    """What ``memories_hard_delete`` removed: rows per table and the erased rows' hash."""

    counts: dict[str, int] = field(default_factory=dict)
    content_hash: str = ""
    memory_ids: list[str] = field(default_factory=list)
    project_ids: set[uuid.UUID] = field(default_factory=set)
    author_ids: set[uuid.UUID] = field(default_factory=set)
    project_of: dict[str, uuid.UUID] = field(default_factory=dict)  # each erased memory's project


_IDEMPOTENCY_NAMING = """
    SELECT r.id FROM memory_idempotencyrecord r
    WHERE EXISTS (
        SELECT 1 FROM jsonb_path_query(r.response, 'strict $.**') AS v
        WHERE jsonb_typeof(v) = 'string' AND (v #>> '{}') = ANY(%s)
    )
"""

_COOCCURRENCE_RECOUNT = """
    UPDATE memory_entitycooccurrence c SET count = (
        SELECT count(*) FROM memory_memoryentity x
        JOIN memory_memoryentity y ON y.memory_id = x.memory_id AND y.entity_id = c.b_id
        JOIN memory_memory m ON m.id = x.memory_id AND m.forgotten_at IS NULL
        WHERE x.entity_id = c.a_id
    )
    WHERE c.a_id = ANY(%s) AND c.b_id = ANY(%s)
"""


def _add(counts: dict[str, int], name: str, value: int) -> None:
    if value:
        counts[name] = counts.get(name, 0) + value


def memories_hard_delete(*, memory_ids: Iterable[uuid.UUID]) -> HardDeleted:
    """Delete these memories and everything that is only theirs, in the caller's transaction (holds are the
    caller's to check). Returns the rows removed per table and the erased rows' hash."""
    ids = sorted({uuid.UUID(str(i)) for i in memory_ids}, key=str)
    result = HardDeleted(memory_ids=[str(i) for i in ids])
    counts = result.counts
    if not ids:
        result.content_hash = erased_rows_hash([])
        return result
    rows = Memory.objects.filter(pk__any=ids).select_for_update().order_by("pk")
    digest_rows = []
    for memory_id, summary, content, created_at, project_id, author_id in rows.values_list(
        "pk", "summary", "content", "created_at", "project_id", "author_id"
    ):
        digest_rows.append((memory_id, summary, content, created_at))
        result.project_ids.add(project_id)
        result.project_of[str(memory_id)] = project_id
        if author_id is not None:
            result.author_ids.add(author_id)
    digest_rows.sort(key=lambda r: str(r[0]))
    result.content_hash = erased_rows_hash(digest_rows)
    ids = [r[0] for r in digest_rows]  # what exists now (a repeat finds fewer)
    result.memory_ids = [str(i) for i in ids]
    if not ids:
        return result
    touched_entities = sorted(
        set(MemoryEntity.objects.filter(memory_id__any=ids).values_list("entity_id", flat=True))
    )
    # Unlinked, not deleted (SET_NULL): guard events hold rules and a reason, never the text; task runs
    # lose the note they learned. Counted before the cascade does it.
    _add(counts, "guard_events_unlinked", GuardEvent.objects.filter(memory_id__any=ids).update(memory=None))
    _add(counts, "task_runs_unlinked", TaskRun.objects.filter(learned_id__any=ids).update(learned=None))
    _add(
        counts,
        "supersedes_unlinked",
        Memory.objects.filter(supersedes_id__any=ids).exclude(pk__any=ids).update(supersedes=None),
    )
    # The memories whose vectors were computed with an erased one's text as context get new vectors.
    successors = set(
        MemoryLink.objects.filter(kind=LinkKind.NEXT, src_id__any=ids).values_list("dst_id", flat=True)
    )
    archivist_reembed(memory_ids=successors - set(ids), successors=False)
    with connection.cursor() as cursor:
        cursor.execute(_IDEMPOTENCY_NAMING, [[str(i) for i in ids]])
        naming = [row[0] for row in cursor.fetchall()]
    if naming:
        _add(counts, "idempotency_records", IdempotencyRecord.objects.filter(pk__in=naming).delete()[0])
    for start in range(0, len(ids), ERASE_CHUNK):
        chunk = ids[start : start + ERASE_CHUNK]
        _add(counts, "memory_entities", MemoryEntity.objects.filter(memory_id__any=chunk).delete()[0])
        _add(counts, "memory_tags", MemoryTag.objects.filter(memory_id__any=chunk).delete()[0])
        _add(
            counts,
            "memory_links",
            MemoryLink.objects.filter(Q(src_id__any=chunk) | Q(dst_id__any=chunk)).delete()[0],
        )
        _add(counts, "imported_records", ImportedRecord.objects.filter(memory_id__any=chunk).delete()[0])
        _, removed = Memory.objects.filter(pk__any=chunk).delete()
        for label, count in removed.items():
            _add(counts, _table_name(label), count)
    if touched_entities:
        with connection.cursor() as cursor:
            cursor.execute(_COOCCURRENCE_RECOUNT, [touched_entities, touched_entities])
            _add(counts, "cooccurrences_recounted", cursor.rowcount)
        _add(
            counts,
            "cooccurrences",
            EntityCooccurrence.objects.filter(count=0)
            .filter(Q(a_id__in=touched_entities) | Q(b_id__in=touched_entities))
            .delete()[0],
        )
    return result


_TABLES = {
    "memory.Memory": "memories",
    "memory.MemoryEntity": "memory_entities",
    "memory.MemoryTag": "memory_tags",
    "memory.MemoryLink": "memory_links",
    "memory.ImportedRecord": "imported_records",
}


def _table_name(label: str) -> str:
    return _TABLES.get(label, label.split(".")[-1].lower())


# -- the request and its confirmation -----------------------------------------------------------------


@dataclass(frozen=True)
class ErasureTarget:
    """What an erasure reaches now: the memories (with their derived ones) and, for an entity, its family."""

    memory_ids: set[uuid.UUID]
    direct: int
    entities: list[Entity]


def _target(erasure: Erasure) -> ErasureTarget:
    if erasure.subject == ErasureSubject.MEMBER:
        direct = set(Memory.objects.filter(author_id=erasure.member_id).values_list("pk", flat=True))
        return ErasureTarget(memory_ids=with_derived(direct), direct=len(direct), entities=[])
    entity = Entity.objects.filter(pk=erasure.entity_id_erased).first()
    family = entity_family([entity]) if entity is not None else []
    direct = set(
        MemoryEntity.objects.filter(entity_id__in=[e.pk for e in family]).values_list("memory_id", flat=True)
    )
    return ErasureTarget(memory_ids=with_derived(direct), direct=len(direct), entities=family)


def _preview(target: ErasureTarget) -> dict[str, Any]:
    ids = list(target.memory_ids)
    memories = Memory.objects.filter(pk__any=ids)
    projects: dict[str, int] = {}
    for slug in memories.values_list("project__slug", flat=True):
        projects[slug] = projects.get(slug, 0) + 1
    return {
        "memories": len(ids),
        "memories_direct": target.direct,
        "memories_derived": len(ids) - target.direct,
        "forgotten_already": memories.filter(forgotten_at__isnull=False).count(),
        "projects": dict(sorted(projects.items())),
        "memory_entities": MemoryEntity.objects.filter(memory_id__any=ids).count(),
        "memory_tags": MemoryTag.objects.filter(memory_id__any=ids).count(),
        "entities": len(target.entities),
    }


@transaction.atomic
def erasure_request(
    *,
    member: Member,
    subject: str,
    member_ref: str | None = None,
    entity_ref: str | None = None,
    reason: str = "",
) -> Erasure:
    """Ask for an erasure: of a member's memories (``member_ref``: the member's id) or of every memory that
    names an entity (``entity_ref``: its id or a spelling of its name). Nothing is removed yet: the row, in
    state requested, carries a preview of what would go (``counts["preview"]``, with the hold that would
    refuse it, if any). Owners and admins only; audited (without the subject's name)."""
    _manage_check(member)
    if len(reason) > 5000:
        raise InvalidInput(ERASURE_REASON_TOO_LONG, code="invalid_input")
    erasure = Erasure(enterprise_id=member.enterprise_id, subject=subject, reason=reason, requested_by=member)
    if subject == ErasureSubject.MEMBER:
        ref = (member_ref or "").strip()
        found = _member_by_ref(ref)
        if found is None:
            raise NotFound(ERASURE_MEMBER_NOT_FOUND.format(ref=ref[:200]), code="not_found")
        erasure.member = found
    elif subject == ErasureSubject.ENTITY:
        ref = (entity_ref or "").strip()
        entity = entity_by_ref(ref) if ref else None
        if entity is None:
            raise NotFound(ERASURE_ENTITY_NOT_FOUND.format(ref=ref[:200]), code="not_found")
        erasure.entity_id_erased = entity.pk
        erasure.subject_hash = subject_hash(entity.key)
    else:
        raise InvalidInput(ERASURE_SUBJECT_INVALID, code="invalid_input")
    target = _target(erasure)
    preview = _preview(target)
    refused = _hold_refusal_for(target)
    if refused is not None:
        preview["held"] = {"error": refused.message, "hold_id": refused.extra.get("hold_id")}
    erasure.counts = {"preview": preview}
    erasure.save()
    audit_record(
        action="erasure.request",
        target=erasure,
        details={"subject": subject, "subject_hash": erasure.subject_hash, "preview": preview},
    )
    return erasure


def _member_by_ref(ref: str) -> Member | None:
    """A member named by its id, or by its user's username or email."""
    if not ref:
        return None
    if ref.isdigit():
        return Member.objects.filter(pk=int(ref)).first()
    return Member.objects.filter(Q(user__username=ref) | Q(user__email__iexact=ref)).first()


def _hold_refusal_for(target: ErasureTarget) -> Conflict | None:
    """The refusal a hold gives this erasure: one on any of its memories, or on the entity itself (even
    when no memory names it any more)."""
    try:
        hold_check(memories=target.memory_ids, action="erase")
    except Conflict as refused:
        return refused
    if target.entities:
        hold = (
            LegalHold.objects.filter(released_at__isnull=True, target=HoldTarget.ENTITY)
            .filter(entity_id__in=[e.pk for e in target.entities])
            .select_related("entity")
            .first()
        )
        if hold is not None:
            return hold_refusal(hold, 1, action="erase")
    return None


def _erasure_for_update(erasure_id: uuid.UUID | str) -> Erasure:
    try:
        pk = uuid.UUID(str(erasure_id))
    except ValueError as exc:
        raise NotFound(ERASURE_NOT_FOUND, code="not_found") from exc
    found = Erasure.objects.select_for_update().filter(pk=pk).first()
    if found is None:
        raise NotFound(ERASURE_NOT_FOUND, code="not_found")
    return found


@transaction.atomic
def erasure_confirm(*, member: Member, erasure_id: uuid.UUID | str) -> Erasure:
    """Confirm a requested erasure and carry it out, in one transaction: what the subject reaches now (which
    may differ from the preview) is removed, and the row becomes the tombstone. Refused (409, naming the
    hold) while any of it is under a legal hold. Owners and admins only, the requester included. Confirming
    a done erasure returns it unchanged."""
    _manage_check(member)
    erasure = _erasure_for_update(erasure_id)
    if erasure.state == ErasureState.DONE:
        return erasure
    if erasure.state == ErasureState.CANCELLED:
        raise Conflict(ERASURE_CANCELLED, code="erasure_cancelled")
    target = _target(erasure)
    refused = _hold_refusal_for(target)
    if refused is not None:
        raise refused
    deleted = memories_hard_delete(memory_ids=target.memory_ids)
    counts = deleted.counts
    if target.entities:
        keys = [e.key for e in target.entities]
        entity_ids = [e.pk for e in target.entities]
        # A released hold naming the entity would keep its row (PROTECT): the hold goes, its audit stays.
        _add(
            counts,
            "released_holds",
            LegalHold.objects.filter(entity_id__in=entity_ids, released_at__isnull=False).delete()[0],
        )
        _add(
            counts,
            "entity_renames",
            EntityRename.objects.filter(Q(old_id__in=entity_ids) | Q(new_id__in=entity_ids)).delete()[0],
        )
        _add(
            counts,
            "cooccurrences",
            EntityCooccurrence.objects.filter(Q(a_id__in=entity_ids) | Q(b_id__in=entity_ids)).delete()[0],
        )
        _add(counts, "entities", Entity.objects.filter(pk__in=entity_ids).delete()[1].get("memory.Entity", 0))
        for name, hook in ENTITY_ERASURE_HOOKS.items():
            _add(counts, name, hook(keys))
    _add(counts, "exports_withdrawn", _withdraw_exports(erasure, deleted))
    erasure.state = ErasureState.DONE
    erasure.memory_ids = [uuid.UUID(i) for i in deleted.memory_ids]
    erasure.counts = counts
    erasure.content_hash = deleted.content_hash
    erasure.confirmed_by = member
    erasure.done_at = timezone.now()
    erasure.save()
    memory_erased_events_record(project_of=deleted.project_of, erasure_id=str(erasure.pk))
    audit_record(
        action="erasure.confirm",
        target=erasure,
        details={
            "subject": erasure.subject,
            "subject_hash": erasure.subject_hash,
            "memories": len(deleted.memory_ids),
            "counts": counts,
            "content_hash": deleted.content_hash,
        },
    )
    return erasure


@transaction.atomic
def erasure_cancel(*, member: Member, erasure_id: uuid.UUID | str) -> Erasure:
    """Cancel a requested erasure (nothing was removed). Cancelling a cancelled one changes nothing."""
    _manage_check(member)
    erasure = _erasure_for_update(erasure_id)
    if erasure.state == ErasureState.DONE:
        raise Conflict(ERASURE_DONE, code="erasure_done")
    if erasure.state == ErasureState.REQUESTED:
        erasure.state = ErasureState.CANCELLED
        erasure.save(update_fields=["state"])
        audit_record(action="erasure.cancel", target=erasure, details={"subject": erasure.subject})
    return erasure


def _withdraw_exports(erasure: Erasure, deleted: HardDeleted) -> int:
    """Finished exports that may hold what was erased: their link expires now and their file is deleted
    once the erasure commits (the enterprise's, the erased projects', the erased authors' own)."""
    if not deleted.memory_ids:
        return 0
    now = timezone.now()
    covering = DataExport.objects.filter(state=TransferState.DONE).filter(
        Q(scope=ExportScope.ENTERPRISE)
        | Q(scope=ExportScope.PROJECT, project_id__in=deleted.project_ids)
        | Q(scope=ExportScope.MEMBER, member_id__in=deleted.author_ids)
    )
    covering = covering.filter(Q(expires_at__isnull=True) | Q(expires_at__gt=now))
    exports = list(covering.values_list("pk", "path"))
    if not exports:
        return 0
    DataExport.objects.filter(pk__in=[pk for pk, _ in exports]).update(
        expires_at=now, error=f"withdrawn by erasure {erasure.pk}"
    )
    paths = [path for _, path in exports if path]

    def remove_files() -> None:
        root = Path(settings.LIFECYCLE_DIR).resolve()
        for path in paths:
            file = (root / path).resolve() if not Path(path).is_absolute() else Path(path).resolve()
            if root in file.parents:
                try:
                    file.unlink(missing_ok=True)
                except OSError as exc:  # the row says withdrawn; the operator removes a stuck file
                    logger.warning("erasure %s: export file %s not removed: %s", erasure.pk, file, exc)

    transaction.on_commit(remove_files)
    return len(exports)
