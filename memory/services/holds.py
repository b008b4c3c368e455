"""Legal holds, written: place one on a project, an entity or a tag, release it, and the one check
every destructive path asks (forget, erasure, retention). docs/lifecycle.md, "Legal hold".

Only owners and admins place or release a hold (``accounts.access.member_may_manage``); auditors see
them in the read-only admin. Both are audited. A hold is never deleted: released, it stays on record.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable

from django.db import transaction
from django.db.models import QuerySet
from django.utils import timezone

from accounts import access
from accounts.models import Member, Project
from accounts.services.audit import audit_record
from core.errors import Conflict, Forbidden, InvalidInput, NotFound
from memory.models import HoldTarget, LegalHold, Memory, Tag
from memory.selectors.entities import entity_by_ref
from memory.selectors.holds import HeldScope, hold_label, memory_hold_first

MAX_NAME = 200
MAX_REASON = 5000

HOLD_MANAGE_DENIED = "only an owner or an admin may place or release a legal hold"
HOLD_NOT_FOUND = "legal hold not found"
HOLD_TARGET_INVALID = "target must be one of: project, entity, tag"
HOLD_NAME_REQUIRED = "a legal hold needs a name (1 to 200 characters)"
HOLD_REASON_TOO_LONG = "the reason is at most 5000 characters"
HOLD_PROJECT_NOT_FOUND = "no project '{ref}' in this enterprise"
HOLD_ENTITY_NOT_FOUND = "no entity '{ref}' in this enterprise"
HOLD_TAG_NOT_FOUND = "no tag '{ref}' in this enterprise"
# The refusal every destructive path gives (forget, erasure, retention), naming the hold.
HELD_ONE = "memory is under legal hold '{name}' ({label}): it cannot be forgotten, erased or aged out"
HELD_MANY = (
    "{count} memories are under legal hold '{name}' ({label}): they cannot be forgotten, erased or aged out"
)


def _manage_check(member: Member) -> None:
    if not access.member_may_manage(member):
        raise Forbidden(HOLD_MANAGE_DENIED, code="hold_forbidden")


@transaction.atomic
def hold_create(*, member: Member, target: str, ref: str, name: str, reason: str = "") -> LegalHold:
    """Place a hold on a project (``ref``: its slug), an entity (its id or any spelling of its name) or a
    tag (its path; the tags below it are held too). Audited."""
    _manage_check(member)
    name = name.strip()
    if not name or len(name) > MAX_NAME:
        raise InvalidInput(HOLD_NAME_REQUIRED, code="invalid_input")
    if len(reason) > MAX_REASON:
        raise InvalidInput(HOLD_REASON_TOO_LONG, code="invalid_input")
    ref = ref.strip()
    hold = LegalHold(
        enterprise_id=member.enterprise_id, name=name, target=target, reason=reason, created_by=member
    )
    if target == HoldTarget.PROJECT:
        hold.project = Project.objects.filter(slug=ref).first()
        if hold.project is None:
            raise NotFound(HOLD_PROJECT_NOT_FOUND.format(ref=ref[:200]), code="not_found")
    elif target == HoldTarget.ENTITY:
        hold.entity = entity_by_ref(ref) if ref else None
        if hold.entity is None:
            raise NotFound(HOLD_ENTITY_NOT_FOUND.format(ref=ref[:200]), code="not_found")
    elif target == HoldTarget.TAG:
        hold.tag = Tag.objects.filter(path=ref.strip("/")).first() if ref else None
        if hold.tag is None:
            raise NotFound(HOLD_TAG_NOT_FOUND.format(ref=ref[:200]), code="not_found")
    else:
        raise InvalidInput(HOLD_TARGET_INVALID, code="invalid_input")
    hold.save()
    audit_record(
        action="legal_hold.create",
        target=hold,
        details={"name": name, **_held_thing(hold), "reason": reason[:500]},
    )
    return hold


@transaction.atomic
def hold_release(*, member: Member, hold_id: uuid.UUID | str, note: str = "") -> LegalHold:
    """Release a hold (it stays on record, with who released it and when). Releasing a released hold
    changes nothing. Audited."""
    _manage_check(member)
    try:
        pk = uuid.UUID(str(hold_id))
    except ValueError as exc:
        raise NotFound(HOLD_NOT_FOUND, code="not_found") from exc
    hold = (
        LegalHold.objects.select_for_update(of=("self",))
        .select_related("project", "entity", "tag")
        .filter(pk=pk)
        .first()
    )
    if hold is None:
        raise NotFound(HOLD_NOT_FOUND, code="not_found")
    if hold.released_at is not None:
        return hold
    hold.released_at = timezone.now()
    hold.released_by = member
    hold.save(update_fields=["released_at", "released_by"])
    audit_record(
        action="legal_hold.release",
        target=hold,
        details={"name": hold.name, **_held_thing(hold), "note": note[:500]},
    )
    return hold


def _held_thing(hold: LegalHold) -> dict[str, str | int | None]:
    """What a hold holds, for its audit: an entity by id only (an erasure may remove its name later)."""
    if hold.target == HoldTarget.PROJECT:
        return {"target": hold.target, "project": hold.project.slug if hold.project else None}
    if hold.target == HoldTarget.ENTITY:
        return {"target": hold.target, "entity_id": hold.entity_id}
    return {"target": hold.target, "tag": hold.tag.path if hold.tag else None}


def hold_refusal(hold: LegalHold, count: int = 1, *, action: str = "") -> Conflict:
    """The error a destructive path (``action``: forget, erase, retention) answers when ``count`` of its
    memories are held by ``hold``: 409 ``legal_hold``, with the hold's id."""
    text = HELD_ONE if count == 1 else HELD_MANY
    return Conflict(
        text.format(name=hold.name, label=hold_label(hold), count=count),
        code="legal_hold",
        hold_id=str(hold.pk),
        refused=action,
    )


def hold_check(
    *,
    memories: QuerySet[Memory] | Iterable[uuid.UUID | str],
    action: str,
    scope: HeldScope | None = None,
) -> None:
    """Refuse (409 ``legal_hold``, naming the hold) when any of these memories is held. ``action``
    (forget, erase, retention) is named in the answer; a hold blocks them all alike."""
    found = memory_hold_first(memories, scope=scope)
    if found is not None:
        hold, count = found
        raise hold_refusal(hold, count, action=action)
