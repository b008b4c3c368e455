"""Read tools: search_memory, search, list_memory_timeline, find_memories_by_entity, find_memory_connections.

Every read returns only what the caller may see (memory/selectors/visibility.py
and the read scope of the key) and records the ids it returned for the audit.
"""

from __future__ import annotations

import uuid
from collections import Counter
from typing import Annotated, Any

from pydantic import ConfigDict, Field, model_validator

from accounts.selectors.principals import principal_resolve
from core.errors import Unprocessable
from core.registry import ToolCall, ToolSpec, registry
from memory.models import LinkKind
from memory.selectors.connections import memory_connections
from memory.selectors.graph import Surroundings, shared_categories, surroundings
from memory.selectors.scoped import scoped_linked_ids, scoped_memories_narrowed
from memory.selectors.search import ReadScope, hybrid_rank, memories_by_ids, scope_for_key, scoped_memories
from memory.selectors.timeline import TimelineEntry, entity_events_list, timeline_list
from memory.tools.common import (
    LABEL_MAX,
    NAME_LOOKUP_MAX,
    QUERY_MAX,
    WORKSPACE_MAX,
    Clamped,
    Closed,
    RowId,
    SearchedScope,
    stated,
)

MAX_OFFSET = 200
# list_memory_timeline's days: a century reaches every memory worth a timeline; more is clamped to it
# (10**9 days would not fit a date).
MAX_DAYS = 36_500
# find_memories_by_entity's offset: past it a page is refused, not clamped (a clamped offset would
# answer a different page than the one asked for).
MAX_ENTITY_OFFSET = 100_000
# A principal handle: an email (254 characters at most) or a team name.
PRINCIPAL_MAX = 300
ENTITIES_MODE = (
    "mode 'entities' is no longer supported: to look an entity up by name call find_memories_by_entity"
)


def clamp(value: int, low: int, high: int) -> int:
    return max(low, min(high, value))


# --- shared output pieces --------------------------------------------------------------------------


class Sequential(Closed):
    prev: str | None = Field(description="The event before this one in its sequence, if any.")
    next: str | None = Field(description="The event after this one in its sequence, if any.")


class Connections(Closed):
    sequential: Sequential = Field(description="Sequence neighbours (prev/next).")


class EventHit(Closed):
    event_id: str = Field(
        description="The event's id (for update_memory, forget, prev_event_id, get content)."
    )
    summary: str = Field(description="The retrieval surface.")
    content: str = Field(description="The stored text.")
    timestamp: str = Field(description="When it happened, ISO 8601.")
    score: float = Field(
        description="Fused rank score (higher is better); comparable within one response only."
    )
    channels: list[str] = Field(description="Which channels found it: text, vector, entity.")
    project: str = Field(description="The project it lives in.")
    workspace: str = Field(description="Its folder.")
    status: str = Field(description="unverified, stale, conflict or superseded.")
    tags: list[str] = Field(description="Its tags: the memory's tags that narrow a search.")
    entities: list[str] = Field(description="Entities it mentions.")
    connections: Connections = Field(description="Its sequence neighbours.")
    vector_pending: bool = Field(
        description="True while it is not yet searchable by meaning (text search finds it)."
    )


class HintEntity(Closed):
    id: int = Field(description="Entity id (for find_memories_by_entity and list_memory_timeline).")
    name: str = Field(description="Entity name.")
    type: str = Field(description="Entity type.")
    count: int = Field(description="How many results mention it.")


class Category(Closed):
    id: int = Field(description="Tag group id (cg_id for list_memory_timeline).")
    name: str = Field(description="The tag's own name.")
    path: str = Field(description="Its slash path.")
    count: int = Field(description="How many results carry it.")
    total: int | None = Field(default=None, description="How many memories carry it in all.")


class Hint(Closed):
    threads: list[list[str]] = Field(description="Results that sit in one sequence, in order.")
    entities: list[HintEntity] = Field(description="Entities across the results, most mentioned first.")
    categories: list[Category] = Field(description="Tags shared by two or more results.")
    clusters: list[list[str]] = Field(description="Results the archivist linked as similar, grouped.")
    available_channels: list[str] = Field(description="Channels that answered: text, vector, entity.")


def _read_scope(call: ToolCall) -> ReadScope:
    return scope_for_key(member=call.member, key=call.access_key)


def _hits(
    ids: list[uuid.UUID], scores: dict[uuid.UUID, float], channels: dict[uuid.UUID, list[str]]
) -> tuple[list[EventHit], Surroundings]:
    memories = memories_by_ids(ids)
    around = surroundings(ids, visible_ids=set(ids) | set(memories))
    hits = []
    for pk in ids:
        m = memories.get(pk)
        if m is None:
            continue
        hits.append(
            EventHit(
                event_id=str(m.pk),
                summary=m.summary,
                content=m.content,
                timestamp=m.timestamp.isoformat(),
                score=round(scores.get(pk, 0.0), 6),
                channels=channels.get(pk, []),
                project=m.project_slug,
                workspace=m.workspace_name,
                status=m.status,
                tags=around.tags.get(pk, []),
                entities=[name for _, name, _ in around.entities.get(pk, [])],
                connections=Connections(
                    sequential=Sequential(prev=around.prev.get(pk), next=around.next.get(pk))
                ),
                vector_pending=not m.has_vector,  # type: ignore[attr-defined]
            )
        )
    return hits, around


def _threads(ids: list[uuid.UUID], around: Surroundings) -> list[list[str]]:
    """Results that follow one another (live NEXT links among the results, read by ``surroundings``)."""
    page = set(ids)
    following = {pk: uuid.UUID(after) for pk in ids if (after := around.next.get(pk))}
    nxt = {pk: after for pk, after in following.items() if after in page}
    followers = set(nxt.values())
    threads = []
    for start in [i for i in ids if i in nxt and i not in followers]:
        chain, node = [str(start)], start
        while node in nxt and len(chain) < 50:
            node = nxt[node]
            chain.append(str(node))
        threads.append(chain)
    return threads


def _clusters(ids: list[uuid.UUID], around: Surroundings) -> list[list[str]]:
    """Results the archivist linked as similar or duplicate, grouped (union-find over those links)."""
    parent = {i: i for i in ids}

    def root(i: uuid.UUID) -> uuid.UUID:
        while parent[i] != i:
            i = parent[i]
        return i

    for pk in ids:
        for relation in around.relations.get(pk, []):
            other = uuid.UUID(relation["id"])
            if relation["type"] in (LinkKind.SIMILAR, LinkKind.DUPLICATE) and other in parent:
                parent[root(pk)] = root(other)
    groups: dict[uuid.UUID, list[str]] = {}
    for i in ids:
        groups.setdefault(root(i), []).append(str(i))
    return [g for g in groups.values() if len(g) > 1]


def _hint(ids: list[uuid.UUID], around: Surroundings, available: list[str]) -> Hint:
    counts: Counter[tuple[int, str, str]] = Counter()
    for pk in ids:
        counts.update(set(around.entities.get(pk, [])))
    return Hint(
        threads=_threads(ids, around),
        entities=[HintEntity(id=e[0], name=e[1], type=e[2], count=n) for e, n in counts.most_common(10)],
        categories=[Category(**c) for c in shared_categories([around.tag_ids.get(pk, []) for pk in ids])],  # type: ignore[arg-type]
        clusters=_clusters(ids, around),
        available_channels=available,
    )


# --- search_memory -------------------------------------------------------------------------------


class SearchMemoryIn(Closed):
    query: Annotated[str, stated(minLength=1)] = Field(
        max_length=QUERY_MAX,
        description="One self-contained sentence, up to 2000 characters. Resolve referents; keep exact "
        "identifiers intact.",
    )
    top_k: Annotated[int, Clamped(1, 50)] = Field(default=10, description="Max hits (1-50, clamped).")
    mode: Annotated[str, stated(enum=["hybrid", "events"])] = Field(
        default="hybrid",
        max_length=20,
        description='"hybrid" (default) or "events": both return event hits. "entities" is no longer supported.',
    )
    principal: str | None = Field(
        default=None,
        max_length=PRINCIPAL_MAX,
        description="Restrict to content attributed to one user or team: a handle (email or team name) or a principal id.",
    )
    offset: Annotated[int, Clamped(0, MAX_OFFSET)] = Field(
        default=0, description="How many top-ranked results to skip (clamped to 0-200)."
    )


class PrincipalCandidate(Closed):
    id: str = Field(description="Principal id to re-call with (member:<id> or team:<id>).")
    kind: str = Field(description="member or team.")
    handle: str = Field(description="Email or team name.")
    name: str = Field(description="Display name.")


class Continuation(Closed):
    offset: int = Field(description="Pass this offset to read further down the same ranking.")


class SearchMemoryOut(Closed):
    query: str = Field(description="The query as searched.")
    mode: str = Field(description="The mode used.")
    hits: list[EventHit] = Field(description="Event hits, best first.")
    total: int = Field(
        description="How many visible memories matched any channel (within the ranking depth)."
    )
    hint: Hint = Field(description="A connection map over all results.")
    searched_scope: SearchedScope = Field(
        description="The scope the server searched, decided from the account and connection."
    )
    continuation: Continuation | None = Field(
        default=None, description="Present when more results lie behind this page."
    )
    principal_candidates: list[PrincipalCandidate] | None = Field(
        default=None, description="Present when principal matched several: re-call with one id."
    )


def _principals(principal: str) -> tuple[list[int], list[PrincipalCandidate]]:
    """Resolve a handle or id to member ids; several matches come back as candidates."""
    found = principal_resolve(principal=principal)
    candidates = [
        PrincipalCandidate(
            id=f"member:{m.pk}",
            kind="member",
            handle=m.user.email or m.user.username,
            name=m.user.get_full_name() or m.user.username,
        )
        for m in found.members
    ] + [PrincipalCandidate(id=f"team:{t.pk}", kind="team", handle=t.name, name=t.name) for t in found.teams]
    return found.member_ids, candidates


def search_memory(call: ToolCall, args: SearchMemoryIn) -> SearchMemoryOut:
    if args.mode == "entities":
        raise Unprocessable(ENTITIES_MODE, code="mode_not_supported")
    if args.mode not in ("hybrid", "events"):
        raise Unprocessable('mode must be "hybrid" or "events"', code="invalid_mode")
    if not args.query.strip():
        raise Unprocessable("query must not be empty", code="query_empty")
    top_k, offset = clamp(args.top_k, 1, 50), clamp(args.offset, 0, MAX_OFFSET)
    scope = _read_scope(call)
    if args.principal:
        authors, candidates = _principals(args.principal)
        if candidates:
            return SearchMemoryOut(
                query=args.query,
                mode=args.mode,
                hits=[],
                total=0,
                hint=Hint(threads=[], entities=[], categories=[], clusters=[], available_channels=[]),
                searched_scope=SearchedScope(**scope.describe()),
                principal_candidates=candidates,
            )
        if not authors:
            raise Unprocessable(
                f"principal {args.principal!r} matches no one: pass an email, a team name, or a principal id",
                code="principal_unknown",
            )
        scope = ReadScope(**{**scope.__dict__, "author_ids": tuple(authors)})
    ranked = hybrid_rank(
        memories=scoped_memories(scope),
        query=args.query,
        depth=max(100, offset + top_k),
        project_ids=scope.project_ids,
    )
    page = ranked.ids[offset : offset + top_k]
    hits, around = _hits(page, ranked.scores, ranked.channels)
    call.read_ids = [h.event_id for h in hits]
    fields: dict[str, Any] = {
        "query": args.query,
        "mode": args.mode,
        "hits": hits,
        "total": len(ranked.ids),
        "hint": _hint(page, around, ranked.available_channels),
        "searched_scope": SearchedScope(**scope.describe()),
    }
    if offset + top_k < len(ranked.ids) and offset + top_k <= MAX_OFFSET:
        fields["continuation"] = Continuation(offset=offset + top_k)
    return SearchMemoryOut(**fields)


# --- search (remember dialect) -----------------------------------------------------------------


class SearchIn(Closed):
    query: Annotated[str, stated(minLength=1)] = Field(
        max_length=QUERY_MAX,
        description="What to look for, in a sentence or a few words (up to 2000 characters).",
    )
    workspace: str | None = Field(
        default=None, max_length=WORKSPACE_MAX, description="Only this workspace of the key's project."
    )
    scope: str | None = Field(
        default=None,
        max_length=LABEL_MAX,
        description="Only records with this scope label (e.g. shared, private).",
    )
    limit: Annotated[int, Clamped(1, 50)] = Field(default=10, description="Max results (1-50, clamped).")


class Relation(Closed):
    type: str = Field(description="similar, duplicate, conflict, stale, next or resolved_by.")
    id: str = Field(description="The related record.")
    direction: str = Field(description="out (from this record) or in (to it).")
    score: float | None = Field(default=None, description="Cosine for similar/duplicate.")


class SearchResult(Closed):
    id: str = Field(description="Record id (for forget and derived_from).")
    content: str = Field(description="The record's text.")
    workspace: str = Field(description="Workspace.")
    scope: str = Field(description="Its label.")
    status: str = Field(
        description="unverified, stale (a newer source_hash exists) or conflict (same fact_key, different content)."
    )
    score: float = Field(description="Rank score, higher is better.")
    source_id: str | None = Field(description="Provenance.")
    source_hash: str | None = Field(description="Provenance.")
    source_revision: str | None = Field(description="Provenance.")
    fact_key: str | None = Field(description="Topic key.")
    confidence: float = Field(description="0..1 as saved.")
    derived_from: list[str] = Field(description="Records this one summarises.")
    created_at: str = Field(description="ISO 8601 (UTC).")
    graph_relations: list[Relation] = Field(
        description="Links the archivist (and corrections) made to other visible records."
    )


class SearchOut(Closed):
    results: list[SearchResult] = Field(description="Best first.")
    total: int = Field(description="How many visible records matched.")


def search(call: ToolCall, args: SearchIn) -> SearchOut:
    if not args.query.strip():
        raise Unprocessable("query must not be empty", code="query_empty")
    scope = _read_scope(call)
    memories = scoped_memories_narrowed(
        scope=scope, project_id=call.project.pk, workspace=args.workspace, label=args.scope
    )
    limit = clamp(args.limit, 1, 50)
    ranked = hybrid_rank(
        memories=memories, query=args.query, depth=max(50, limit), project_ids=scope.project_ids
    )
    page = ranked.ids[:limit]
    found = memories_by_ids(page)
    visible = scoped_linked_ids(scope=scope, ids=page) | set(page)
    around = surroundings(page, visible_ids=visible)
    results = []
    for pk in page:
        m = found[pk]
        results.append(
            SearchResult(
                id=str(m.pk),
                content=m.content,
                workspace=m.workspace_name,
                scope=m.scope,
                status=m.status,
                score=round(ranked.scores[pk], 6),
                source_id=m.source_id,
                source_hash=m.source_hash,
                source_revision=m.source_revision,
                fact_key=m.fact_key,
                confidence=m.confidence,
                derived_from=[str(d) for d in m.derived_from],
                created_at=m.created_at.isoformat(),
                graph_relations=[
                    Relation(
                        type=str(r["type"]), id=str(r["id"]), direction=str(r["direction"]), score=r["score"]
                    )
                    for r in around.relations.get(pk, [])
                ],
            )
        )
    call.read_ids = [r.id for r in results]
    return SearchOut(results=results, total=len(ranked.ids))


# --- list_memory_timeline ----------------------------------------------------------------------


class TimelineIn(Closed):
    entity_id: RowId | None = Field(
        default=None, description="Return events involving this entity, from find_memories_by_entity."
    )
    cg_id: RowId | None = Field(
        default=None,
        description="Return events carrying this tag group (ids from a search's hint.categories).",
    )
    days: Annotated[int, Clamped(1, MAX_DAYS, clamp_low=False)] | None = Field(
        default=None,
        description="Restrict to the last N days: 1 or more; more than 36500 (a century) is clamped to 36500.",
    )
    limit: Annotated[int, Clamped(1, 200)] = Field(default=20, description="1-200 (default 20), clamped.")


class TimelineEvent(Closed):
    event_id: str = Field(description="The event's id.")
    summary: str = Field(description="Its summary.")
    timestamp: str = Field(description="When it happened, ISO 8601.")
    tags: list[str] = Field(description="Its tags.")
    entities: list[str] = Field(description="Entities it mentions.")
    project: str = Field(description="Its project.")


class Anchor(Closed):
    entity_id: int | None = Field(default=None, description="The entity followed.")
    name: str | None = Field(default=None, description="Its name.")
    type: str | None = Field(default=None, description="Its type.")
    cg_id: int | None = Field(default=None, description="The tag group followed.")
    tag_group: str | None = Field(default=None, description="Its path.")


class TimelineOut(Closed):
    mode: str = Field(description="entity, tag_group or domain.")
    anchor: Anchor | None = Field(
        description="The entity or tag group the flow follows; null for the domain."
    )
    events: list[TimelineEvent] = Field(description="Oldest first.")
    total: int = Field(
        description="How many events the flow holds in the period, counted up to 10,000 (10,000 means at least that many)."
    )
    truncated: bool = Field(description="True when only the latest `limit` of them are returned.")
    searched_scope: SearchedScope = Field(description="The scope the server searched.")


def _timeline_events(entries: list[TimelineEntry]) -> list[TimelineEvent]:
    return [
        TimelineEvent(
            event_id=str(e.memory.pk),
            summary=e.memory.summary or e.memory.content[:200],
            timestamp=e.memory.timestamp.isoformat(),
            tags=e.tags,
            entities=e.entities,
            project=e.memory.project.slug,
        )
        for e in entries
    ]


def list_memory_timeline(call: ToolCall, args: TimelineIn) -> TimelineOut:
    if args.days is not None and args.days < 1:
        raise Unprocessable("days must be 1 or more", code="invalid_days")
    limit = clamp(args.limit, 1, 200)
    scope = _read_scope(call)
    timeline = timeline_list(
        scope=scope, entity_id=args.entity_id, cg_id=args.cg_id, days=args.days, limit=limit
    )
    call.read_ids = [str(e.memory.pk) for e in timeline.entries]
    return TimelineOut(
        mode=timeline.mode,
        anchor=Anchor(**timeline.anchor) if timeline.anchor else None,
        events=_timeline_events(timeline.entries),
        total=timeline.total,
        truncated=timeline.total > limit,
        searched_scope=SearchedScope(**scope.describe()),
    )


# --- find_memories_by_entity ------------------------------------------------------------------


ONE_OF_NAME_OR_ID = "pass exactly one of name or entity_id"
# "Exactly one of name and entity_id" in the published schema. Not a top-level oneOf: the Anthropic API
# refuses a tool whose input_schema has oneOf, anyOf or allOf at its top level (every request carrying
# the tool list fails), so it is if/then/else: a name string excludes an id, and without one an id is required.
EXACTLY_ONE_OF_NAME_OR_ID: dict[str, Any] = {
    "if": {"required": ["name"], "properties": {"name": {"type": "string"}}},
    "then": {"properties": {"entity_id": {"type": "null"}}},
    "else": {"required": ["entity_id"], "properties": {"entity_id": {"type": "integer"}}},
}


class EntityByIn(Closed):
    """Pass exactly one of name and entity_id."""

    model_config = ConfigDict(json_schema_extra=EXACTLY_ONE_OF_NAME_OR_ID)

    name: str | None = Field(
        default=None,
        max_length=NAME_LOOKUP_MAX,
        description="The entity's name (any letter case or width; renames included). Exactly one of name and "
        "entity_id.",
    )
    entity_id: RowId | None = Field(
        default=None, description="Or its id (exactly one of name and entity_id)."
    )
    limit: Annotated[int, Clamped(1, 100)] = Field(
        default=20, description="Events per page (1-100, clamped)."
    )
    offset: Annotated[int, Clamped(0, MAX_ENTITY_OFFSET, clamp_high=False)] = Field(
        default=0,
        description="Events to skip, for the next page: 0-100000 (a negative offset reads as 0).",
    )

    @model_validator(mode="after")
    def _one_of_name_or_id(self) -> EntityByIn:
        if (self.name is None) == (self.entity_id is None):
            raise ValueError(ONE_OF_NAME_OR_ID)
        return self


class EntityOut(Closed):
    id: int = Field(description="Entity id.")
    name: str = Field(description="Canonical spelling.")
    type: str = Field(description="Entity type.")


class EntityByOut(Closed):
    entity: EntityOut | None = Field(description="The entity found; null when none matches.")
    also_known_as: list[EntityOut] = Field(description="Renames recorded for it (their events are included).")
    events: list[TimelineEvent] = Field(description="Events involving it, oldest first.")
    total: int = Field(description="How many visible events involve it.")
    continuation: Continuation | None = Field(default=None, description="Present when more events follow.")
    candidates: list[EntityOut] | None = Field(
        default=None, description="Similar names, when no entity matched exactly."
    )


def find_memories_by_entity(call: ToolCall, args: EntityByIn) -> EntityByOut:
    if (args.name is None) == (args.entity_id is None):
        raise Unprocessable(ONE_OF_NAME_OR_ID, code="invalid_arguments")
    limit, offset = clamp(args.limit, 1, 100), max(0, args.offset)
    found = entity_events_list(
        scope=_read_scope(call),
        entity_id=args.entity_id,
        name=args.name,
        limit=limit,
        offset=offset,
    )
    entity = found.entity
    if entity is None:
        return EntityByOut(
            entity=None,
            also_known_as=[],
            events=[],
            total=0,
            candidates=[EntityOut(id=e.pk, name=e.name, type=e.type) for e in found.candidates or []],
        )
    call.read_ids = [str(e.memory.pk) for e in found.entries]
    fields: dict[str, Any] = {
        "entity": EntityOut(id=entity.pk, name=entity.name, type=entity.type),
        "also_known_as": [
            EntityOut(id=e.pk, name=e.name, type=e.type) for e in found.family if e.pk != entity.pk
        ],
        "events": _timeline_events(found.entries),
        "total": found.total,
    }
    if offset + limit < found.total:
        fields["continuation"] = Continuation(offset=offset + limit)
    return EntityByOut(**fields)


# --- find_memory_connections --------------------------------------------------------------------


class ConnectionsIn(Closed):
    sentence: Annotated[str, stated(minLength=1)] = Field(
        max_length=QUERY_MAX,
        description="Where to start: one sentence about the subject (up to 2000 characters).",
    )
    limit: Annotated[int, Clamped(1, 50)] = Field(
        default=10, description="Max connected memories (1-50, clamped)."
    )


class Reach(Closed):
    via: str = Field(
        description="entity (shared entity), similar (archivist), sequence (next/prev) or resolved_by."
    )
    from_event: str = Field(description="The starting memory it was reached from.")
    detail: str | None = Field(default=None, description="The shared entity's name, or the link's relation.")


class Connected(Closed):
    event_id: str = Field(description="The memory reached.")
    summary: str = Field(description="Its summary.")
    timestamp: str = Field(description="When it happened.")
    score: float = Field(description="How strongly it is connected (higher is closer).")
    reached_by: list[Reach] = Field(description="Why it was reached.")


class ConnectionsOut(Closed):
    sentence: str = Field(description="The starting sentence.")
    starts: list[str] = Field(description="The memories the sentence found first (the starting points).")
    connections: list[Connected] = Field(description="Memories reached from them, ranked.")


def find_memory_connections(call: ToolCall, args: ConnectionsIn) -> ConnectionsOut:
    if not args.sentence.strip():
        raise Unprocessable("sentence must not be empty", code="query_empty")
    scope = _read_scope(call)
    found = memory_connections(scope=scope, sentence=args.sentence, limit=clamp(args.limit, 1, 50))
    rows, scores = found.memories, found.scores
    connections = [
        Connected(
            event_id=str(pk),
            summary=rows[pk].summary or rows[pk].content[:200],
            timestamp=rows[pk].timestamp.isoformat(),
            score=round(scores.score[pk], 4),
            reached_by=[
                Reach(via=r.via, from_event=str(r.from_event), detail=r.detail) for r in scores.reached[pk]
            ],
        )
        for pk in found.ranked
        if pk in rows
    ]
    starts = [str(s) for s in found.starts]
    call.read_ids = starts + [c.event_id for c in connections]
    return ConnectionsOut(sentence=args.sentence, starts=starts, connections=connections)


# --- registration ------------------------------------------------------------------------------

_READ = {
    "read_only": True,
    "idempotent": True,
    "retry": "Safe: repeating the call changes nothing.",
    "scope": "memory:read",
}

registry.register(
    ToolSpec(
        name="search_memory",
        query_argument="query",
        toolset="aiakiv",
        title="Search memory",
        summary="Find stored memories that answer a question (hybrid text, vector and entity search).",
        description=(
            "Find stored memories that answer a question. Use this when the user asks about something that may "
            "already be recorded, or refers back to an earlier conversation, decision, or document. Do not use it "
            "to follow connections out from the memories it returns; use `query_memory_graph` or "
            "`find_memory_connections` for that. Read-only. Scope is decided by the server from the signed-in "
            "account and reported in `searched_scope`. Args: query: One self-contained sentence. Resolving "
            "referents from the conversation and keeping exact identifiers intact both help it rank. top_k: Max "
            'hits (1-50, clamped). mode: `"hybrid"` (default) or `"events"` — both return event hits. '
            '`"entities"` is no longer supported and returns an error; to look an entity up by name call '
            "`find_memories_by_entity`. principal: Restrict to content attributed to one user or team — a handle "
            "(email or team name) or a principal id, not a name to match. More than one match returns "
            "`principal_candidates` to re-call with. offset: How many top-ranked results to skip, for reading "
            "further down the same ranking. Defaults to 0, and is clamped to 200. A response that has more behind "
            "it names the continuing offset in `continuation`. Returns: `{query, mode, hits, total, hint, "
            "searched_scope}`. `hint` is a connection map over all results (threads, entities, categories, "
            "clusters, available_channels). Event hits may carry `connections.sequential {prev, next}`. Event hits "
            "may also carry `tags`: the memory's tags that narrow a search. `hint.categories` lists tags shared by "
            "two or more results; an entry may carry `total`, the number of memories with that tag."
        ),
        input_model=SearchMemoryIn,
        output_model=SearchMemoryOut,
        handler=search_memory,
        returns="{ query, mode, hits, total, hint, searched_scope, continuation?, principal_candidates? }",
        examples=(("Search for a decision", {"query": "How is staging deployed?", "top_k": 5}),),
        **_READ,  # type: ignore[arg-type]
    )
)
registry.register(
    ToolSpec(
        name="search",
        query_argument="query",
        toolset="remember",
        title="Search records",
        summary="Search the key's project; each result shows its status and graph relations.",
        description=(
            "Search the records of the key's project (its workspace when the key is folder-bound) and those shared "
            "enterprise-wide. Pass query, optionally workspace and scope to filter (scope is a label, not a "
            "permission), and limit (1-50, default 10). Each result shows its status — unverified (new), stale (a "
            "newer source_hash of the same source_id exists) or conflict (the same fact_key with different "
            "content) — its provenance, and graph_relations: links the archivist made to other records (similar, "
            "duplicate, conflict, stale) and sequence or resolved-by links. Forgotten records never appear. "
            "Returns {results, total}."
        ),
        input_model=SearchIn,
        output_model=SearchOut,
        handler=search,
        returns="{ results: [{ id, content, workspace, scope, status, score, source_id, source_hash, source_revision, fact_key, confidence, derived_from, created_at, graph_relations }], total }",
        examples=(("Find how staging is deployed", {"query": "staging deploy", "limit": 5}),),
        **_READ,  # type: ignore[arg-type]
    )
)
registry.register(
    ToolSpec(
        name="list_memory_timeline",
        toolset="aiakiv",
        title="Memory timeline",
        summary="Events in chronological order for an entity, a tag group, or the whole domain.",
        description=(
            "Return events in chronological order for an entity, tag group, or domain. Use this when the user asks "
            "how something developed over time, or what happened in a period. Do not use it to rank by relevance "
            "to a question; use `search_memory` for that. Read-only. The domain is decided by the server and "
            "reported in `searched_scope`. Args: entity_id: Return events involving this entity, from "
            "`find_memories_by_entity`. cg_id: Return events carrying this tag group, named by the group ids in a "
            "search response's `hint.categories`. days: Restrict to the last N days. limit: 1-200 (default 20). "
            "Returns: `{mode, anchor, events, total, truncated, searched_scope}`. With neither `entity_id` nor "
            "`cg_id`, the flow covers the whole domain. When more events than `limit` fall in the period, the "
            "latest `limit` come back, oldest first, and `truncated` is true."
        ),
        input_model=TimelineIn,
        output_model=TimelineOut,
        handler=list_memory_timeline,
        returns="{ mode, anchor, events, total, truncated, searched_scope }",
        examples=(("What happened this week", {"days": 7, "limit": 50}),),
        **_READ,  # type: ignore[arg-type]
    )
)
registry.register(
    ToolSpec(
        name="find_memories_by_entity",
        toolset="aiakiv",
        title="Find memories by entity",
        summary="Look an entity up by name or id and list the events involving it, oldest first.",
        description=(
            "Look an entity up by name (any letter case or character width; recorded renames included, both ways) "
            "or by id, and list the events that involve it in chronological order, paginated. Use this to find "
            "everything recorded about a person, team, system or document, and to get the entity_id that "
            "list_memory_timeline takes. Read-only. Pass name or entity_id, limit (1-100, default 20) and offset. "
            "Returns {entity, also_known_as, events, total, continuation?}; when no entity has that name, entity "
            "is null and candidates lists similar names."
        ),
        input_model=EntityByIn,
        output_model=EntityByOut,
        handler=find_memories_by_entity,
        returns="{ entity, also_known_as, events, total, continuation?, candidates? }",
        examples=(("Everything about Dana", {"name": "dana"}),),
        **_READ,  # type: ignore[arg-type]
    )
)
registry.register(
    ToolSpec(
        name="find_memory_connections",
        query_argument="sentence",
        toolset="aiakiv",
        title="Find memory connections",
        summary="From a sentence, the memories reached through shared entities, similarity and sequence.",
        description=(
            "Start from a sentence and follow the memory graph: the sentence finds its closest memories (the "
            "starts), and from them the memories that share an entity with them, that the archivist linked as "
            "similar, that come before or after them in a sequence, or that resolve them. Use this when the "
            "starting point is a sentence and no graph pattern is stated; use query_memory_graph for a stated "
            "pattern. Read-only. Pass sentence and limit (1-50, default 10). Returns {sentence, starts, "
            "connections: [{event_id, summary, timestamp, score, reached_by: [{via, from_event, detail?}]}]}, "
            "ranked by how strongly each is connected."
        ),
        input_model=ConnectionsIn,
        output_model=ConnectionsOut,
        handler=find_memory_connections,
        returns="{ sentence, starts, connections: [{ event_id, summary, timestamp, score, reached_by }] }",
        examples=(
            ("What is connected to the staging deploy", {"sentence": "Staging deploys moved to systemd."}),
        ),
        **_READ,  # type: ignore[arg-type]
    )
)
