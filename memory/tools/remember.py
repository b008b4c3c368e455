"""The remember dialect (seed remember-tool): remember and forget."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from core.errors import NotFound, PayloadTooLarge, Unprocessable
from core.registry import ToolCall, ToolSpec, registry
from memory.selectors.visibility import memory_get_visible
from memory.services.forgetting import memory_forget
from memory.services.idempotency import idempotent
from memory.services.memories import MAX_DERIVED, MemoryDraft, derived_from_check, memory_create
from memory.tools.common import ID_MAX, LABEL_MAX, WORKSPACE_MAX, Closed, key_workspace, stated

API_VERSION = "1.0"
MAX_CONTENT = 100_000
CONTENT_TOO_LONG = "content exceeds maximum allowed length"
CONTENT_EMPTY = "content must not be empty"
EMPTY_WORKSPACE_OR_SCOPE = "workspace and scope must not be empty"
BAD_CONFIDENCE = "confidence must be between 0 and 1"
HASH_WITHOUT_ID = "source_id is required when source_hash is provided"
# Provenance labels (the table keeps 1000 characters of each; Memory Guard's redaction markers can widen
# a text it scrubs). A hash, with its algorithm prefix, and a revision are far shorter than a path.
MAX_SOURCE_ID = 500
MAX_SOURCE_HASH = 200
MAX_SOURCE_REVISION = 200
MAX_FACT_KEY = 300  # the table keeps 500
MAX_REASON = 500  # as the console's forget form
# "source_id is required when source_hash is provided", in the published schema (an if/then: the
# Anthropic API refuses oneOf, anyOf and allOf at the top level of a tool's input_schema).
HASH_NEEDS_SOURCE_ID: dict[str, Any] = {
    "if": {"required": ["source_hash"], "properties": {"source_hash": {"type": "string", "minLength": 1}}},
    "then": {"required": ["source_id"], "properties": {"source_id": {"type": "string", "minLength": 1}}},
}


class RememberIn(Closed):
    # The seed's own texts refuse an empty or over-long content, an empty workspace or scope, a confidence
    # outside 0-1 and more than 50 derived_from ids (remember-tool, Errors): the schema states those
    # bounds (``stated``) and the handler keeps refusing with the seed's texts and statuses.
    model_config = ConfigDict(json_schema_extra=HASH_NEEDS_SOURCE_ID)

    content: Annotated[str, stated(minLength=1, maxLength=MAX_CONTENT)] = Field(
        description="Text of the record. Not empty, at most 100,000 characters."
    )
    workspace: Annotated[str, stated(minLength=1)] = Field(
        default="default",
        max_length=WORKSPACE_MAX,
        description="Workspace. If it does not exist yet, it is created in the key's project. "
        "A folder-bound key writes only to its own workspace.",
    )
    scope: Annotated[str, stated(minLength=1)] = Field(
        default="shared",
        max_length=LABEL_MAX,
        description="Label of the record, e.g. shared or private. Search can filter on it. It does not restrict access.",
    )
    source: str = Field(
        default="owner", max_length=LABEL_MAX, description="Who saves the record (e.g. owner, agent)."
    )
    source_id: str | None = Field(
        default=None, max_length=MAX_SOURCE_ID, description="Source label: a document, a file, a session."
    )
    source_hash: str | None = Field(
        default=None,
        max_length=MAX_SOURCE_HASH,
        description="Hash of the source's content; later used to detect staleness. Requires source_id.",
    )
    source_revision: str | None = Field(
        default=None,
        max_length=MAX_SOURCE_REVISION,
        description="Version of the source (a tag, a revision number).",
    )
    fact_key: str | None = Field(
        default=None,
        max_length=MAX_FACT_KEY,
        description="Topic key. Records with the same key and different content get status conflict.",
    )
    confidence: Annotated[float, stated(minimum=0, maximum=1)] = Field(
        default=0.5, strict=True, description="Confidence from 0.0 to 1.0."
    )
    derived_from: (
        Annotated[list[Annotated[str, stated(maxLength=ID_MAX)]], stated(maxItems=MAX_DERIVED)] | None
    ) = Field(
        default=None,
        description="IDs of records that this record summarises. Up to 50 IDs, only existing records that you can access.",
    )


class RememberOut(Closed):
    id: str = Field(description="ID of the new record. Needed for forget and derived_from.")
    api_version: str = Field(description="The server's API version (1.0).")
    workspace: str = Field(description="Workspace.")
    tenant_id: str = Field(description="Account identifier.")
    project_id: str = Field(description="Identifier of the key's project.")
    scope: str = Field(description="Label of the record.")
    status: str = Field(description="Always unverified for a new record.")
    source_id: str | None = Field(description="Provenance as passed (after secrets are scrubbed).")
    source_hash: str | None = Field(description="Provenance as passed (after secrets are scrubbed).")
    derived_from: list[str] = Field(
        description="Sorted list of source record IDs; empty when this is not a summary."
    )
    created_at: str = Field(description="Creation time, ISO 8601 (UTC).")


def remember_validate(args: RememberIn) -> None:
    """remember's own refusals of an argument, with the seed's texts (save_memories checks each item with them)."""
    if not args.content.strip():
        raise Unprocessable(CONTENT_EMPTY, code="content_empty")
    if len(args.content) > MAX_CONTENT:
        raise PayloadTooLarge(CONTENT_TOO_LONG, code="content_too_long")
    if not args.workspace.strip() or not args.scope.strip():
        raise Unprocessable(EMPTY_WORKSPACE_OR_SCOPE, code="empty_workspace_or_scope")
    if not 0.0 <= args.confidence <= 1.0:
        raise Unprocessable(BAD_CONFIDENCE, code="confidence_out_of_range")
    if args.source_hash and not args.source_id:
        raise Unprocessable(HASH_WITHOUT_ID, code="source_id_required")


def remember(call: ToolCall, args: RememberIn) -> RememberOut:
    remember_validate(args)
    explicit = args.workspace if "workspace" in args.model_fields_set else None
    workspace = key_workspace(call, explicit)

    def produce() -> RememberOut:
        derived = derived_from_check(member=call.member, key=call.access_key, ids=args.derived_from or [])
        memory = memory_create(
            draft=MemoryDraft(
                project=call.project,
                workspace=workspace,
                author=call.member,
                access_key=call.access_key,
                content=args.content,
                scope=args.scope,
                source=args.source,
                source_id=args.source_id,
                source_hash=args.source_hash,
                source_revision=args.source_revision,
                fact_key=args.fact_key,
                confidence=args.confidence,
                derived_from=derived,
            ),
            tool="remember",
        )
        return RememberOut(
            id=str(memory.pk),
            api_version=API_VERSION,
            workspace=workspace.name,
            tenant_id=str(call.enterprise.pk),
            project_id=str(call.project.pk),
            scope=memory.scope,
            status=memory.status,
            source_id=memory.source_id,
            source_hash=memory.source_hash,
            derived_from=[str(d) for d in memory.derived_from],
            created_at=memory.created_at.isoformat(),
        )

    return idempotent(
        call=call,
        tool="remember",
        project=call.project,
        workspace=workspace.name,
        arguments=args.model_dump(),
        output_model=RememberOut,
        produce=produce,
    )


class ForgetIn(Closed):
    id: str = Field(
        max_length=ID_MAX, description="ID of the record to forget, as remember or search returned it."
    )
    reason: str | None = Field(
        default=None,
        max_length=MAX_REASON,
        description="Why it is forgotten; kept in the audit trail. Up to 500 characters.",
    )


class ForgetOut(Closed):
    id: str = Field(description="ID of the forgotten record.")
    status: str = Field(description="Always forgotten.")
    forgotten_at: str = Field(description="When it was forgotten, ISO 8601 (UTC).")
    derived_flagged: list[str] = Field(
        description="Records derived from this one (derived_from), now flagged: one of their sources is gone."
    )


NOT_FOUND = "memory not found"


def forget(call: ToolCall, args: ForgetIn) -> ForgetOut:
    # Forgotten records stay reachable here, so a repeat answers the same.
    memory = memory_get_visible(
        member=call.member, key=call.access_key, memory_id=args.id, include_forgotten=True
    )
    if memory is None:
        raise NotFound(NOT_FOUND, code="not_found")
    derived = memory_forget(memory=memory, member=call.member, key=call.access_key, reason=args.reason or "")
    assert memory.forgotten_at is not None
    return ForgetOut(
        id=str(memory.pk),
        status="forgotten",
        forgotten_at=memory.forgotten_at.isoformat(),
        derived_flagged=derived,
    )


registry.register(
    ToolSpec(
        name="remember",
        toolset="remember",
        title="Remember",
        summary="Add a record to the memory of the key's project, with provenance; never overwrites.",
        description=(
            "Add a new record to the memory of the project this access key is bound to. Never deletes or "
            "overwrites: saving again with the same fact_key adds a newer version, the old ones stay, and records "
            "with the same fact_key and different content get status conflict. Pass content (required, at most "
            '100,000 characters); workspace (default "default", created on first use); scope, a label search can '
            'filter on that grants nothing (default "shared"); source (who saves, default "owner"); source_id, '
            "source_hash (needs source_id) and source_revision for provenance, so a newer hash of the same source "
            "marks older records stale; fact_key; confidence 0..1 (default 0.5); derived_from, up to 50 ids of "
            "records this one summarises. A new record is always unverified: source_hash is provenance, not proof. "
            "Secrets in any field are replaced by [REDACTED:rule:hash] and the record is still saved; text that "
            "instructs a future reader is refused (Memory rejected by Security Guard: ...). Over HTTP, pass "
            "X-Idempotency-Key to make a retry safe. Returns id, api_version, workspace, tenant_id, project_id, "
            "scope, status, source_id, source_hash, derived_from and created_at."
        ),
        input_model=RememberIn,
        output_model=RememberOut,
        scope="memory:write",
        handler=remember,
        read_only=False,
        idempotent=False,
        retry=(
            "Safe with an idempotency key: a repeat with the same X-Idempotency-Key and the same parameters returns "
            "the same response with the same id; with different parameters, 409 Conflict. Without one, a retry "
            "stores a second record."
        ),
        returns=(
            "{ id, api_version, workspace, tenant_id, project_id, scope, status, source_id, source_hash, "
            "derived_from, created_at }"
        ),
        examples=(
            (
                "Save an agreement with its source",
                {
                    "content": "staging is deployed through the systemd unit app-staging",
                    "workspace": "default",
                    "source": "agent",
                    "source_id": "docs/deploy.md",
                    "source_hash": "sha256:9f2c4e1a",
                    "source_revision": "a1b2c3d",
                    "fact_key": "deploy-staging",
                    "confidence": 0.9,
                },
            ),
        ),
    )
)

registry.register(
    ToolSpec(
        name="forget",
        toolset="remember",
        title="Forget",
        summary="Forget a record: it disappears from every read; the audit trail keeps it.",
        description=(
            "Forget one record by its id. The record disappears from search and every other read at once; it is "
            "not erased from the audit trail. Records that were derived from it (derived_from) stay, flagged "
            "because one of their sources is gone; their ids come back in derived_flagged. Forgetting an already "
            "forgotten record changes nothing. Pass id and, optionally, the reason. Returns id, status "
            "(forgotten), forgotten_at and derived_flagged."
        ),
        input_model=ForgetIn,
        output_model=ForgetOut,
        scope="memory:write",
        handler=forget,
        read_only=False,
        idempotent=True,
        destructive=True,
        retry="Idempotent: forgetting a forgotten record returns the same answer and changes nothing.",
        returns="{ id, status, forgotten_at, derived_flagged }",
        examples=(
            ("Forget a wrong record", {"id": "4d428a41-e7b0-4f81-a886-f40c6f6c766c", "reason": "wrong unit"}),
        ),
    )
)
