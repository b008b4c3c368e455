"""update_memory (seed aiakiv): correct entities, tags, sequence, resolved-by and renames.

The stored text is never modified. Each list item is judged on its own: what
cannot be done comes back in the matching ``rejected_*`` list with a reason.
"""

from __future__ import annotations

from typing import Annotated

from pydantic import Field

from core.registry import ToolCall, ToolSpec, registry
from memory.models import Entity
from memory.services.corrections import Corrections, Refusal, memory_correct
from memory.tools.common import ID_MAX, ITEMS_MAX, NAME_LOOKUP_MAX, TAG_MAX, TAGS_MAX, Closed, RowId
from memory.tools.save import EntityIn, TagPath

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
    item: int | str | dict[str, str] = Field(
        description="The item as given: an entity id, a tag or event id, or {event_id, relation} / {old, new}."
    )
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


def update_corrections(args: UpdateMemoryIn) -> Corrections:
    """The corrections the arguments ask for (the console's memory page sends the same)."""
    return Corrections(
        remove_entities=list(args.remove_entities or []),
        add_entities=[(e.name, e.type) for e in args.add_entities or []],
        add_entity_ids=list(args.add_entity_ids or []),
        add_tags=list(args.add_tags or []),
        remove_tags=list(args.remove_tags or []),
        add_prev_events=list(args.add_prev_events or []),
        remove_prev_events=list(args.remove_prev_events or []),
        add_resolved_by=[(i.event_id, i.relation) for i in args.add_resolved_by or []],
        revoke_resolved_by=[(i.event_id, i.relation) for i in args.revoke_resolved_by or []],
        add_entity_renames=[(i.old, i.new) for i in args.add_entity_renames or []],
        remove_entity_renames=[(i.old, i.new) for i in args.remove_entity_renames or []],
    )


def _linked(entities: list[Entity]) -> list[LinkedEntity]:
    return [LinkedEntity(id=e.pk, name=e.name, type=e.type) for e in entities]


def _rejected(refusals: list[Refusal] | None) -> list[Rejected] | None:
    return None if refusals is None else [Rejected(item=r.item, reason=r.reason) for r in refusals]


def _resolved_items(pairs: list[tuple[str, str]] | None) -> list[ResolvedByItem] | None:
    return None if pairs is None else [ResolvedByItem(event_id=e, relation=r) for e, r in pairs]


def _rename_items(pairs: list[tuple[str, str]] | None) -> list[RenameItem] | None:
    return None if pairs is None else [RenameItem(old=old, new=new) for old, new in pairs]


def update_memory(call: ToolCall, args: UpdateMemoryIn) -> UpdateMemoryOut:
    result = memory_correct(
        member=call.member, key=call.access_key, memory_id=args.event_id, changes=update_corrections(args)
    )
    graph_delta = None
    if result.participation_changed or result.tags_changed:
        graph_delta = GraphDelta(
            entities_added=result.entities_added,
            entities_removed=result.entities_removed,
            tags_added=result.tags_added,
            tags_removed=result.tags_removed,
            cooccurrence_resync="queued" if result.participation_changed else "unchanged",
        )
    return UpdateMemoryOut(
        event_id=str(result.memory.pk),
        removed_count=result.removed_count,
        added_count=result.added_count,
        now_linked_entities=_linked(result.now_linked_entities),
        orphaned_entities=_linked(result.orphaned_entities),
        added_tags=result.added_tags,
        removed_tags=result.removed_tags,
        rejected_tags=_rejected(result.rejected_tags),
        rejected_entity_ids=_rejected(result.rejected_entity_ids),
        added_prev_events=result.added_prev_events,
        removed_prev_events=result.removed_prev_events,
        rejected_prev_events=_rejected(result.rejected_prev_events),
        added_resolved_by=_resolved_items(result.added_resolved_by),
        already_linked_resolved_by=_resolved_items(result.already_linked_resolved_by),
        revoked_resolved_by=_resolved_items(result.revoked_resolved_by),
        rejected_resolved_by=_rejected(result.rejected_resolved_by),
        added_entity_renames=_rename_items(result.added_entity_renames),
        removed_entity_renames=_rename_items(result.removed_entity_renames),
        rejected_entity_renames=_rejected(result.rejected_entity_renames),
        graph_delta=graph_delta,
    )


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
