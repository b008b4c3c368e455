"""Imports: a Mnemos export, a Mem0 export or a folder of Markdown/text files, into one project.

    import_request ─► the source stored under LIFECYCLE_DIR/imports/<id>/, read once into
                      items.jsonl (one item a line: its number is the checkpoint), counted (total);
                      the import's own key minted; audited; the first chunk's job recorded
    import_step    ─► (a TenantTask: one transaction) the next IMPORT_CHUNK items from ``position``
                      through memory_create_many (the guard, the limits, the import keys), the
                      Mnemos export's stored values restored, counts and problems added, ``position``
                      moved, and the next chunk's job recorded in the same commit; the last chunk
                      sets the import done and revokes its key

A worker killed mid-chunk rolls the chunk back whole; the job's outbox row is still pending, so its
redelivery (or the sweeper) runs the chunk again from the committed ``position``, and the import keys
(``memory.ImportedRecord``) make anything already created a duplicate, never a second copy.
"""

from __future__ import annotations

import itertools
import json
import re
import shutil
import uuid
from collections.abc import Callable, Iterator
from dataclasses import asdict
from datetime import datetime
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.db import transaction
from django.utils import timezone

from accounts import access
from accounts.models import AccessKey, Member, Project, Role, Scope, Team, Workspace
from accounts.services.audit import audit_record
from accounts.services.keys import access_key_create, access_key_revoke
from accounts.services.workspaces import workspace_get_or_create
from accounts.tasks import enqueue
from core.errors import InvalidInput, LimitExceeded, MnemosError, Unprocessable
from memory.models import (
    DataImport,
    Entity,
    ImportedRecord,
    ImportFormat,
    Memory,
    MemoryLink,
    Task,
    TaskVersion,
    TransferState,
)
from memory.services.batch import memory_create_many
from memory.services.events import transfer_finished_event_record
from memory.services.import_readers import Bad, Item, Record, items_read, zip_extract
from memory.services.memories import MemoryDraft, entities_get_or_create, tags_get_or_create
from memory.text import fold

IMPORT_TOOL = "import"
PREPARED = "items.jsonl"
OPTIONS = "options.json"
MAX_PROBLEMS = 1000
UNKNOWN_FORMAT = "format must be one of: mnemos, mem0, markdown"
TASK_NAMESPACE = uuid.UUID("5b0f6a3e-2c41-4d8e-9a57-1f0c9e3d7a21")
# What a Mnemos export's memory line restores after the save, besides the references by id or name.
_STORED = ("fact_version", "status", "source_forgotten", "redactions", "guard_version")


def import_folder(import_id: uuid.UUID | str) -> Path:
    return Path(settings.LIFECYCLE_DIR) / "imports" / str(import_id)


def import_key_of(*, format: str, key: str) -> str:
    """The import key of a source item: ``memory.ImportedRecord.key``."""
    return f"{format}:{key}"[:300]


def imported_task_id(*, project_id: object, task_id: str) -> uuid.UUID:
    """The id an exported task gets in this project: derived, so a re-run finds it again."""
    return uuid.uuid5(TASK_NAMESPACE, f"{project_id}:{task_id}")


def safe_name(name: str) -> str:
    """An uploaded file's name as a plain file name here (no folders, no odd characters)."""
    cleaned = re.sub(r"[^\w.\-]", "_", Path(name.replace("\\", "/")).name)[:100].strip(".")
    return cleaned or "upload"


def _store(*, format: str, source: Path | IO[bytes], name: str, folder: Path) -> Path:
    """Copy the source into the import's folder (an upload is written there first); a zip of text
    files is unpacked. Returns what the reader reads."""
    name = safe_name(name)
    suffix = Path(name).suffix.lower()[:12]
    if not isinstance(source, Path):
        upload = folder / f"upload{suffix}"
        with upload.open("wb") as out:
            shutil.copyfileobj(source, out, 1024 * 1024)
        source = upload
    if not source.exists():
        raise InvalidInput(f"no such file or folder: {source}", code="import_source_missing")
    if format != ImportFormat.MARKDOWN:
        if source.is_dir():
            raise Unprocessable(f"a {format} import reads one file, not a folder", code="import_unreadable")
        stored = folder / f"source{suffix}"
        if source != stored:
            shutil.copyfile(source, stored)
        return stored
    stored = folder / "source"
    if source.is_dir():
        shutil.copytree(source, stored, symlinks=True)
    elif suffix == ".zip":
        stored.mkdir()
        zip_extract(source, stored)
    else:
        stored.mkdir()
        shutil.copy2(source, stored / Path(name).name)
    return stored


def _prepare(*, format: str, stored: Path, folder: Path, split_headings: bool) -> int:
    """Read the whole source once into items.jsonl (one item a line); how many items."""
    count = 0
    with (folder / PREPARED).open("w", encoding="utf-8") as out:
        for read in items_read(format=format, path=stored, split_headings=split_headings):
            if isinstance(read, Record) and read.type == "header":
                continue
            kind = "item" if isinstance(read, Item) else "bad" if isinstance(read, Bad) else "record"
            out.write(json.dumps({"t": kind, **asdict(read)}, ensure_ascii=False, separators=(",", ":")))
            out.write("\n")
            count += 1
    return count


def import_request(
    *,
    member: Member,
    project: Project,
    format: str,
    source: Path | IO[bytes],
    original_name: str = "",
    workspace: str = "default",
    split_headings: bool = False,
    key: AccessKey | None = None,
    start: bool = True,
) -> DataImport:
    """Store and read the source, record the import and (``start``) its first chunk's job.

    Who may: whoever may write into the project's folder (``accounts.access``; with ``key``, the
    requesting key's folder binding too). The import writes under a key of its own, minted here for
    the member (``memory:write`` on the project, its secret never shown) and revoked when it ends, so
    its memories name the import and the member in their audit trail.
    """
    if format not in ImportFormat.values:
        raise InvalidInput(UNKNOWN_FORMAT, code="import_format")
    folder_row = workspace_get_or_create(project=project, name=workspace)
    access.place_write_check(member=member, key=key, project=project, workspace_id=folder_row.pk)
    data_import = DataImport(
        id=uuid.uuid4(),
        enterprise_id=project.enterprise_id,
        format=format,
        project=project,
        workspace=folder_row.name,
        original_name=(original_name or (source.name if isinstance(source, Path) else ""))[:300],
        requested_by=member,
    )
    folder = import_folder(data_import.pk)
    folder.mkdir(parents=True)
    try:
        stored = _store(format=format, source=source, name=original_name or str(source), folder=folder)
        (folder / OPTIONS).write_text(json.dumps({"split_headings": split_headings}))
        data_import.total = _prepare(
            format=format, stored=stored, folder=folder, split_headings=split_headings
        )
    except BaseException:
        shutil.rmtree(folder, ignore_errors=True)
        raise
    data_import.path = str(stored)
    data_import.access_key, _ = access_key_create(
        member=member, project=project, scopes=[Scope.MEMORY_WRITE], label=f"import {data_import.pk}"
    )
    data_import.save(force_insert=True)
    audit_record(
        action="import.request",
        target=data_import,
        details={
            "format": format,
            "project": str(project.pk),
            "workspace": data_import.workspace,
            "original_name": data_import.original_name,
            "items": data_import.total,
            "split_headings": split_headings,
            "key": str(data_import.access_key.pk),
        },
    )
    if start:
        _enqueue_step(data_import)
    return data_import


def _enqueue_step(data_import: DataImport) -> None:
    enqueue("memory.import_step", enterprise_id=str(data_import.enterprise_id), import_id=str(data_import.pk))


def _chunk(data_import: DataImport, size: int) -> list[dict[str, Any]]:
    with (import_folder(data_import.pk) / PREPARED).open(encoding="utf-8") as lines:
        return [
            json.loads(line)
            for line in itertools.islice(lines, data_import.position, data_import.position + size)
        ]


def _time(value: str | None) -> datetime | None:
    return datetime.fromisoformat(value) if value else None


class _Chunk:
    """One chunk's writing: caches of the names it resolves, and the tallies it adds."""

    def __init__(self, data_import: DataImport) -> None:
        self.imp = data_import
        self.project: Project = data_import.project
        self.member: Member = data_import.requested_by  # type: ignore[assignment]
        self.key: AccessKey = data_import.access_key  # type: ignore[assignment]
        self.workspaces: dict[str, Workspace] = {}
        self.members: dict[str, Member | None] = {}
        self.counts = {"created": 0, "duplicates": 0, "rejected": 0, "errors": 0}
        self.problems: list[dict[str, Any]] = []

    def problem(self, row: dict[str, Any], reason: str) -> None:
        entry = {"line": row["line"], "reason": reason}
        if row.get("source"):
            entry["source"] = row["source"]
        self.problems.append(entry)

    def workspace(self, name: str | None) -> Workspace:
        name = name or self.imp.workspace
        if name not in self.workspaces:
            self.workspaces[name] = workspace_get_or_create(project=self.project, name=name)
        return self.workspaces[name]

    def member_by_email(self, email: str | None) -> Member | None:
        if not email:
            return None
        if email not in self.members:
            self.members[email] = (
                Member.objects.select_related("user")
                .filter(user__email__iexact=email, is_active=True)
                .first()
            )
        return self.members[email]

    # -- memories --------------------------------------------------------------------------------

    def draft(self, row: dict[str, Any]) -> MemoryDraft | MnemosError:
        if row["t"] == "bad":  # refused while it was read: the batch reports it in its place
            return Unprocessable(row["reason"], code="import_bad_line")
        f = row["fields"]
        try:
            return MemoryDraft(
                project=self.project,
                workspace=self.workspace(f.get("workspace")),
                author=self.member,
                access_key=self.key,
                content=f["content"],
                summary=f.get("summary") or "",
                kind=f.get("kind") or "fact",
                layer=f.get("layer") or "project",
                visibility=f.get("visibility") or "project",
                scope=f.get("scope") or "shared",
                source=f.get("source") or "import",
                source_id=f.get("source_id"),
                source_hash=f.get("source_hash"),
                source_revision=f.get("source_revision"),
                origin=f.get("origin"),
                source_event_id=f.get("source_event_id"),
                source_event_revision=f.get("source_event_revision"),
                fact_key=f.get("fact_key"),
                confidence=f.get("confidence", 0.5),
                timestamp=_time(f.get("timestamp")),
                created_at=_time(f.get("created_at")),
                entities=[(name, type_) for name, type_ in f.get("entities") or []],
                tags=list(f.get("tags") or []),
                import_key=import_key_of(format=self.imp.format, key=row["key"]),
            )
        except MnemosError as exc:  # a folder deleted since the export, say
            return exc

    def memories(self, rows: list[dict[str, Any]]) -> None:
        drafts = [self.draft(row) for row in rows]
        results = memory_create_many(drafts=drafts, tool=IMPORT_TOOL)
        restored = []
        for row, result in zip(rows, results, strict=True):
            if result.status == "created":
                self.counts["created"] += 1
                if row.get("restore"):
                    restored.append((row, result.id))
            elif result.status == "duplicate":
                self.counts["duplicates"] += 1
            elif result.status == "rejected":
                self.counts["rejected"] += 1
                self.problem(row, f"rejected by Memory Guard: {result.error}")
            else:
                self.counts["errors"] += 1
                self.problem(row, str(result.error))
        if restored:
            self.restore(restored)

    def mapped(self, old_ids: set[str]) -> dict[str, str]:
        """Exported memory ids -> this import's memories (its import keys)."""
        keys = {import_key_of(format=ImportFormat.MNEMOS, key=i): i for i in old_ids if i}
        rows = ImportedRecord.objects.filter(project=self.project, key__in=list(keys)).values_list(
            "key", "memory_id"
        )
        return {keys[key]: str(memory_id) for key, memory_id in rows}

    def restore(self, created: list[tuple[dict[str, Any], str | None]]) -> None:
        """A Mnemos export's stored values on the memories just created (docs/export-format.md)."""
        wanted = set()
        for row, _ in created:
            wanted |= set(row["restore"].get("derived_from") or []) | {row["restore"].get("supersedes") or ""}
        mapped = self.mapped(wanted)
        teams = {t.slug: t for t in Team.objects.all()}
        roles = {r.slug: r for r in Role.objects.all()}
        task_ids = {
            str(pk)
            for pk in Task.objects.filter(
                pk__in=[
                    imported_task_id(project_id=self.project.pk, task_id=row["restore"]["task"])
                    for row, _ in created
                    if row["restore"].get("task")
                ]
            ).values_list("pk", flat=True)
        }
        memories = {str(m.pk): m for m in Memory.objects.filter(pk__in=[pk for _, pk in created])}
        changed = []
        for row, pk in created:
            memory, r = memories[str(pk)], row["restore"]
            for name in _STORED:
                if name in r:
                    setattr(memory, name, r[name])
            memory.forgotten_at = _time(r.get("forgotten_at"))
            memory.author = self.member_by_email(r.get("author")) or self.member
            memory.team = teams.get(r.get("team") or "")
            memory.role = roles.get(r.get("role") or "")
            task = imported_task_id(project_id=self.project.pk, task_id=r["task"]) if r.get("task") else None
            memory.task_id = task if str(task) in task_ids else None
            dropped = [
                i for i in [*(r.get("derived_from") or []), r.get("supersedes")] if i and i not in mapped
            ]
            memory.derived_from = [uuid.UUID(mapped[i]) for i in r.get("derived_from") or [] if i in mapped]
            memory.supersedes_id = mapped.get(r.get("supersedes") or "")
            if dropped:
                self.problem(row, f"kept without references to memories not imported: {', '.join(dropped)}")
            if r.get("embedding"):
                memory.embedding = r["embedding"]
                memory.embedding_model = r.get("embedding_model") or ""
                memory.embedding_dim = r.get("embedding_dim")
                memory.archivist_waiting = False
            changed.append(memory)
        fields = [*_STORED, "forgotten_at", "author", "team", "role", "task", "derived_from", "supersedes"]
        Memory.objects.bulk_update(changed, fields)
        with_vectors = [m for m in changed if m.embedding is not None]
        for memory in with_vectors:
            Memory.objects.filter(pk=memory.pk).update(
                embedding=memory.embedding,
                embedding_model=memory.embedding_model,
                embedding_dim=memory.embedding_dim,
                archivist_waiting=False,
            )

    # -- the export's other lines ----------------------------------------------------------------

    def record(self, row: dict[str, Any]) -> None:
        kind, data = row["type"], row["data"]
        if kind == "entity":
            [(entity, created)] = entities_get_or_create([(data["name"], data.get("entity_type") or "")])
            if created and data.get("created_at"):
                Entity.objects.filter(pk=entity.pk).update(created_at=_time(data["created_at"]))
        elif kind == "tag":
            tags_get_or_create([data["path"]])
        elif kind == "task":
            self.task(data)

    def task(self, data: dict[str, Any]) -> None:
        task_id = imported_task_id(project_id=self.project.pk, task_id=data["id"])
        if Task.objects.filter(pk=task_id).exists():
            return
        clone_of = (
            imported_task_id(project_id=self.project.pk, task_id=data["clone_of"])
            if data.get("clone_of")
            else None
        )
        creator = self.member_by_email(data.get("created_by"))
        task = Task.objects.create(
            id=task_id,
            enterprise_id=self.project.enterprise_id,
            project=self.project,
            team=Team.objects.filter(slug=data.get("team") or "").first(),
            name=data["name"][:200],
            goal=data.get("goal") or "",
            clone_of_id=clone_of if clone_of and Task.objects.filter(pk=clone_of).exists() else None,
            created_by=creator,
            **({"created_at": _time(data["created_at"])} if data.get("created_at") else {}),
        )
        TaskVersion.objects.bulk_create(
            [
                TaskVersion(
                    enterprise_id=task.enterprise_id,
                    task=task,
                    number=v["number"],
                    grants=v.get("grants") or [],
                    **({"created_at": _time(v["created_at"])} if v.get("created_at") else {}),
                )
                for v in data.get("versions") or []
            ]
        )
        audit_record(
            action="task.create", target=task, details={"import": str(self.imp.pk), "exported_id": data["id"]}
        )

    def links(self, rows: list[dict[str, Any]]) -> None:
        mapped = self.mapped({row["data"][end] for row in rows for end in ("src", "dst")})
        made = []
        for row in rows:
            data = row["data"]
            missing = [data[end] for end in ("src", "dst") if data[end] not in mapped]
            if missing:
                self.counts["errors"] += 1
                self.problem(row, f"link {data['kind']}: memory {', '.join(missing)} was not imported")
                continue
            made.append(
                MemoryLink(
                    enterprise_id=self.project.enterprise_id,
                    kind=data["kind"],
                    src_id=mapped[data["src"]],
                    dst_id=mapped[data["dst"]],
                    relation=data.get("relation") or "",
                    score=data.get("score"),
                    protected=bool(data.get("protected")),
                    by_archivist=bool(data.get("by_archivist")),
                    revoked_at=_time(data.get("revoked_at")),
                    **({"asserted_at": _time(data["asserted_at"])} if data.get("asserted_at") else {}),
                )
            )
        MemoryLink.objects.bulk_create(made, ignore_conflicts=True)

    def run(self, rows: list[dict[str, Any]]) -> None:
        """The rows in order; consecutive memories (and links) written together."""
        for kind, group in itertools.groupby(rows, key=_group):
            batch = list(group)
            if kind == "item":
                self.memories(batch)
            elif kind == "link":
                self.links(batch)
            else:
                for row in batch:
                    self.record(row)


def _group(row: dict[str, Any]) -> str:
    """Memories and bad lines go to the batch together (one batch for a chunk of them); links together."""
    return "item" if row["t"] in ("item", "bad") else str(row["type"])


def _end(data_import: DataImport, *, state: str, error: str = "") -> None:
    """The import's end (done or failed): its key revoked and, once that commits, its copy of the
    source deleted. An import's file is kept only while it runs, so no copy of a memory outlives an
    erasure in an import's folder (docs/lifecycle.md)."""
    data_import.state, data_import.error, data_import.finished_at = state, error, timezone.now()
    transfer_finished_event_record(kind="import", transfer=data_import)
    if data_import.access_key is not None:
        access_key_revoke(key=data_import.access_key)
    folder = import_folder(data_import.pk)
    transaction.on_commit(lambda: shutil.rmtree(folder, ignore_errors=True))


def _entities_deprecated(data_import: DataImport) -> None:
    """A Mnemos export's deprecated entities, deprecated again once every memory naming them is in
    (the write path revives an entity a memory names)."""
    keys = []
    with (import_folder(data_import.pk) / PREPARED).open(encoding="utf-8") as lines:
        for line in lines:
            row = json.loads(line)
            if row["t"] == "record" and row["type"] == "entity" and row["data"].get("deprecated"):
                keys.append(fold(row["data"]["name"]))
    if keys:
        Entity.objects.filter(key__in=keys).update(deprecated=True)


def import_step(*, import_id: str, chain: bool = True) -> DataImport | None:
    """The next chunk of an import, in the caller's transaction (a job's, or the command's); with
    ``chain`` the next chunk's job is recorded in it. A done or failed import changes nothing."""
    data_import = (
        DataImport.objects.select_for_update(of=("self",))
        .select_related("project__enterprise__plan", "access_key__enterprise__plan", "requested_by__user")
        .filter(pk=import_id)
        .first()
    )
    if data_import is None or data_import.state in (TransferState.DONE, TransferState.FAILED):
        return data_import
    if data_import.access_key is None or data_import.requested_by is None:
        _end(
            data_import,
            state=TransferState.FAILED,
            error="the import's key or the member who asked for it is gone",
        )
        data_import.save()
        audit_record(action="import.fail", target=data_import, details={"error": data_import.error})
        return data_import
    data_import.state = TransferState.RUNNING
    rows = _chunk(data_import, settings.IMPORT_CHUNK)
    chunk = _Chunk(data_import)
    try:
        with transaction.atomic():
            chunk.run(rows)
    except LimitExceeded as exc:
        _end(data_import, state=TransferState.FAILED, error=str(exc))
        data_import.save()
        audit_record(
            action="import.fail",
            target=data_import,
            details={"error": str(exc), "position": data_import.position},
        )
        return data_import
    data_import.position += len(rows)
    for name, count in chunk.counts.items():
        setattr(data_import, name, getattr(data_import, name) + count)
    room = MAX_PROBLEMS - len(data_import.problems)
    data_import.problems = [*data_import.problems, *chunk.problems[: max(0, room)]]
    audit_record(
        action="import.chunk",
        target=data_import,
        details={"position": data_import.position, **chunk.counts},
    )
    if data_import.position >= data_import.total:
        if data_import.format == ImportFormat.MNEMOS:
            _entities_deprecated(data_import)
        _end(data_import, state=TransferState.DONE)
        audit_record(
            action="import.finish",
            target=data_import,
            details={name: getattr(data_import, name) for name in ("total", *chunk.counts)},
        )
    elif chain:
        _enqueue_step(data_import)
    data_import.save()
    return data_import


def import_run_here(
    *, import_id: str, enterprise_id: str, progress: Callable[[DataImport], None]
) -> DataImport:
    """Every chunk of an import in this process (``manage.py memory_import``), one transaction each,
    calling ``progress`` after each."""
    from core.tenancy import tenant_context

    while True:
        with tenant_context(enterprise_id=enterprise_id, door="command"):
            data_import = import_step(import_id=import_id, chain=False)
        assert data_import is not None
        progress(data_import)
        if data_import.state in (TransferState.DONE, TransferState.FAILED):
            return data_import


def import_id_map(*, data_import: DataImport) -> dict[str, str]:
    """Exported id -> id here, for every memory and task a Mnemos import brought in (the round trip)."""
    prefix = f"{ImportFormat.MNEMOS}:"
    found = {
        key[len(prefix) :]: str(memory_id)
        for key, memory_id in ImportedRecord.objects.filter(
            project=data_import.project, key__startswith=prefix
        ).values_list("key", "memory_id")
    }
    for row in _rows(data_import):
        if row["t"] == "record" and row["type"] == "task":
            found[row["data"]["id"]] = str(
                imported_task_id(project_id=data_import.project_id, task_id=row["data"]["id"])
            )
    return found


def _rows(data_import: DataImport) -> Iterator[dict[str, Any]]:
    with (import_folder(data_import.pk) / PREPARED).open(encoding="utf-8") as lines:
        for line in lines:
            yield json.loads(line)
