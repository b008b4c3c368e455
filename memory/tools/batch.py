"""save_memories (issue 20, docs/lifecycle.md "Batch writes"): up to 1,000 memories in one call.

Each item takes remember's fields, save_memory's summary, entities, tags and timestamp, and a kind. A
structural error (a wrong JSON type, an unknown field) refuses the call, as every tool does; an item's
own error (empty or over-long content, a bad timestamp, unknown derived_from ids, a hash without its
source_id) is that item's result with remember's texts, and its neighbours are saved. The guard runs on
every item (``memory.services.batch.memory_create_many``).
"""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field

from accounts.models import Workspace
from core.errors import MnemosError, Unprocessable
from core.registry import ToolCall, ToolSpec, registry
from memory.services.batch import MAX_BATCH, ItemResult, memory_create_many
from memory.services.idempotency import idempotent
from memory.services.memories import MemoryDraft, derived_from_check
from memory.text import normal_tag, tag_rejection
from memory.tools.common import ITEMS_MAX, TAGS_MAX, Closed, key_workspace, stated
from memory.tools.remember import RememberIn, remember_validate
from memory.tools.save import MAX_SUMMARY, MAX_TIMESTAMP, EntityIn, RejectedTag, TagPath, timestamp_parse

TOO_MANY_ITEMS = f"items accepts at most {MAX_BATCH} memories in one call; split the batch"
NO_ITEMS = "items must hold at least one memory"
SUMMARY_TOO_LONG = f"summary exceeds {MAX_SUMMARY} characters"
# The kinds a batch may write. A correction supersedes a record (memory.train, update_memory); the
# layers beyond the project's (task, member, role, team) are memory.train's, under its own rules.
BatchKind = Literal["fact", "inference", "preference"]


class BatchItemIn(RememberIn):
    summary: Annotated[str, stated(maxLength=MAX_SUMMARY)] | None = Field(
        default=None,
        description="The retrieval surface (as save_memory's summary), up to 500 characters; default none.",
    )
    entities: list[EntityIn] | None = Field(
        default=None, max_length=ITEMS_MAX, description="Entities [{name, type}], at most 100."
    )
    tags: list[TagPath] | None = Field(
        default=None,
        max_length=TAGS_MAX,
        description="Slash-path tags, at most 50. Ids, hashes and dates are soft-rejected (rejected_tags).",
    )
    timestamp: str | None = Field(
        default=None,
        max_length=MAX_TIMESTAMP,
        description="When it happened, ISO 8601; defaults to the current time.",
    )
    kind: BatchKind = Field(default="fact", description="fact (default), inference or preference.")


class SaveMemoriesIn(Closed):
    items: Annotated[list[BatchItemIn], stated(minItems=1, maxItems=MAX_BATCH)] = Field(
        description="The memories to save, 1 to 1,000, each with remember's fields (content required)."
    )


class BatchItemOut(Closed):
    index: int = Field(description="The item's position in items (from 0).")
    status: Literal["created", "duplicate", "rejected", "error"] = Field(
        description="created; duplicate (the same source_id, source_hash and content already live in the "
        "project: nothing new); rejected (Memory Guard); error (the item's own error, see error and code)."
    )
    id: str | None = Field(default=None, description="The memory's id (created, or the one it duplicates).")
    error: str | None = Field(default=None, description="Why it was rejected or refused.")
    code: str | None = Field(default=None, description="The stable code of error.")
    rejected_tags: list[RejectedTag] | None = Field(
        default=None, description="Tags not attached, with the reason (the memory is saved without them)."
    )


class SaveMemoriesOut(Closed):
    results: list[BatchItemOut] = Field(description="One result per item, in input order.")


def _draft(call: ToolCall, item: BatchItemIn, folders: dict[str | None, Workspace]) -> MemoryDraft:
    """The item as a draft, or its own error (raised)."""
    remember_validate(item)
    if item.summary is not None and len(item.summary) > MAX_SUMMARY:
        raise Unprocessable(SUMMARY_TOO_LONG, code="summary_too_long")
    timestamp = timestamp_parse(item.timestamp)
    derived = (
        derived_from_check(member=call.member, key=call.access_key, ids=item.derived_from)
        if item.derived_from
        else []
    )
    explicit = item.workspace if "workspace" in item.model_fields_set else None
    if explicit not in folders:
        # A folder-bound key naming another folder refuses the whole call (403), as remember does.
        folders[explicit] = key_workspace(call, explicit)
    return MemoryDraft(
        project=call.project,
        workspace=folders[explicit],
        author=call.member,
        access_key=call.access_key,
        content=item.content,
        summary=item.summary or "",
        kind=item.kind,
        scope=item.scope,
        source=item.source,
        source_id=item.source_id,
        source_hash=item.source_hash,
        source_revision=item.source_revision,
        fact_key=item.fact_key,
        confidence=item.confidence,
        derived_from=derived,
        timestamp=timestamp,
        entities=[(e.name, e.type) for e in item.entities or []],
        tags=_accepted_tags(item.tags or []),
    )


def _accepted_tags(tags: list[str]) -> list[str]:
    accepted: list[str] = []
    for raw in tags:
        tag = normal_tag(raw)
        if not tag_rejection(tag) and tag not in accepted:
            accepted.append(tag)
    return accepted


def _rejected_tags(tags: list[str]) -> list[RejectedTag] | None:
    rejected = [RejectedTag(tag=raw, reason=r) for raw in tags if (r := tag_rejection(normal_tag(raw)))]
    return rejected or None


def save_memories(call: ToolCall, args: SaveMemoriesIn) -> SaveMemoriesOut:
    if len(args.items) > MAX_BATCH:
        raise Unprocessable(TOO_MANY_ITEMS, code="too_many_items")
    if not args.items:
        raise Unprocessable(NO_ITEMS, code="items_empty")
    bound = call.access_key.workspace

    def produce() -> SaveMemoriesOut:
        folders: dict[str | None, Workspace] = {}
        drafts: list[MemoryDraft | MnemosError] = []
        for item in args.items:
            try:
                drafts.append(_draft(call, item, folders))
            except MnemosError as exc:
                if exc.http_status == 403:
                    raise
                drafts.append(exc)
        results = memory_create_many(drafts=drafts, tool="save_memories")
        return SaveMemoriesOut(results=[_out(r, item) for r, item in zip(results, args.items, strict=True)])

    return idempotent(
        call=call,
        tool="save_memories",
        project=call.project,
        workspace=bound.name if bound is not None else "",
        arguments=args.model_dump(),
        output_model=SaveMemoriesOut,
        produce=produce,
    )


def _out(result: ItemResult, item: BatchItemIn) -> BatchItemOut:
    rejected = _rejected_tags(item.tags or []) if result.status == "created" else None
    return BatchItemOut(
        index=result.index,
        status=result.status,  # type: ignore[arg-type]
        id=result.id,
        error=result.error,
        code=result.code,
        rejected_tags=rejected,
    )


registry.register(
    ToolSpec(
        name="save_memories",
        toolset="remember",
        title="Save memories (batch)",
        summary="Add up to 1,000 records in one call, each with its own result; never overwrites.",
        description=(
            "Add up to 1,000 records to the memory of the key's project in one call (a bulk load, an "
            "import, a backfill). Pass items, each with remember's fields: content (required, at most "
            '100,000 characters), workspace (default "default"; a folder-bound key writes only to its '
            "own), scope, source, source_id, source_hash (needs source_id), source_revision, fact_key, "
            "confidence 0..1, derived_from (up to 50 ids you can access); and summary (up to 500 "
            "characters), entities [{name, type}], tags (slash paths), timestamp (ISO 8601) and kind "
            "(fact, inference or preference). Returns results, one per item in input order: {index, "
            "status, id?, error?, code?}. status is created; duplicate (the same source_id, "
            "source_hash and content already live in the project, or earlier in the batch: nothing new "
            "is stored, id names the existing record), so re-sending a batch with source_ids creates "
            "nothing new; rejected (Memory Guard refused text that instructs a future reader: error is "
            "its message; the other items are saved); or error (the item's own error, e.g. content must "
            "not be empty; the other items are saved). Secrets are redacted and the item saved. An "
            "argument of the wrong type or an unknown field refuses the whole call, and so does a plan "
            "limit the batch would pass (the error says how many items fit) or a folder the key may not "
            "write. Also POST /v1/memories:batch."
        ),
        input_model=SaveMemoriesIn,
        output_model=SaveMemoriesOut,
        scope="memory:write",
        handler=save_memories,
        read_only=False,
        idempotent=False,
        retry=(
            "Safe with an idempotency key: one X-Idempotency-Key covers the whole batch; a repeat with the "
            "same items returns the same results; with different items, 409 Conflict. Without one, items "
            "with a source_id come back as duplicate, items without one are stored again."
        ),
        returns="{ results: [{ index, status, id?, error?, code?, rejected_tags? }] }",
        examples=(
            (
                "Load two notes from a wiki page",
                {
                    "items": [
                        {
                            "content": "staging is deployed through the systemd unit app-staging",
                            "source_id": "wiki/deploy.md#staging",
                            "source_hash": "sha256:9f2c4e1a",
                            "entities": [{"name": "app-staging", "type": "system"}],
                            "tags": ["deploy/staging"],
                        },
                        {
                            "content": "production deploys need two approvals",
                            "source_id": "wiki/deploy.md#production",
                            "fact_key": "deploy-production-approvals",
                            "timestamp": "2026-11-30T09:12:00Z",
                        },
                    ]
                },
            ),
        ),
        api_routes=("POST /v1/memories:batch (memory:write)",),
    )
)
