"""update_memory (seed aiakiv): correct entities, tags, sequence, resolved-by and renames.

The stored text is never modified. Each list item is judged on its own: what
cannot be done comes back in the matching ``rejected_*`` list with a reason.
"""

from __future__ import annotations

from typing import Annotated, Any

from django.utils import timezone
from pydantic import Field

from accounts import access
from accounts.errors import NotFound
from accounts.services.audit import audit_record
from accounts.tasks import enqueue
from memory.models import Entity, EntityRename, LinkKind, Memory, MemoryEntity, MemoryLink, MemoryTag, Tag
from memory.registry import ToolCall, ToolSpec, registry
from memory.selectors.visibility import memory_get_visible
from memory.services.guarding import guard_fields
from memory.services.memories import entity_get_or_create, fold, link_tags
from memory.tools.common import ID_MAX, ITEMS_MAX, NAME_LOOKUP_MAX, TAG_MAX, TAGS_MAX, Closed, RowId
from memory.tools.save import EntityIn, TagPath, normal_tag, tag_rejection

REGISTERED_APPS = ("plan", "novel", "expectation", "intent")
CONFLICTING = "conflicting_request"
NOT_FOUND = "memory not found"


EventId = Annotated[str, Field(max_length=ID_MAX)]
# An entity by name or id (a lookup: any stored spelling).
EntityRef = Annotated[str, Field(max_length=NAME_LOOKUP_MAX)]
# Each list takes at most ITEMS_MAX items (tags: TAGS_MAX) per call; a longer correction is split across calls.
MAX_RELATION = 50  # the link table's relation column


class ResolvedByItem(Closed):
    event_id: EventId = Field(description="The evidence event.")
    relation: str = Field(
        default="realization",
        max_length=MAX_RELATION,
        description="How it resolves this event; defaults to realization. Up to 50 characters.",
    )


class RenameItem(Closed):
    old: EntityRef = Field(description="The entity's former name, or its id.")
    new: EntityRef = Field(description="The entity's current name, or its id.")


class UpdateMemoryIn(Closed):
    event_id: EventId = Field(description="The event to correct.")
    remove_entities: list[EntityRef] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Entity names or ids to unlink (at most 100); orphans are deprecated.",
    )
    add_entities: list[EntityIn] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="New entities [{name, type}, ...] (at most 100); creates one when the exact spelling does not "
        "exist.",
    )
    add_entity_ids: list[RowId] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Existing entity ids to link (at most 100), never creating; failures come back in "
        "rejected_entity_ids.",
    )
    add_tags: list[TagPath] | None = Field(
        default=None,
        max_length=TAGS_MAX,
        description="Tags to attach, existing or new (same name rules as save_memory; at most 50 per call, each up "
        f"to {TAG_MAX} characters, no separate limit on new tags).",
    )
    remove_tags: list[TagPath] | None = Field(
        default=None,
        max_length=TAGS_MAX,
        description="Tag leaf names, paths or group ids to detach (at most 50).",
    )
    add_prev_events: list[EventId] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Event ids that come before this one, linking other -> event_id (at most 100).",
    )
    remove_prev_events: list[EventId] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Event ids to unlink from the front of this event (at most 100); ingestion links are "
        "protected_source.",
    )
    add_resolved_by: list[ResolvedByItem] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Evidence events that resolved this one (this event is the plan or intent; at most 100).",
    )
    revoke_resolved_by: list[ResolvedByItem] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Same item shape, taking the edge down (soft: re-adding revives it; at most 100).",
    )
    add_entity_renames: list[RenameItem] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="Pairs {old, new} recording that an entity was renamed; both must already exist (at most 100).",
    )
    remove_entity_renames: list[RenameItem] | None = Field(
        default=None, max_length=ITEMS_MAX, description="Same shape, removing such a pair (at most 100)."
    )


class Rejected(Closed):
    item: Any = Field(description="The item as given.")
    reason: str = Field(description="Why it was not applied.")


class LinkedEntity(Closed):
    id: int = Field(description="Entity id.")
    name: str = Field(description="Entity name.")
    type: str = Field(description="Entity type.")


class GraphDelta(Closed):
    entities_added: list[str] = Field(description="Entities newly linked to the event.")
    entities_removed: list[str] = Field(description="Entities unlinked from the event.")
    tags_added: list[str] = Field(description="Tags attached.")
    tags_removed: list[str] = Field(description="Tags detached.")
    cooccurrence_resync: str = Field(
        description="queued when entity co-occurrence (CONNECTED) is being recomputed."
    )


class UpdateMemoryOut(Closed):
    event_id: str = Field(description="The corrected event.")
    removed_count: int = Field(description="Entity links removed.")
    added_count: int = Field(description="Entity links added.")
    now_linked_entities: list[LinkedEntity] = Field(description="The entities linked after the update.")
    orphaned_entities: list[LinkedEntity] = Field(
        description="Entities left without any event, now deprecated."
    )
    added_tags: list[str] | None = Field(default=None, description="Tags attached.")
    removed_tags: list[str] | None = Field(default=None, description="Tags detached.")
    rejected_tags: list[Rejected] | None = Field(default=None, description="Tags refused, with reasons.")
    rejected_entity_ids: list[Rejected] | None = Field(
        default=None, description="add_entity_ids refused, with reasons."
    )
    added_prev_events: list[str] | None = Field(
        default=None, description="Events now linked before this one."
    )
    removed_prev_events: list[str] | None = Field(default=None, description="Events unlinked from the front.")
    rejected_prev_events: list[Rejected] | None = Field(
        default=None, description="Sequence changes refused, with reasons."
    )
    added_resolved_by: list[ResolvedByItem] | None = Field(
        default=None, description="Resolved-by edges added or revived."
    )
    already_linked_resolved_by: list[ResolvedByItem] | None = Field(
        default=None, description="Edges that already stood."
    )
    revoked_resolved_by: list[ResolvedByItem] | None = Field(
        default=None, description="Edges taken down (soft)."
    )
    rejected_resolved_by: list[Rejected] | None = Field(
        default=None, description="Resolved-by changes refused, with reasons."
    )
    added_entity_renames: list[RenameItem] | None = Field(default=None, description="Rename pairs recorded.")
    removed_entity_renames: list[RenameItem] | None = Field(default=None, description="Rename pairs removed.")
    rejected_entity_renames: list[Rejected] | None = Field(
        default=None, description="Rename changes refused, with reasons."
    )
    graph_delta: GraphDelta | None = Field(
        default=None, description="The derived-layer re-sync when participation or tags actually changed."
    )


def _entity_by_ref(ref: str | int) -> Entity | None:
    text = str(ref).strip()
    if text.isdigit():
        found = Entity.objects.filter(pk=int(text)).first()
        if found is not None:
            return found
    return Entity.objects.filter(key=fold(text)).first()


class _Update:
    def __init__(self, call: ToolCall, memory: Memory) -> None:
        self.call, self.memory = call, memory
        self.out: dict[str, Any] = {"removed_count": 0, "added_count": 0}
        self.entities_changed: dict[str, list[str]] = {"added": [], "removed": []}
        self.tags_changed: dict[str, list[str]] = {"added": [], "removed": []}

    def push(self, name: str, value: Any) -> None:
        self.out.setdefault(name, []).append(value)

    # Entities ------------------------------------------------------------------------------
    def remove_entities(self, refs: list[str]) -> None:
        for ref in refs:
            entity = _entity_by_ref(ref)
            if entity is None:
                continue
            deleted, _ = MemoryEntity.objects.filter(memory=self.memory, entity=entity).delete()
            if deleted:
                self.out["removed_count"] += 1
                self.entities_changed["removed"].append(entity.name)
                if not MemoryEntity.objects.filter(entity=entity).exists():
                    entity.deprecated = True
                    entity.save(update_fields=["deprecated"])
                    self.push(
                        "orphaned_entities", LinkedEntity(id=entity.pk, name=entity.name, type=entity.type)
                    )

    def _link(self, entity: Entity) -> None:
        _, created = MemoryEntity.objects.get_or_create(
            enterprise_id=self.memory.enterprise_id, memory=self.memory, entity=entity
        )
        if created:
            self.out["added_count"] += 1
            self.entities_changed["added"].append(entity.name)

    def add_entities(self, items: list[EntityIn]) -> None:
        scanned = guard_fields(
            {f"add_entities[{i}]": e.name for i, e in enumerate(items)}, tool="update_memory"
        )
        for i, item in enumerate(items):
            entity, _ = entity_get_or_create(name=scanned.values[f"add_entities[{i}]"], type=item.type)
            self._link(entity)

    def add_entity_ids(self, ids: list[int]) -> None:
        for entity_id in ids:
            entity = Entity.objects.filter(pk=entity_id).first()
            if entity is None:
                self.push("rejected_entity_ids", Rejected(item=entity_id, reason="no such entity"))
                continue
            self._link(entity)

    # Tags ----------------------------------------------------------------------------------
    def add_tags(self, raw: list[str]) -> None:
        accepted = []
        for tag in raw:
            path = normal_tag(tag)
            reason = tag_rejection(path)
            if reason:
                self.push("rejected_tags", Rejected(item=tag, reason=reason))
            else:
                accepted.append(path)
        scanned = guard_fields({f"add_tags[{i}]": p for i, p in enumerate(accepted)}, tool="update_memory")
        before = set(MemoryTag.objects.filter(memory=self.memory).values_list("tag__path", flat=True))
        for linked in link_tags(
            self.memory, [scanned.values[f"add_tags[{i}]"] for i in range(len(accepted))]
        ):
            if linked.path not in before:
                self.push("added_tags", linked.path)
                self.tags_changed["added"].append(linked.path)

    def remove_tags(self, refs: list[str]) -> None:
        for ref in refs:
            text = str(ref).strip()
            links = MemoryTag.objects.filter(memory=self.memory).select_related("tag")
            matched = [
                link
                for link in links
                if link.tag.path == normal_tag(text)
                or link.tag.name == normal_tag(text)
                or str(link.tag_id) == text
                or (text.isdigit() and _under(link.tag, int(text)))
            ]
            for link in matched:
                link.delete()
                self.push("removed_tags", link.tag.path)
                self.tags_changed["removed"].append(link.tag.path)

    # Sequence ------------------------------------------------------------------------------
    def prev_events(self, add: list[str], remove: list[str]) -> None:
        both = set(add) & set(remove)
        for event_id in sorted(both):
            self.push("rejected_prev_events", Rejected(item=event_id, reason=CONFLICTING))
        for event_id in [e for e in add if e not in both]:
            other = memory_get_visible(member=self.call.member, key=self.call.access_key, memory_id=event_id)
            if other is None or other.pk == self.memory.pk:
                self.push("rejected_prev_events", Rejected(item=event_id, reason="unknown event"))
                continue
            MemoryLink.objects.get_or_create(
                enterprise_id=self.memory.enterprise_id, kind=LinkKind.NEXT, src=other, dst=self.memory
            )
            self.push("added_prev_events", str(other.pk))
        for event_id in [e for e in remove if e not in both]:
            link = MemoryLink.objects.filter(
                kind=LinkKind.NEXT, src_id=_uuid_or_none(event_id), dst=self.memory
            ).first()
            if link is None:
                self.push("rejected_prev_events", Rejected(item=event_id, reason="not linked"))
            elif link.protected:
                self.push("rejected_prev_events", Rejected(item=event_id, reason="protected_source"))
            else:
                link.delete()
                self.push("removed_prev_events", event_id)

    # Resolved-by ---------------------------------------------------------------------------
    def resolved_by(self, add: list[ResolvedByItem], revoke: list[ResolvedByItem]) -> None:
        pairs = {(i.event_id, i.relation) for i in add} & {(i.event_id, i.relation) for i in revoke}
        for item in [*add, *revoke]:
            if (item.event_id, item.relation) in pairs:
                self.push("rejected_resolved_by", Rejected(item=item.model_dump(), reason=CONFLICTING))
        for item in [i for i in add if (i.event_id, i.relation) not in pairs]:
            evidence = memory_get_visible(
                member=self.call.member, key=self.call.access_key, memory_id=item.event_id
            )
            reason = self._resolved_by_refusal(item, evidence)
            if reason:
                self.push("rejected_resolved_by", Rejected(item=item.model_dump(), reason=reason))
                continue
            link, created = MemoryLink.objects.get_or_create(
                enterprise_id=self.memory.enterprise_id,
                kind=LinkKind.RESOLVED_BY,
                src=self.memory,
                dst=evidence,
                defaults={"relation": item.relation},
            )
            if created or link.revoked_at is not None or link.relation != item.relation:
                link.revoked_at, link.relation, link.asserted_at = None, item.relation, timezone.now()
                link.save(update_fields=["revoked_at", "relation", "asserted_at"])
                self.push("added_resolved_by", item)
            else:
                self.push("already_linked_resolved_by", item)
        for item in [i for i in revoke if (i.event_id, i.relation) not in pairs]:
            link = MemoryLink.objects.filter(
                kind=LinkKind.RESOLVED_BY,
                src=self.memory,
                dst_id=_uuid_or_none(item.event_id),
                relation=item.relation,
                revoked_at__isnull=True,
            ).first()
            if link is None:
                self.push("rejected_resolved_by", Rejected(item=item.model_dump(), reason="not linked"))
                continue
            link.revoked_at = timezone.now()
            link.save(update_fields=["revoked_at"])
            self.push("revoked_resolved_by", item)

    def _resolved_by_refusal(self, item: ResolvedByItem, evidence: Memory | None) -> str | None:
        if evidence is None or evidence.pk == self.memory.pk:
            return "unknown event"
        if item.relation == "realization":
            tag_roots = {
                p.split("/", 1)[0].lstrip("#")
                for p in MemoryTag.objects.filter(memory=self.memory).values_list("tag__path", flat=True)
            }
            if not tag_roots & set(REGISTERED_APPS):
                return "realization needs this event to come from a registered app (#plan, #novel, ...)"
            if evidence.team_id != self.memory.team_id:
                return "realization needs both ends in the same team part"
        return None

    # Renames -------------------------------------------------------------------------------
    def renames(self, add: list[RenameItem], remove: list[RenameItem]) -> None:
        pairs = {(i.old, i.new) for i in add} & {(i.old, i.new) for i in remove}
        for item in [*add, *remove]:
            if (item.old, item.new) in pairs:
                self.push("rejected_entity_renames", Rejected(item=item.model_dump(), reason=CONFLICTING))
        for item in [i for i in add if (i.old, i.new) not in pairs]:
            old, new = _entity_by_ref(item.old), _entity_by_ref(item.new)
            if old is None or new is None or old.pk == new.pk:
                self.push(
                    "rejected_entity_renames",
                    Rejected(item=item.model_dump(), reason="both entities must already exist and differ"),
                )
                continue
            EntityRename.objects.get_or_create(enterprise_id=self.memory.enterprise_id, old=old, new=new)
            self._link(old)
            self._link(new)
            self.push("added_entity_renames", item)
        for item in [i for i in remove if (i.old, i.new) not in pairs]:
            old, new = _entity_by_ref(item.old), _entity_by_ref(item.new)
            deleted = EntityRename.objects.filter(old=old, new=new).delete()[0] if old and new else 0
            if deleted:
                self.push("removed_entity_renames", item)
            else:
                self.push(
                    "rejected_entity_renames", Rejected(item=item.model_dump(), reason="no such rename")
                )


def _under(tag: Tag, group_id: int) -> bool:
    node: Tag | None = tag
    while node is not None:
        if node.pk == group_id:
            return True
        node = node.parent
    return False


def _uuid_or_none(value: str) -> str | None:
    import uuid

    try:
        return str(uuid.UUID(str(value)))
    except ValueError:
        return None


def update_memory(call: ToolCall, args: UpdateMemoryIn) -> UpdateMemoryOut:
    memory = memory_get_visible(member=call.member, key=call.access_key, memory_id=args.event_id)
    if memory is None:
        raise NotFound(NOT_FOUND, code="not_found")
    access.place_write_check(
        member=call.member, key=call.access_key, project=memory.project, workspace_id=memory.workspace_id
    )
    update = _Update(call, memory)
    update.remove_entities(args.remove_entities or [])
    update.add_entities(args.add_entities or [])
    update.add_entity_ids(args.add_entity_ids or [])
    update.add_tags(args.add_tags or [])
    update.remove_tags(args.remove_tags or [])
    update.prev_events(args.add_prev_events or [], args.remove_prev_events or [])
    update.resolved_by(args.add_resolved_by or [], args.revoke_resolved_by or [])
    update.renames(args.add_entity_renames or [], args.remove_entity_renames or [])
    linked = Entity.objects.filter(memory_links__memory=memory).order_by("name")
    out = update.out
    out["event_id"] = str(memory.pk)
    out["now_linked_entities"] = [LinkedEntity(id=e.pk, name=e.name, type=e.type) for e in linked]
    out.setdefault("orphaned_entities", [])
    participation = any(update.entities_changed.values())
    tags = any(update.tags_changed.values())
    if participation or tags:
        out["graph_delta"] = GraphDelta(
            entities_added=update.entities_changed["added"],
            entities_removed=update.entities_changed["removed"],
            tags_added=update.tags_changed["added"],
            tags_removed=update.tags_changed["removed"],
            cooccurrence_resync="queued" if participation else "unchanged",
        )
        if participation:
            from memory.tasks import archivist_process

            enqueue(archivist_process, enterprise_id=str(memory.enterprise_id), memory_id=str(memory.pk))
    audit_record(
        action="memory.update",
        target=memory,
        details={
            k: len(v) if isinstance(v, list) else v for k, v in out.items() if isinstance(v, (list, int))
        },
    )
    return UpdateMemoryOut(**out)


registry.register(
    ToolSpec(
        name="update_memory",
        toolset="aiakiv",
        title="Correct a saved memory",
        summary="Correct the entities, tags, sequence, resolved-by links and renames of a saved event.",
        description=(
            "Correct the entities, tags, and order links on a saved event. Use this when the user says a saved "
            "memory has a wrong or missing entity or tag, that two saves belong in sequence, or that something was "
            "renamed. Do not use it to change the saved text; the stored content is never modified. Writes to an "
            "existing record. Args: event_id: The event to correct. remove_entities: Entity names or ids to unlink; "
            "orphans are deprecated. add_entities: New entities [{name, type}, ...]; creates one when the exact "
            "spelling does not exist. add_entity_ids: Existing entity ids to link, never creating. Each is "
            "re-validated; failures come back in `rejected_entity_ids`. Idempotent. add_tags: Tags to attach, "
            "existing or new, when the user asks for them. Same name rules as `save_memory`, with no limit on new "
            "tags. remove_tags: Tag leaf names or group ids to detach. add_prev_events: Event ids that come before "
            "this one, linking `other -> event_id`, for saves that belong together but were not chained at save "
            "time. remove_prev_events: Event ids to unlink from the front of this event. Links carrying document "
            "structure from ingestion are refused as `protected_source` and cannot be rebuilt. The direction is "
            'always "prev", so cutting a link on the other side means running this on the later event. An id in '
            "both lists is refused as `conflicting_request` and neither operation runs. add_resolved_by: Evidence "
            'events that resolved this one — items are `{"event_id": "...", "relation": "realization"}`, '
            "where `relation` defaults to `realization`. This event is the plan or intent, and each listed event is "
            "the evidence. Write access is needed on this event and read access on the peer. For `realization` "
            "this event must come from a registered app (`#plan`, `#novel`, ...) and both ends must sit in the "
            "same team part. revoke_resolved_by: Same item shape, taking the edge down. The revoke is soft: the "
            "assertion is preserved, and re-adding the same pair later revives it rather than creating a second "
            "edge. The same pair in both lists is refused as `conflicting_request`. add_entity_renames: Pairs "
            '`{"old": "...", "new": "..."}` (entity names or ids) recording that an entity was renamed, so a '
            "lookup by either name also returns the other. Both must already exist; each pair also links both "
            "entities to this event. Idempotent; failures come back in `rejected_entity_renames`. "
            "remove_entity_renames: Same shape, removing such a pair. Entity links stay. A pair in both lists is "
            "refused as `conflicting_request`. Returns: `{event_id, removed_count, added_count, "
            "now_linked_entities, orphaned_entities, added_tags?, removed_tags?, rejected_tags?, "
            "rejected_entity_ids?, added_prev_events?, removed_prev_events?, rejected_prev_events?, "
            "added_resolved_by?, already_linked_resolved_by?, revoked_resolved_by?, rejected_resolved_by?, "
            "added_entity_renames?, removed_entity_renames?, rejected_entity_renames?, graph_delta?}`. "
            "`graph_delta` reports the derived-layer re-sync when participation or tags actually changed; a "
            "link-only edit feeds no derived layer and carries none."
        ),
        input_model=UpdateMemoryIn,
        output_model=UpdateMemoryOut,
        scope="memory:write",
        handler=update_memory,
        read_only=False,
        idempotent=True,
        retry="Idempotent: repeating the same corrections leaves the same state (adds and removes are set operations).",
        returns=(
            "{ event_id, removed_count, added_count, now_linked_entities, orphaned_entities, added_tags?, "
            "removed_tags?, rejected_tags?, rejected_entity_ids?, added_prev_events?, removed_prev_events?, "
            "rejected_prev_events?, added_resolved_by?, already_linked_resolved_by?, revoked_resolved_by?, "
            "rejected_resolved_by?, added_entity_renames?, removed_entity_renames?, rejected_entity_renames?, "
            "graph_delta? }"
        ),
        examples=(
            (
                "Fix an entity",
                {
                    "event_id": "4d428a41-e7b0-4f81-a886-f40c6f6c766c",
                    "remove_entities": ["Dan"],
                    "add_entities": [{"name": "Dana", "type": "person"}],
                },
            ),
        ),
    )
)
