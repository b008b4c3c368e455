"""memory.train (seed enterprise-memory-tools): teach enterprise memory one note from a run."""

from __future__ import annotations

import re
from typing import Annotated, Any

from pydantic import ConfigDict, Field

from accounts import access
from accounts.errors import Forbidden, LimitExceeded, NotFound, Unprocessable
from accounts.services.workspaces import workspace_get_or_create
from memory.models import Layer, LinkKind, Memory, MemoryLink, Status, Task, TaskVersion
from memory.registry import ToolCall, ToolSpec, registry
from memory.selectors.visibility import memory_get_visible
from memory.services.idempotency import idempotent
from memory.services.memories import MemoryDraft, memory_create
from memory.tools.common import ID_MAX, Closed, stated

TRAIN_LAYERS = ("task", "member", "role", "team", "enterprise")
RESERVED_PREFIXES = ("team:", "gate:")
LAYER_VISIBILITY = {
    "task": "project",
    "member": "author",
    "role": "enterprise",
    "team": "team",
    "enterprise": "enterprise",
}
NO_TASK = (
    "memory.train runs inside a task: call it with a run key (bound to a task) or through "
    "POST /v1/tasks/<taskId>/memory/train"
)
NEAR_DUPLICATE = 0.6


KINDS = ("fact", "inference", "preference", "correction")
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


def _words(text: str) -> set[str]:
    return set(re.findall(r"\w+", text.casefold()))


def _task(call: ToolCall) -> Task:
    if not call.task_id:
        raise Unprocessable(NO_TASK, code="no_task")
    task = Task.objects.select_related("project", "team").filter(pk=call.task_id).first()
    if task is None or not access.task_may_read(member=call.member, key=call.access_key, task=task):
        raise NotFound("task not found", code="not_found")
    if not access.task_may_run(member=call.member, key=call.access_key, task=task):
        raise Forbidden(access.TASK_RUN_DENIED, code="task_write_denied")
    return task


def _grant(task: Task, layer: str, event_id: str | None) -> bool:
    if task.is_clone or not event_id:
        return False
    version = TaskVersion.objects.filter(task=task).order_by("-number").first()
    grants = version.grants if version else []
    return any(g.get("layer") == layer and event_id.startswith(str(g.get("prefix", "\0"))) for g in grants)


def _check_layer(task: Task, layer: str, event_id: str | None) -> None:
    if layer not in TRAIN_LAYERS:
        raise Unprocessable(f"layer must be one of {', '.join(TRAIN_LAYERS)}", code="invalid_layer")
    if event_id and event_id.startswith(RESERVED_PREFIXES):
        raise Unprocessable(
            f"source event ids starting with {' or '.join(RESERVED_PREFIXES)} are reserved and always refused",
            code="reserved_event_id",
        )
    if layer in ("member", "role") and task.is_clone:
        raise Unprocessable(
            f"the {layer} layer is written only from an original task, never a clone", code="layer_denied"
        )
    if layer in ("team", "enterprise") and not _grant(task, layer, event_id):
        raise Unprocessable(
            f"the {layer} layer needs this task version's grant, a source.eventId starting with the granted prefix, "
            "and an original task",
            code="layer_denied",
        )


def _may_retire(task: Task, old: Memory, layer: str) -> bool:
    if old.layer in (Layer.TEAM, Layer.ENTERPRISE):
        return _grant(task, old.layer, old.source_event_id)
    return old.layer == layer and (old.layer != Layer.TASK or old.task_id == task.pk)


def train(call: ToolCall, args: TrainIn) -> TrainOut:
    task = _task(call)
    body = args.body.strip()
    if not body:
        raise Unprocessable("body must not be empty", code="body_empty")
    if args.kind not in ("fact", "inference", "preference", "correction"):
        raise Unprocessable("kind must be fact, inference, preference or correction", code="invalid_kind")
    event_id = args.source.eventId if args.source else None
    _check_layer(task, args.layer, event_id)
    old = None
    if args.supersedes is not None:
        if args.kind != "correction":
            raise Unprocessable("supersedes needs kind correction", code="supersedes_needs_correction")
        old = memory_get_visible(member=call.member, key=call.access_key, memory_id=args.supersedes.entryId)
        if old is None:
            raise NotFound("supersedes names an entry that does not exist", code="not_found")
        if not _may_retire(task, old, args.layer):
            raise Unprocessable(
                "this call may not retire that entry: it is in a layer this call cannot write",
                code="supersede_denied",
            )

    def produce() -> TrainOut:
        same_layer = Memory.objects.filter(task=task, layer=args.layer, forgotten_at__isnull=True).exclude(
            status=Status.SUPERSEDED
        )
        if args.layer in ("member",):
            same_layer = same_layer.filter(author=call.member)
        normal = " ".join(body.casefold().split())
        recent = list(same_layer.order_by("-created_at")[:200])
        for note in recent:
            if " ".join(note.content.casefold().split()) == normal and old is None:
                return TrainOut(
                    status="retained",
                    entry=_entry(note),
                    usage=Usage(notesStored=0, notesRetired=0, nearDuplicates=0),
                )
        words = _words(body)
        # The note a correction retires is being replaced, not consolidated with.
        near = [
            n
            for n in recent
            if (old is None or n.pk != old.pk)
            and words
            and len(words & _words(n.content)) / len(words | _words(n.content)) >= NEAR_DUPLICATE
        ]
        role = call.member.roles.order_by("name").first() if args.layer == "role" else None
        if args.layer == "role" and role is None:
            raise Unprocessable("the role layer needs a role, and this member holds none", code="no_role")
        workspace = workspace_get_or_create(project=task.project, name=f"task-{task.pk}")
        try:
            note = memory_create(
                draft=MemoryDraft(
                    project=task.project,
                    workspace=workspace,
                    author=call.member,
                    access_key=call.access_key,
                    content=body,
                    summary=body[:500],
                    kind=args.kind,
                    layer=args.layer,
                    visibility=LAYER_VISIBILITY[args.layer],
                    source="run",
                    source_event_id=event_id,
                    source_event_revision=args.source.revision if args.source else None,
                    team=task.team or task.project.team,
                    task=task,
                    role=role,
                    supersedes=old,
                ),
                tool="memory.train",
            )
        except LimitExceeded as exc:
            return TrainOut(
                status="failed",
                entry=None,
                usage=Usage(notesStored=0, notesRetired=0, nearDuplicates=0),
                reason=exc.message,
            )
        retired = 0
        if old is not None and old.status != Status.SUPERSEDED:
            Memory.objects.filter(pk=old.pk).update(status=Status.SUPERSEDED)
            retired = 1
        for other in near:
            MemoryLink.objects.get_or_create(
                enterprise_id=note.enterprise_id,
                kind=LinkKind.DUPLICATE,
                src=note,
                dst=other,
                defaults={"by_archivist": False},
            )
        return TrainOut(
            status="consolidating" if near else "accepted",
            entry=_entry(note),
            usage=Usage(notesStored=1, notesRetired=retired, nearDuplicates=len(near)),
        )

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
