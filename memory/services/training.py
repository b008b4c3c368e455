"""memory.train's writes: one note a run teaches enterprise memory, in a layer the run may write.

``memory_train_check`` refuses what the run may not teach (before the call's idempotency record);
``memory_train`` stores the note, unless the layer already holds it (retained), and links the near
duplicates it will be consolidated with.
"""

from __future__ import annotations

from dataclasses import dataclass

from accounts import access
from accounts.models import AccessKey, Member
from accounts.services.workspaces import workspace_get_or_create
from core.errors import Forbidden, LimitExceeded, NotFound, Unprocessable
from memory.models import Layer, LinkKind, Memory, MemoryLink, Status, Task, TaskVersion
from memory.selectors.visibility import memory_get_visible
from memory.services.memories import MemoryDraft, memory_create
from memory.text import content_words, fold_content

TRAIN_LAYERS = ("task", "member", "role", "team", "enterprise")
KINDS = ("fact", "inference", "preference", "correction")
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
# Word overlap (Jaccard) from which an existing note counts as a near duplicate of the new one.
NEAR_DUPLICATE = 0.6
# How many of the layer's latest notes a new one is compared with.
RECENT_NOTES = 200
TOOL = "memory.train"


@dataclass(frozen=True)
class TrainingNote:
    """A note the run may teach: checked, not stored yet."""

    task: Task
    body: str
    layer: str
    kind: str
    source_event_id: str | None
    source_revision: str | None
    supersedes: Memory | None


@dataclass(frozen=True)
class Trained:
    status: str  # accepted, retained, consolidating or failed
    note: Memory | None  # the stored note, or the one that stands when retained; None when failed
    stored: int = 0
    retired: int = 0
    near_duplicates: int = 0
    reason: str | None = None  # why it failed


def _task(*, member: Member, key: AccessKey, task_id: str | None) -> Task:
    if not task_id:
        raise Unprocessable(NO_TASK, code="no_task")
    task = Task.objects.select_related("project", "team").filter(pk=task_id).first()
    if task is None or not access.task_may_read(member=member, key=key, task=task):
        raise NotFound("task not found", code="not_found")
    if not access.task_may_run(member=member, key=key, task=task):
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


def memory_train_check(
    *,
    member: Member,
    key: AccessKey,
    task_id: str | None,
    body: str,
    layer: str,
    kind: str,
    source_event_id: str | None,
    source_revision: str | None,
    supersedes_id: str | None,
) -> TrainingNote:
    """The note, if this run may teach it: its task, layer, kind, and the entry a correction retires."""
    task = _task(member=member, key=key, task_id=task_id)
    text = body.strip()
    if not text:
        raise Unprocessable("body must not be empty", code="body_empty")
    if kind not in KINDS:
        raise Unprocessable("kind must be fact, inference, preference or correction", code="invalid_kind")
    _check_layer(task, layer, source_event_id)
    old = None
    if supersedes_id is not None:
        if kind != "correction":
            raise Unprocessable("supersedes needs kind correction", code="supersedes_needs_correction")
        old = memory_get_visible(member=member, key=key, memory_id=supersedes_id)
        if old is None:
            raise NotFound("supersedes names an entry that does not exist", code="not_found")
        if not _may_retire(task, old, layer):
            raise Unprocessable(
                "this call may not retire that entry: it is in a layer this call cannot write",
                code="supersede_denied",
            )
    return TrainingNote(
        task=task,
        body=text,
        layer=layer,
        kind=kind,
        source_event_id=source_event_id,
        source_revision=source_revision,
        supersedes=old,
    )


def memory_train(*, note: TrainingNote, member: Member, key: AccessKey) -> Trained:
    """Store the note, or keep the one that says the same (retained); a plan limit fails it."""
    task, body, old = note.task, note.body, note.supersedes
    same_layer = Memory.objects.filter(task=task, layer=note.layer, forgotten_at__isnull=True).exclude(
        status=Status.SUPERSEDED
    )
    if note.layer in ("member",):
        same_layer = same_layer.filter(author=member)
    normal = fold_content(body)
    recent = list(same_layer.order_by("-created_at")[:RECENT_NOTES])
    for existing in recent:
        if fold_content(existing.content) == normal and old is None:
            return Trained(status="retained", note=existing)
    words = content_words(body)
    # The note a correction retires is being replaced, not consolidated with.
    near = [
        n
        for n in recent
        if (old is None or n.pk != old.pk)
        and words
        and len(words & content_words(n.content)) / len(words | content_words(n.content)) >= NEAR_DUPLICATE
    ]
    role = member.roles.order_by("name").first() if note.layer == "role" else None
    if note.layer == "role" and role is None:
        raise Unprocessable("the role layer needs a role, and this member holds none", code="no_role")
    workspace = workspace_get_or_create(project=task.project, name=f"task-{task.pk}")
    try:
        stored = memory_create(
            draft=MemoryDraft(
                project=task.project,
                workspace=workspace,
                author=member,
                access_key=key,
                content=body,
                summary=body[:500],
                kind=note.kind,
                layer=note.layer,
                visibility=LAYER_VISIBILITY[note.layer],
                source="run",
                source_event_id=note.source_event_id,
                source_event_revision=note.source_revision,
                team=task.team or task.project.team,
                task=task,
                role=role,
                supersedes=old,
            ),
            tool=TOOL,
        )
    except LimitExceeded as exc:
        return Trained(status="failed", note=None, reason=exc.message)
    retired = 0
    if old is not None and old.status != Status.SUPERSEDED:
        Memory.objects.filter(pk=old.pk).update(status=Status.SUPERSEDED)
        retired = 1
    for other in near:
        MemoryLink.objects.get_or_create(
            enterprise_id=stored.enterprise_id,
            kind=LinkKind.DUPLICATE,
            src=stored,
            dst=other,
            defaults={"by_archivist": False},
        )
    return Trained(
        status="consolidating" if near else "accepted",
        note=stored,
        stored=1,
        retired=retired,
        near_duplicates=len(near),
    )
