"""save_memory (seed aiakiv, last paragraph): an event with entities, tags and a sequence."""

from __future__ import annotations

import json
import re
from datetime import UTC, datetime
from typing import Annotated, Any

from pydantic import ConfigDict, Field

from accounts.selectors.projects import project_active_target
from accounts.services.workspaces import workspace_get_or_create
from core.errors import Conflict, PayloadTooLarge, Unprocessable
from core.inputs import json_argument_load
from core.registry import ToolCall, ToolSpec, registry
from memory.models import Entity
from memory.selectors.entities import entity_lookalikes
from memory.selectors.tags import tag_paths_existing, tag_paths_same_leaf, tags_in_path_order
from memory.selectors.visibility import memory_get_visible
from memory.services.idempotency import idempotent
from memory.services.memories import MemoryDraft, memory_create
from memory.text import normal_tag, tag_rejection
from memory.tools.common import (
    ID_MAX,
    ITEMS_MAX,
    NAME_MAX,
    TAG_MAX,
    TAGS_MAX,
    TYPE_MAX,
    Closed,
    stated,
)

MAX_SUMMARY = 500
MAX_CONTENT = 50_000
# payload as a JSON string: room for the largest bundle (content, summary, 100 entities, 50 tags) with
# every character \u-escaped. Over HTTP the 2 MiB body limit binds first.
MAX_PAYLOAD_TEXT = 1_000_000
MAX_TIMESTAMP = 64
MAX_SOURCE_ADDRESS = 2_000  # a URL, a path, a message id
TRUNCATION_MARKERS = re.compile(
    r"(\[\s*(?:\.\.\.|…)?\s*(?:output |content |text |message |response )?truncated[^\]\n]{0,60}\]"
    r"|<\s*truncated\s*/?>|\(\s*(?:output |content |text )?truncated[^)\n]{0,60}\)"
    r"|\[\s*(?:\.\.\.|…)\s*\]|\.\.\.\s*\[\s*\d+ (?:more )?(?:lines|characters|chars|bytes)[^\]\n]{0,40}\]"
    r"|<\s*\d+ (?:lines|characters|chars|bytes) (?:omitted|truncated)\s*>)",
    re.IGNORECASE,
)


class EntityIn(Closed):
    name: str = Field(
        max_length=NAME_MAX,
        description="One canonical spelling of the entity; records connect on shared names. Up to 200 characters.",
    )
    type: str = Field(
        default="unknown",
        max_length=TYPE_MAX,
        description="Its kind: person, team, system, document, place, ... Up to 100 characters.",
    )


class SourceIn(Closed):
    provider: str = Field(
        max_length=NAME_MAX, description="Where the content came from (a system or service name)."
    )
    address: str = Field(
        max_length=MAX_SOURCE_ADDRESS, description="Its address there: a URL, a path, a message id."
    )
    version: str | None = Field(
        default=None, max_length=NAME_MAX, description="The version of it that was read, when known."
    )


# The handler refuses an empty or over-long summary or content with its own texts (summary_too_long 422,
# content_too_long 413): the schema states those bounds, the handler enforces them.
Summary = Annotated[str, stated(minLength=1, maxLength=MAX_SUMMARY)]
Content = Annotated[str, stated(minLength=1, maxLength=MAX_CONTENT)]
TagPath = Annotated[str, Field(max_length=TAG_MAX)]
TAGS_NOTE = f"At most {TAGS_MAX} tags, each up to {TAG_MAX} characters; tags longer than 64 characters are soft-rejected."


class PayloadIn(Closed):
    summary: Summary | None = Field(default=None, description="As the summary argument.")
    entities: list[EntityIn] | None = Field(
        default=None, max_length=ITEMS_MAX, description="As the entities argument."
    )
    content: Content | None = Field(default=None, description="As the content argument.")
    tags: list[TagPath] | None = Field(default=None, max_length=TAGS_MAX, description="As the tags argument.")


# "summary, entities and content are required unless payload is given", in the published schema. Not
# a top-level anyOf: the Anthropic API refuses a tool whose input_schema has oneOf, anyOf or allOf at its
# top level, so it is if/else.
REQUIRED_UNLESS_PAYLOAD: dict[str, Any] = {
    "if": {
        "required": ["payload"],
        "properties": {"payload": {"anyOf": [{"type": "object"}, {"type": "string"}]}},
    },
    "else": {
        "required": ["summary", "entities", "content"],
        "properties": {
            "summary": {"type": "string"},
            "entities": {"type": "array"},
            "content": {"type": "string"},
        },
    },
}


class SaveMemoryIn(Closed):
    model_config = ConfigDict(json_schema_extra=REQUIRED_UNLESS_PAYLOAD)

    payload: PayloadIn | Annotated[str, Field(max_length=MAX_PAYLOAD_TEXT)] | None = Field(
        default=None,
        description="Alternative call form bundling {summary, entities, content, tags} into this one argument, as a "
        "JSON object or a JSON string. The other arguments are ignored when it is given.",
    )
    summary: Summary | None = Field(
        default=None,
        description="The retrieval surface, required unless payload, up to 500 characters. Searches rank against "
        "this rather than the content: keep exact identifiers verbatim and name the acting party in the first sentence.",
    )
    entities: list[EntityIn] | None = Field(
        default=None,
        max_length=ITEMS_MAX,
        description="NER results [{name, type}, ...], required unless payload, at most 100. One canonical spelling "
        "per entity.",
    )
    tags: list[TagPath] | None = Field(
        default=None,
        max_length=TAGS_MAX,
        description="Short slash-paths. Reuse the closest paths from a prior response's suggested_tags or tag_tree. "
        "Ids, hashes and dates are soft-rejected. " + TAGS_NOTE,
    )
    content: Content | None = Field(
        default=None,
        description="The original text, required unless payload, up to 50000 characters. Longer text is split across "
        "calls, each passing the previous event_id as prev_event_id, with its own summary.",
    )
    prev_event_id: str | None = Field(
        default=None, max_length=ID_MAX, description="The prior call's event_id when this save continues it."
    )
    allow_truncation_marker: bool = Field(
        default=False,
        strict=True,
        description="Content carrying a truncation marker left by upstream tooling is refused with "
        "truncation_marker_detected. Set true when the marker is part of what is being recorded.",
    )
    assert_project: str | None = Field(
        default=None,
        max_length=NAME_MAX,
        description="The server refuses the save if the resolved target differs from this project name. It blocks, never redirects.",
    )
    timestamp: str | None = Field(
        default=None, max_length=MAX_TIMESTAMP, description="ISO 8601; defaults to the current time."
    )
    source: SourceIn | None = Field(
        default=None,
        description="Upstream origin {provider, address, version?} when the content came from outside this conversation.",
    )


class SavedEntity(Closed):
    id: int = Field(description="The entity's id (for update_memory's add_entity_ids).")
    name: str = Field(description="The stored spelling.")
    type: str = Field(description="The entity's type.")
    created: bool = Field(
        description="True when this save created the entity; false when it reused an existing one."
    )


class RejectedTag(Closed):
    tag: str = Field(description="The tag as given.")
    reason: str = Field(description="Why it was not attached.")


class SuggestedEntity(Closed):
    id: int = Field(description="An existing entity's id.")
    name: str = Field(description="Its spelling.")
    type: str = Field(description="Its type.")
    similar_to: str = Field(
        description="The saved entity whose name it resembles. Advisory: a literal match is not identity."
    )


class TagNode(Closed):
    name: str = Field(description="The node's own name.")
    path: str = Field(description="Its full slash path.")
    children: list[TagNode] = Field(default_factory=list, description="Nodes below it.")


class ActiveTarget(Closed):
    project: str = Field(description="The project the save went to (its slug).")
    workspace: str = Field(description="The folder inside it.")
    team: str | None = Field(description="The project's team.")
    folder_bound: bool = Field(
        description="True when the connection is bound to this folder; false when it saves to Main."
    )


class SaveMemoryOut(Closed):
    event_id: str = Field(description="The new event's id: for prev_event_id, update_memory and forget.")
    tags: list[str] = Field(description="The tag paths attached.")
    tag_tree: list[TagNode] = Field(description="The enterprise's tag tree, to reuse paths from.")
    suggested_tags: list[str] | None = Field(
        default=None, description="Existing paths close to new tags given here."
    )
    saved_entities: list[SavedEntity] = Field(description="The entities linked, created or reused.")
    suggested_entities: list[SuggestedEntity] | None = Field(
        default=None, description="Advisory: existing entities with a similar spelling to new ones."
    )
    rejected_tags: list[RejectedTag] | None = Field(
        default=None, description="Tags not attached, with the reason."
    )
    continuation_hint: str = Field(description="How to continue this content in a further save.")
    edit_command: str = Field(
        description="An update_memory call that corrects this event's entities or tags."
    )
    active_target: ActiveTarget = Field(description="Where the save went; it cannot be chosen from here.")
    vector_pending: bool = Field(
        description="True until the archivist has embedded the event: it is searchable by text at once and by meaning seconds later."
    )


def tag_tree(limit: int = 300) -> list[TagNode]:
    nodes: dict[int, TagNode] = {}
    roots: list[TagNode] = []
    for tag in tags_in_path_order(limit=limit):
        node = TagNode(name=tag.name, path=tag.path, children=[])
        nodes[tag.pk] = node
        parent = nodes.get(tag.parent_id) if tag.parent_id else None
        (parent.children if parent is not None else roots).append(node)
    return roots


def timestamp_parse(raw: str | None) -> datetime | None:
    if raw is None:
        return None
    try:
        value = datetime.fromisoformat(raw.strip())
    except ValueError as exc:
        raise Unprocessable(
            "timestamp must be ISO 8601, e.g. 2026-11-30T09:12:00Z", code="invalid_timestamp"
        ) from exc
    return value if value.tzinfo else value.replace(tzinfo=UTC)


def _unbundle(args: SaveMemoryIn) -> tuple[str | None, list[EntityIn] | None, str | None, list[str] | None]:
    if args.payload is None:
        return args.summary, args.entities, args.content, args.tags
    payload = args.payload
    if isinstance(payload, str):
        try:
            payload = PayloadIn.model_validate(json_argument_load(payload, where="payload"))
        except (json.JSONDecodeError, ValueError) as exc:
            raise Unprocessable(
                "payload must be a JSON object with summary, entities, content and tags",
                code="invalid_payload",
            ) from exc
    return payload.summary, payload.entities, payload.content, payload.tags


def save_memory(call: ToolCall, args: SaveMemoryIn) -> SaveMemoryOut:
    summary, entities, content, tags = _unbundle(args)
    if not summary or not summary.strip():
        raise Unprocessable("summary is required unless payload is given", code="summary_required")
    if len(summary) > MAX_SUMMARY:
        raise Unprocessable(f"summary exceeds {MAX_SUMMARY} characters", code="summary_too_long")
    if entities is None:
        raise Unprocessable(
            "entities is required unless payload is given ([] when there are none)", code="entities_required"
        )
    if content is None or not content.strip():
        raise Unprocessable("content is required unless payload is given", code="content_required")
    if len(content) > MAX_CONTENT:
        raise PayloadTooLarge(
            f"content exceeds {MAX_CONTENT} characters: split it across calls, each passing the previous event_id "
            "as prev_event_id, with its own summary",
            code="content_too_long",
        )
    if not args.allow_truncation_marker:
        marker = TRUNCATION_MARKERS.search(content)
        if marker:
            raise Unprocessable(
                f"truncation_marker_detected: the content carries a truncation marker ({marker.group(0)!r}) left by "
                "upstream tooling, and nothing downstream can tell a cut body from a whole one. Save the whole text, "
                "or set allow_truncation_marker to true when the marker is part of what is being recorded.",
                code="truncation_marker_detected",
            )
    timestamp = timestamp_parse(args.timestamp)
    key = call.access_key
    project = project_active_target(key=key)
    if args.assert_project is not None and args.assert_project not in (project.slug, project.name):
        raise Conflict(
            f"assert_project: the active target is '{project.slug}', not '{args.assert_project}'; nothing was saved "
            "(the save is refused, never redirected)",
            code="assert_project_mismatch",
        )
    folder_bound = key.workspace is not None and key.project_id == project.pk
    workspace = key.workspace if folder_bound else workspace_get_or_create(project=project, name="default")
    assert workspace is not None
    prev = None
    if args.prev_event_id:
        prev = memory_get_visible(member=call.member, key=call.access_key, memory_id=args.prev_event_id)
        if prev is None:
            raise Unprocessable(
                "prev_event_id does not name an event you can read", code="prev_event_unknown"
            )

    accepted, rejected = [], []
    for raw in tags or []:
        reason = tag_rejection(normal_tag(raw))
        if reason:
            rejected.append(RejectedTag(tag=raw, reason=reason))
        elif normal_tag(raw) not in accepted:
            accepted.append(normal_tag(raw))

    def produce() -> SaveMemoryOut:
        existing_tags = tag_paths_existing(paths=accepted)
        memory = memory_create(
            draft=MemoryDraft(
                project=project,
                workspace=workspace,
                author=call.member,
                access_key=key,
                content=content,
                summary=summary,
                source="agent",
                origin=args.source.model_dump(exclude_none=True) if args.source else None,
                timestamp=timestamp,
                entities=[(e.name, e.type) for e in entities],
                tags=accepted,
                prev=prev,
            ),
            tool="save_memory",
        )
        linked: list[tuple[Entity, bool]] = memory._linked_entities  # type: ignore[attr-defined]
        saved = [SavedEntity(id=e.pk, name=e.name, type=e.type, created=c) for e, c in linked]
        fields: dict[str, Any] = {
            "event_id": str(memory.pk),
            "tags": [t.path for t in memory._linked_tags],  # type: ignore[attr-defined]
            "tag_tree": tag_tree(),
            "saved_entities": saved,
            "continuation_hint": (
                f'If this content continues, save the next part with prev_event_id="{memory.pk}" and its own summary.'
            ),
            "edit_command": (
                f'update_memory(event_id="{memory.pk}", add_entities=[{{"name": ..., "type": ...}}], '
                "remove_entities=[...], add_tags=[...], remove_tags=[...])"
            ),
            "active_target": ActiveTarget(
                project=project.slug,
                workspace=workspace.name,
                team=project.team.name if project.team else None,
                folder_bound=folder_bound,
            ),
            "vector_pending": memory.embedding is None,
        }
        suggestions = _suggested_tags([p for p in accepted if p not in existing_tags])
        if suggestions:
            fields["suggested_tags"] = suggestions
        similar = _suggested_entities([e for e, created in linked if created])
        if similar:
            fields["suggested_entities"] = similar
        if rejected:
            fields["rejected_tags"] = rejected
        return SaveMemoryOut(**fields)

    return idempotent(
        call=call,
        tool="save_memory",
        project=project,
        workspace=workspace.name,
        arguments=args.model_dump(),
        output_model=SaveMemoryOut,
        produce=produce,
    )


def _suggested_tags(new_paths: list[str]) -> list[str]:
    suggestions: list[str] = []
    for path in new_paths:
        for other in tag_paths_same_leaf(path=path):
            if other not in suggestions:
                suggestions.append(other)
    return suggestions


def _suggested_entities(created: list[Entity]) -> list[SuggestedEntity]:
    """Existing entities whose folded name contains a new one's, or is contained in it (4+ characters)."""
    out: list[SuggestedEntity] = []
    for entity in created:
        near = entity_lookalikes(entity=entity)
        out += [SuggestedEntity(id=o.pk, name=o.name, type=o.type, similar_to=entity.name) for o in near]
    return out


registry.register(
    ToolSpec(
        name="save_memory",
        toolset="aiakiv",
        title="Save memory",
        summary="Save a piece of conversation content to memory, with its summary, entities and tags.",
        description=(
            "Save a piece of conversation content to memory. Use this when the user explicitly asks to save or "
            'record something. Do not use it on a bare "remember this" or a request to summarize; those are not '
            "save requests. Writes a new record. The destination project and folder come from the active target "
            "and cannot be set from here. Args: payload: Alternative call form bundling {summary, entities, "
            "content, tags} into this one argument, as a JSON object or a JSON string. The other arguments are "
            "ignored when it is given. summary: The retrieval surface, required unless `payload`, up to 500 "
            "characters. Searches rank against this rather than the content, so exact identifiers kept verbatim "
            "and the acting party named in the first sentence are what make the record findable later. entities: "
            "NER results [{name, type}, ...], required unless `payload`. One canonical spelling per entity; records "
            "connect on shared names. tags: List of short slash-paths. Reusing the closest paths from a prior "
            "response's `suggested_tags` or `tag_tree` keeps them consistent. Ids, hashes, and dates are "
            "soft-rejected. content: The original text, required unless `payload`, up to 50000 characters. Longer "
            "text is split across calls, each passing the previous `event_id` as `prev_event_id`, with its own "
            "summary. prev_event_id: The prior call's `event_id` when this save continues it. "
            "allow_truncation_marker: Content carrying a truncation marker left by upstream tooling is refused with "
            "`truncation_marker_detected`, since nothing downstream can distinguish a cut body from a whole one. Set "
            "it True when the marker is part of what is being recorded. assert_project: The server refuses the save "
            "if the resolved target differs from this project name. It blocks, never redirects. timestamp: ISO "
            "8601; defaults to the current time. source: Upstream origin `{provider, address, version?}` when the "
            "content came from outside this conversation. Returns: `{event_id, tags, tag_tree, suggested_tags?, "
            "saved_entities, rejected_tags?, continuation_hint, edit_command, active_target, vector_pending}`. "
            "`saved_entities` and `rejected_tags` let the user correct a wrong entity or a dropped tag through "
            "`update_memory`. `suggested_entities` is advisory — a literal name match does not establish that it "
            "denotes the same thing here. `vector_pending` is true until the event is searchable by meaning "
            "(seconds); it is searchable by text at once."
        ),
        input_model=SaveMemoryIn,
        output_model=SaveMemoryOut,
        scope="memory:write",
        handler=save_memory,
        read_only=False,
        idempotent=False,
        retry=(
            "Safe with an idempotency key (X-Idempotency-Key over HTTP): a repeat with the same key and input "
            "returns the same event_id; with different input, 409 Conflict. Without one, a retry saves twice."
        ),
        returns=(
            "{ event_id, tags, tag_tree, suggested_tags?, saved_entities, suggested_entities?, rejected_tags?, "
            "continuation_hint, edit_command, active_target, vector_pending }"
        ),
        examples=(
            (
                "Save a decision",
                {
                    "summary": "Dana (platform team) decided to deploy staging through the systemd unit app-staging.",
                    "entities": [
                        {"name": "Dana", "type": "person"},
                        {"name": "app-staging", "type": "system"},
                    ],
                    "tags": ["deploy/staging"],
                    "content": "Dana: from now on staging goes out through the app-staging systemd unit, not docker.",
                },
            ),
        ),
    )
)
