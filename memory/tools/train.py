"""memory.train (seed enterprise-memory-tools): teach enterprise memory one note from a run."""

from __future__ import annotations

from typing import Annotated, Any

from pydantic import ConfigDict, Field

from core.registry import ToolCall, ToolSpec, registry
from memory.models import Memory
from memory.services.idempotency import idempotent
from memory.services.training import KINDS, TRAIN_LAYERS, Trained, memory_train, memory_train_check
from memory.tools.common import ID_MAX, Closed, stated

# A note is one finding: three times what a run's ask result holds (6,000 characters). A document
# belongs in remember or save_memory.
MAX_BODY = 20_000
# As the memory table keeps them (source_event_id, source_event_revision).
MAX_EVENT_ID = 500
MAX_REVISION = 200
# "supersedes needs kind correction", in the published schema (an if/then: the Anthropic API refuses
# oneOf, anyOf and allOf at the top level of a tool's input_schema).
SUPERSEDES_NEEDS_CORRECTION: dict[str, Any] = {
    "if": {"required": ["supersedes"], "properties": {"supersedes": {"type": "object"}}},
    "then": {"required": ["kind"], "properties": {"kind": {"const": "correction"}}},
}


class SourceRef(Closed):
    eventId: str = Field(max_length=MAX_EVENT_ID, description="The event this was learned from.")
    revision: str = Field(
        default="1",
        max_length=MAX_REVISION,
        description="The event's revision; a new revision is a new source.",
    )


class SupersedesRef(Closed):
    entryId: str = Field(max_length=ID_MAX, description="The entry this correction replaces.")


class TrainIn(Closed):
    # The handler refuses an empty body, an unknown layer or kind with its own texts: the schema states them.
    model_config = ConfigDict(json_schema_extra=SUPERSEDES_NEEDS_CORRECTION)

    body: Annotated[str, stated(minLength=1)] = Field(
        max_length=MAX_BODY, description="The note: one thing the run established (up to 20000 characters)."
    )
    layer: Annotated[str, stated(enum=list(TRAIN_LAYERS))] = Field(
        default="task",
        max_length=20,
        description="task (default); member and role on an original task; team and enterprise only when this task "
        "version grants that layer and source.eventId starts with the granted prefix.",
    )
    source: SourceRef | None = Field(
        default=None,
        description="{eventId, revision} naming the event learned from, so a retry is not stored twice.",
    )
    kind: Annotated[str, stated(enum=list(KINDS))] = Field(
        default="fact", max_length=20, description="fact (default), inference, preference or correction."
    )
    supersedes: SupersedesRef | None = Field(
        default=None, description="{entryId} of the note a correction replaces (kind correction)."
    )


class Entry(Closed):
    id: str = Field(description="The stored note's id (an entryId for supersedes).")
    layer: str = Field(description="The layer it is stored in.")
    kind: str = Field(description="fact, inference, preference or correction.")
    body: str = Field(description="The note as stored (secrets redacted).")
    taskId: str | None = Field(description="The task whose run taught it.")
    sourceEventId: str | None = Field(description="The event it was learned from.")
    revision: str | None = Field(description="That event's revision.")
    supersedes: str | None = Field(description="The entry it retired, when it is a correction.")
    status: str = Field(description="The note's own status: unverified, superseded, ...")
    createdAt: str = Field(description="When it was stored, ISO 8601 (UTC).")


class Usage(Closed):
    notesStored: int = Field(description="Notes this call stored (0 or 1).")
    notesRetired: int = Field(description="Notes this call retired through supersedes.")
    nearDuplicates: int = Field(description="Existing notes this one will be consolidated with.")


class TrainOut(Closed):
    status: str = Field(description="accepted, retained, consolidating or failed.")
    entry: Entry | None = Field(
        description="The stored note (or, when retained, the one that stands); null when failed."
    )
    usage: Usage = Field(description="What the call did.")
    reason: str | None = Field(default=None, description="Why it failed, when status is failed.")


def _entry(note: Memory) -> Entry:
    return Entry(
        id=str(note.pk),
        layer=note.layer,
        kind=note.kind,
        body=note.content,
        taskId=str(note.task_id) if note.task_id else None,
        sourceEventId=note.source_event_id,
        revision=note.source_event_revision,
        supersedes=str(note.supersedes_id) if note.supersedes_id else None,
        status=note.status,
        createdAt=note.created_at.isoformat(),
    )


def _out(trained: Trained) -> TrainOut:
    return TrainOut(
        status=trained.status,
        entry=_entry(trained.note) if trained.note is not None else None,
        usage=Usage(
            notesStored=trained.stored, notesRetired=trained.retired, nearDuplicates=trained.near_duplicates
        ),
        reason=trained.reason,
    )


def train(call: ToolCall, args: TrainIn) -> TrainOut:
    note = memory_train_check(
        member=call.member,
        key=call.access_key,
        task_id=call.task_id,
        body=args.body,
        layer=args.layer,
        kind=args.kind,
        source_event_id=args.source.eventId if args.source else None,
        source_revision=args.source.revision if args.source else None,
        supersedes_id=args.supersedes.entryId if args.supersedes is not None else None,
    )

    def produce() -> TrainOut:
        return _out(memory_train(note=note, member=call.member, key=call.access_key))

    task = note.task
    arguments: dict[str, Any] = args.model_dump()
    if args.source is not None:
        return idempotent(
            call=call,
            tool="memory.train",
            project=task.project,
            workspace=f"task:{task.pk}",
            arguments=arguments,
            output_model=TrainOut,
            produce=produce,
            key=f"source:{args.source.eventId}#{args.source.revision}",
        )
    return idempotent(
        call=call,
        tool="memory.train",
        project=task.project,
        workspace=f"task:{task.pk}",
        arguments=arguments,
        output_model=TrainOut,
        produce=produce,
    )


registry.register(
    ToolSpec(
        name="memory.train",
        toolset="enterprise",
        title="Teach enterprise memory",
        summary="Teach enterprise memory one note, at the task layer by default.",
        description=(
            "Teach enterprise memory one note. Pass body, optionally layer (task, the default; member and role are "
            "accepted; team and enterprise only when this task version grants that layer and the source event id "
            "starts with the granted prefix), source ({eventId, revision}) naming the event you learned it from, so "
            "retrying it is not stored twice, and kind (fact, the default; inference, preference or correction). To "
            "correct a note, pass kind correction and supersedes ({entryId}) naming the entry it replaces: that "
            "retires the old note when it is in the layer you are writing, and a team or enterprise note only when "
            "this version grants that layer for the note's event id. Returns status (accepted, retained, "
            "consolidating or failed), the stored entry and usage. Author and enterprise come from this run, never "
            "from you. Train what the run observed, never what an ask just gave back."
        ),
        input_model=TrainIn,
        output_model=TrainOut,
        scope="tasks:write",
        handler=train,
        read_only=False,
        idempotent=True,
        retry=(
            "Idempotent: a repeat of the same call acts once, or leaves the same state. Keyed on source (eventId, "
            "revision), or on the tool call (X-Idempotency-Key) when there is no source: a repeat is not stored twice."
        ),
        called_by=("a run", "the API"),
        needs=(
            "task is always allowed. member and role only on an original task, never a clone. team and enterprise "
            "only when this version grants that layer and the source event id starts with the granted prefix; a "
            "clone cannot use the grant. Reserved event ids (team: and gate:) stay refused.",
        ),
        returns=(
            "{ status, entry, usage }. status is accepted, retained, consolidating or failed. Author and enterprise "
            "come from the run."
        ),
        examples=(
            (
                "Teach a note from a run event",
                {
                    "body": "The release check needs the preview URL before it can start.",
                    "source": {"eventId": "evt_1", "revision": "1"},
                },
            ),
        ),
        api_routes=("POST /v1/tasks/:taskId/memory/train (tasks:write)",),
    )
)
