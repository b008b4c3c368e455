"""The export format's writer and the export job's steps (docs/export-format.md, ``mnemos-export`` version 1): the lines of a scope,
in their fixed order, as a stream that can stop after any line and go on from it.

``export_lines(spec, after=...)`` yields the lines after a given one (the last line of a partial file
names where it stopped: its section and its sort key), reading the database a page at a time, never
every memory at once. ``export_write`` writes a whole export to a stream (``manage.py memory_export``);
the job (``memory.services.exports.export_step``) writes it a chunk of lines per transaction.
"""

from __future__ import annotations

import hashlib
import json
import logging
import os
import tomllib
import uuid
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import IO, Any

from django.conf import settings
from django.db import connection, transaction
from django.db.models import BooleanField, Count, Exists, Model, OuterRef, Q, QuerySet
from django.db.models.expressions import RawSQL
from django.utils import timezone

from accounts.models import Enterprise, Member, Project, Workspace
from accounts.services.audit import audit_record
from accounts.tasks import TRANSIENT_ERRORS
from memory.models import (
    DataExport,
    Entity,
    ExportScope,
    Memory,
    MemoryEntity,
    MemoryLink,
    MemoryTag,
    Task,
    TaskVersion,
    TransferState,
)
from memory.services.events import transfer_finished_event_record

logger = logging.getLogger(__name__)

FORMAT = "mnemos-export"
VERSION = 1
PAGE = 500
SECTIONS = ("header", "entity", "tag", "task", "memory", "link", "footer")


@dataclass(frozen=True)
class ExportSpec:
    """What one export holds: a scope of one enterprise, as it stood at ``cutoff``."""

    scope: str
    enterprise_id: uuid.UUID
    project_id: uuid.UUID | None = None
    member_id: Any = None
    include_vectors: bool = False
    cutoff: datetime | None = None

    @classmethod
    def of(cls, export: DataExport) -> ExportSpec:
        return cls(
            scope=export.scope,
            enterprise_id=export.enterprise_id,
            project_id=export.project_id,
            member_id=export.member_id,
            include_vectors=export.include_vectors,
            cutoff=export.created_at,
        )


def in_scope(spec: ExportSpec, prefix: str = "") -> Q:
    """The scope's condition on a memory, or through a relation (``prefix`` "memory__", "dst__"): a
    join the planner keeps in its place, where an ``IN (subquery)`` on a big scope was planned badly."""
    condition = Q()
    if spec.cutoff is not None:
        condition &= Q(**{f"{prefix}created_at__lte": spec.cutoff})
    if spec.scope == ExportScope.PROJECT:
        condition &= Q(**{f"{prefix}project_id": spec.project_id})
    elif spec.scope == ExportScope.MEMBER:
        condition &= Q(**{f"{prefix}author_id": spec.member_id})
    return condition


def memories_in_scope(spec: ExportSpec) -> QuerySet[Memory]:
    """Every memory the export holds (forgotten ones too), saved up to its cutoff."""
    return Memory.objects.filter(in_scope(spec))


def _tasks_in_scope(spec: ExportSpec) -> QuerySet[Task]:
    named = Exists(memories_in_scope(spec).filter(task_id=OuterRef("pk")))
    if spec.scope == ExportScope.MEMBER:
        return Task.objects.filter(named)
    own = Q(created_at__lte=spec.cutoff) if spec.cutoff is not None else Q()
    if spec.scope == ExportScope.PROJECT:
        own &= Q(project_id=spec.project_id)
    return Task.objects.filter(own | Q(named))


# -- values ------------------------------------------------------------------------------------------


def ts(value: datetime | None) -> str | None:
    """UTC, ISO 8601 with microseconds and a Z: one spelling for every timestamp."""
    return None if value is None else value.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def line_bytes(obj: dict[str, Any]) -> bytes:
    return (json.dumps(obj, ensure_ascii=False, separators=(",", ":"), allow_nan=False) + "\n").encode()


@cache
def mnemos_version() -> str:
    with open(settings.BASE_DIR / "pyproject.toml", "rb") as f:
        return str(tomllib.load(f)["project"]["version"])


def after_key(fields: list[str], values: list[Any]) -> Q:
    """Rows after ``values`` in the order of ``fields`` (keyset paging: each page a range, no OFFSET)."""
    condition = Q()
    for depth in range(len(fields) - 1, -1, -1):
        step = Q(
            **{f"{fields[depth]}__gt": values[depth]},
            **dict(zip(fields[:depth], values[:depth], strict=True)),
        )
        condition = step if depth == len(fields) - 1 else step | condition
    return condition


def after_row(model: type[Model], columns: list[str], values: list[Any]) -> RawSQL:
    """``(columns) > (values)`` on the model's own table: a row comparison, one index range (the OR of
    ``after_key`` was planned as a scan of the whole scope on every page)."""
    table = connection.ops.quote_name(model._meta.db_table)
    names = ", ".join(f"{table}.{connection.ops.quote_name(c)}" for c in columns)
    marks = ", ".join(["%s"] * len(values))
    return RawSQL(f"({names}) > ({marks})", values, output_field=BooleanField())


def _pages(queryset: QuerySet[Any], fields: list[str], start: list[Any] | None) -> Iterator[list[Any]]:
    """The queryset's rows (``values`` dicts) in pages of ``PAGE``, ordered by ``fields`` (the model's
    own columns), after ``start``."""
    position = start
    while True:
        page = queryset.order_by(*fields)
        if position is not None:
            page = page.filter(after_row(queryset.model, fields, position))
        rows = list(page[:PAGE])
        if not rows:
            return
        yield rows
        if len(rows) < PAGE:
            return
        position = [rows[-1][f] for f in fields]


# -- the lines ---------------------------------------------------------------------------------------


def header_line(spec: ExportSpec) -> dict[str, Any]:
    enterprise = Enterprise.objects.get(pk=spec.enterprise_id)
    project = Project.objects.filter(pk=spec.project_id).first() if spec.project_id else None
    member = (
        Member.objects.select_related("user").filter(pk=spec.member_id).first() if spec.member_id else None
    )
    memories = memories_in_scope(spec)
    project_ids = set(memories.values_list("project_id", flat=True).distinct())
    project_ids |= set(_tasks_in_scope(spec).values_list("project_id", flat=True).distinct())
    if project is not None:
        project_ids.add(project.pk)
    folders: dict[Any, list[str]] = {}
    for project_id, name in Workspace.objects.filter(pk__in=memories.values("workspace_id")).values_list(
        "project_id", "name"
    ):
        folders.setdefault(project_id, []).append(name)
    embedding = None
    if spec.include_vectors:
        common = (
            memories.filter(embedding__isnull=False)
            .values("embedding_model", "embedding_dim")
            .annotate(n=Count("pk"))
            .order_by("-n", "embedding_model", "embedding_dim")
            .first()
        )
        if common is not None:
            embedding = {"model": common["embedding_model"], "dim": common["embedding_dim"]}
    return {
        "type": "header",
        "format": FORMAT,
        "version": VERSION,
        "scope": spec.scope,
        "enterprise": {"id": str(enterprise.pk), "slug": enterprise.slug, "name": enterprise.name},
        "project": {"id": str(project.pk), "slug": project.slug, "name": project.name} if project else None,
        "member": {"email": member.user.email} if member else None,
        "projects": [
            {"id": str(p.pk), "slug": p.slug, "name": p.name, "workspaces": sorted(folders.get(p.pk, []))}
            for p in Project.objects.filter(pk__in=project_ids).order_by("slug", "pk")
        ],
        "exported_at": ts(spec.cutoff),
        "mnemos_version": mnemos_version(),
        "include_vectors": spec.include_vectors,
        "embedding": embedding,
    }


def _entity_lines(spec: ExportSpec, after: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    linked = Exists(MemoryEntity.objects.filter(in_scope(spec, "memory__"), entity_id=OuterRef("pk")))
    rows = Entity.objects.filter(linked).values("key", "name", "type", "deprecated", "created_at")
    for page in _pages(rows, ["key"], [after["key"]] if after else None):
        for row in page:
            yield {
                "type": "entity",
                "name": row["name"],
                "key": row["key"],
                "entity_type": row["type"],
                "deprecated": row["deprecated"],
                "created_at": ts(row["created_at"]),
            }


def _tag_lines(spec: ExportSpec, after: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    # The tags in use are few beside the memories (a tree of names): read them whole, add the ancestors.
    used = set(
        MemoryTag.objects.filter(in_scope(spec, "memory__")).values_list("tag__path", flat=True).distinct()
    )
    paths = {"/".join(p.split("/")[:depth]) for p in used for depth in range(1, p.count("/") + 2)}
    for path in sorted(paths):
        if after is None or path > after["path"]:
            yield {"type": "tag", "path": path, "name": path.rsplit("/", 1)[-1]}


def _task_lines(spec: ExportSpec, after: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    rows = _tasks_in_scope(spec).values(
        "id",
        "project__slug",
        "team__slug",
        "name",
        "goal",
        "clone_of_id",
        "created_by__user__email",
        "created_at",
    )
    start = [_parse_ts(after["created_at"]), uuid.UUID(after["id"])] if after else None
    for page in _pages(rows, ["created_at", "id"], start):
        versions: dict[Any, list[dict[str, Any]]] = {}
        for v in TaskVersion.objects.filter(task_id__in=[r["id"] for r in page]).order_by(
            "task_id", "number"
        ):
            versions.setdefault(v.task_id, []).append(
                {"number": v.number, "grants": v.grants, "created_at": ts(v.created_at)}
            )
        for row in page:
            yield {
                "type": "task",
                "id": str(row["id"]),
                "project": row["project__slug"],
                "team": row["team__slug"],
                "name": row["name"],
                "goal": row["goal"],
                "clone_of": str(row["clone_of_id"]) if row["clone_of_id"] else None,
                "created_by": row["created_by__user__email"],
                "created_at": ts(row["created_at"]),
                "versions": versions.get(row["id"], []),
            }


MEMORY_COLUMNS = (
    "id",
    "project__slug",
    "workspace__name",
    "team__slug",
    "author__user__email",
    "role__slug",
    "task_id",
    "access_key__prefix",
    "created_at",
    "timestamp",
    "summary",
    "content",
    "kind",
    "layer",
    "visibility",
    "scope",
    "source",
    "source_id",
    "source_hash",
    "source_revision",
    "origin",
    "source_event_id",
    "source_event_revision",
    "fact_key",
    "fact_version",
    "status",
    "confidence",
    "derived_from",
    "supersedes_id",
    "source_forgotten",
    "forgotten_at",
    "redactions",
    "guard_version",
    "embedding_model",
    "embedding_dim",
)


def _memory_lines(spec: ExportSpec, after: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    columns = [*MEMORY_COLUMNS, *(["embedding"] if spec.include_vectors else [])]
    rows = memories_in_scope(spec).values(*columns)
    start = [_parse_ts(after["created_at"]), uuid.UUID(after["id"])] if after else None
    for page in _pages(rows, ["created_at", "id"], start):
        ids = [r["id"] for r in page]
        tags: dict[Any, list[str]] = {}
        for memory_id, path in MemoryTag.objects.filter(memory_id__in=ids).values_list(
            "memory_id", "tag__path"
        ):
            tags.setdefault(memory_id, []).append(path)
        entities: dict[Any, list[tuple[str, str]]] = {}
        for memory_id, key, name in MemoryEntity.objects.filter(memory_id__in=ids).values_list(
            "memory_id", "entity__key", "entity__name"
        ):
            entities.setdefault(memory_id, []).append((key, name))
        # derived_from in the export's own order (the sources' created_at, id), so that a round trip
        # with new ids writes the same list; ids the export cannot place go last.
        sources = {d for r in page for d in r["derived_from"]}
        placed = {
            pk: (created_at, pk)
            for pk, created_at in Memory.objects.filter(pk__in=sources).values_list("pk", "created_at")
        }
        for row in page:
            yield _memory_line(row, tags.get(row["id"], []), entities.get(row["id"], []), placed, spec)


def _memory_line(
    row: dict[str, Any],
    tags: list[str],
    entities: list[tuple[str, str]],
    placed: dict[Any, tuple[datetime, Any]],
    spec: ExportSpec,
) -> dict[str, Any]:
    derived = sorted(
        row["derived_from"],
        key=lambda pk: (
            (0, placed[pk][0], str(pk)) if pk in placed else (1, datetime.min.replace(tzinfo=UTC), str(pk))
        ),
    )
    line: dict[str, Any] = {
        "type": "memory",
        "id": str(row["id"]),
        "project": row["project__slug"],
        "workspace": row["workspace__name"],
        "team": row["team__slug"],
        "author": row["author__user__email"],
        "role": row["role__slug"],
        "task": str(row["task_id"]) if row["task_id"] else None,
        "access_key": row["access_key__prefix"],
        "created_at": ts(row["created_at"]),
        "timestamp": ts(row["timestamp"]),
        "summary": row["summary"],
        "content": row["content"],
        "kind": row["kind"],
        "layer": row["layer"],
        "visibility": row["visibility"],
        "scope": row["scope"],
        "source": row["source"],
        "source_id": row["source_id"],
        "source_hash": row["source_hash"],
        "source_revision": row["source_revision"],
        "origin": row["origin"],
        "source_event_id": row["source_event_id"],
        "source_event_revision": row["source_event_revision"],
        "fact_key": row["fact_key"],
        "fact_version": row["fact_version"],
        "status": row["status"],
        "confidence": row["confidence"],
        "derived_from": [str(pk) for pk in derived],
        "supersedes": str(row["supersedes_id"]) if row["supersedes_id"] else None,
        "source_forgotten": row["source_forgotten"],
        "forgotten_at": ts(row["forgotten_at"]),
        "redactions": row["redactions"],
        "guard_version": row["guard_version"],
        "tags": sorted(tags),
        "entities": [name for _, name in sorted(entities)],
        "embedding_model": row["embedding_model"],
        "embedding_dim": row["embedding_dim"],
    }
    if spec.include_vectors and row["embedding"] is not None:
        line["embedding"] = [float(x) for x in row["embedding"]]
    return line


LINK_ORDER = ["src__created_at", "src_id", "dst__created_at", "dst_id", "kind"]


def _link_lines(spec: ExportSpec, after: dict[str, Any] | None) -> Iterator[dict[str, Any]]:
    """The links a page of source memories at a time, in the memories' order: the links' own order
    (source, target, kind) without sorting every link of the scope."""
    sources = memories_in_scope(spec).order_by("created_at", "id").values_list("created_at", "id")
    links = MemoryLink.objects.filter(in_scope(spec, "dst__")).values(
        *LINK_ORDER, "relation", "score", "protected", "by_archivist", "asserted_at", "revoked_at"
    )
    position: Any = None
    resume: Q | None = None
    if after is not None:
        ends = dict(
            Memory.objects.filter(pk__in=[after["src"], after["dst"]]).values_list("pk", "created_at")
        )
        src, dst = uuid.UUID(after["src"]), uuid.UUID(after["dst"])
        position = after_row(Memory, ["created_at", "id"], [ends[src], src]) | Q(pk=src)
        resume = after_key(LINK_ORDER, [ends[src], src, ends[dst], dst, after["kind"]])
    while True:
        page = list((sources if position is None else sources.filter(position))[:PAGE])
        if not page:
            return
        rows = links.filter(src_id__in=[pk for _, pk in page])
        if resume is not None:
            rows, resume = rows.filter(resume), None
        for row in rows.order_by(*LINK_ORDER):
            yield {
                "type": "link",
                "kind": row["kind"],
                "src": str(row["src_id"]),
                "dst": str(row["dst_id"]),
                "relation": row["relation"],
                "score": row["score"],
                "protected": row["protected"],
                "by_archivist": row["by_archivist"],
                "asserted_at": ts(row["asserted_at"]),
                "revoked_at": ts(row["revoked_at"]),
            }
        if len(page) < PAGE:
            return
        created_at, pk = page[-1]
        position = after_row(Memory, ["created_at", "id"], [created_at, pk])


def _parse_ts(value: str) -> datetime:
    return datetime.strptime(value, "%Y-%m-%dT%H:%M:%S.%fZ").replace(tzinfo=UTC)


SECTION_LINES: dict[str, Callable[[ExportSpec, dict[str, Any] | None], Iterator[dict[str, Any]]]] = {
    "entity": _entity_lines,
    "tag": _tag_lines,
    "task": _task_lines,
    "memory": _memory_lines,
    "link": _link_lines,
}


def export_lines(spec: ExportSpec, *, after: dict[str, Any] | None = None) -> Iterator[dict[str, Any]]:
    """The export's lines up to (not including) the footer, after the line ``after`` (None: from the
    header). The footer needs every line's bytes: ``footer_line`` makes it from the counts and hash."""
    if after is None:
        yield header_line(spec)
        section = 0
    else:
        if after["type"] == "footer":
            return
        section = SECTIONS.index(after["type"])
    for index, name in enumerate(SECTIONS[1:-1], start=1):
        if index < section:
            continue
        yield from SECTION_LINES[name](spec, after if index == section else None)


def footer_line(*, counts: dict[str, int], lines: int, sha256: str) -> dict[str, Any]:
    return {
        "type": "footer",
        "counts": {
            "entities": counts.get("entity", 0),
            "tags": counts.get("tag", 0),
            "tasks": counts.get("task", 0),
            "memories": counts.get("memory", 0),
            "links": counts.get("link", 0),
        },
        "lines": lines,
        "sha256": sha256,
    }


class Digest:
    """The footer's running figures over written lines: their count per type, total lines and sha256."""

    def __init__(self) -> None:
        self.hash = hashlib.sha256()
        self.counts: dict[str, int] = {}
        self.lines = 0

    def add(self, kind: str, data: bytes) -> None:
        self.hash.update(data)
        self.counts[kind] = self.counts.get(kind, 0) + 1
        self.lines += 1

    def add_raw(self, data: bytes) -> None:
        """A line read back from a partial file: its type is the JSON's first key's value."""
        prefix = b'{"type":"'
        kind = data[len(prefix) : data.index(b'"', len(prefix))].decode() if data.startswith(prefix) else "?"
        self.add(kind, data)

    def footer(self) -> bytes:
        return line_bytes(footer_line(counts=self.counts, lines=self.lines, sha256=self.hash.hexdigest()))


def export_write(
    stream: IO[bytes], *, spec: ExportSpec, progress: Callable[[int], None] | None = None
) -> Digest:
    """The whole export, footer included, to a binary stream; ``progress(n)`` after each memory line.
    The caller holds the tenant context (one transaction: the database's view of one moment)."""
    digest = Digest()
    for line in export_lines(spec):
        data = line_bytes(line)
        stream.write(data)
        digest.add(line["type"], data)
        if progress is not None and line["type"] == "memory":
            progress(1)
    stream.write(digest.footer())
    return digest


def exports_dir() -> Path:
    return Path(settings.LIFECYCLE_DIR) / "exports"


def export_file(export: DataExport) -> Path:
    """Where a finished export lies (``path`` is relative to ``LIFECYCLE_DIR``)."""
    return Path(settings.LIFECYCLE_DIR) / export.path


def _part_file(export: DataExport) -> Path:
    return export_file(export).with_name(f"{export.pk}.jsonl.part")


# -- the job's steps (docs/lifecycle.md, "Export") ----------------------------------------------------------------------------------


def _last_line(f: IO[bytes], size: int) -> bytes | None:
    """The last whole line of the first ``size`` bytes of ``f`` (None for an empty file)."""
    if size == 0:
        return None
    block, end = 1 << 16, size
    tail = b""
    while end > 0:
        start = max(0, end - block)
        f.seek(start)
        tail = f.read(end - start) + tail
        end = start
        # tail ends with the last line's newline; another newline before it starts the line
        if tail.count(b"\n") >= 2 or start == 0:
            break
    return tail.rstrip(b"\n").rsplit(b"\n", 1)[-1]


def export_step(*, export_id: str) -> bool:
    """Write the next chunk of the export (``EXPORT_CHUNK_LINES`` lines) and commit how far it got;
    at the end, the footer and the download window. Whether another step is needed. Idempotent: a
    repeat of a committed step starts from the committed size; a finished or failed export is left."""
    export = DataExport.objects.select_for_update().filter(pk=export_id).first()
    if export is None or export.state in (TransferState.DONE, TransferState.FAILED):
        return False
    try:
        with transaction.atomic():
            return _step(export)
    except TRANSIENT_ERRORS:
        raise
    except Exception as exc:
        logger.exception("export %s failed", export.pk)
        export.state = TransferState.FAILED
        export.error = f"{type(exc).__name__}: {exc}"[:2000]
        export.finished_at = timezone.now()
        export.save(update_fields=["state", "error", "finished_at"])
        audit_record(action="export.fail", target=export, details={"error": export.error})
        transfer_finished_event_record(kind="export", transfer=export)
        return False


def _step(export: DataExport) -> bool:
    part, final = _part_file(export), export_file(export)
    part.parent.mkdir(parents=True, exist_ok=True)
    if final.exists() and not part.exists():
        final.rename(part)  # a last step renamed it and did not commit: its footer is cut off below
    spec = ExportSpec.of(export)
    with open(part, "a+b") as f:
        f.truncate(export.size_bytes)  # what a killed step wrote past the committed size
        last = _last_line(f, export.size_bytes)
        after = json.loads(last) if last else None
        f.seek(0, os.SEEK_END)
        memories, finished = 0, True
        for written, line in enumerate(export_lines(spec, after=after), start=1):
            f.write(line_bytes(line))
            memories += line["type"] == "memory"
            if written >= settings.EXPORT_CHUNK_LINES:
                finished = False
                break
        f.flush()
        os.fsync(f.fileno())
        size = f.tell()
    export.state = TransferState.RUNNING
    export.done += memories
    export.size_bytes = size
    if not finished:
        export.save(update_fields=["state", "done", "size_bytes"])
        return True
    _finish(export, part, final)
    return False


def _finish(export: DataExport, part: Path, final: Path) -> None:
    digest = Digest()
    with open(part, "rb") as f:
        for data in f:
            digest.add_raw(data)
    footer = digest.footer()
    whole = digest.hash.copy()
    whole.update(footer)
    with open(part, "ab") as f:
        f.write(footer)
        f.flush()
        os.fsync(f.fileno())
    part.rename(final)
    now = timezone.now()
    export.size_bytes += len(footer)
    export.sha256 = whole.hexdigest()
    export.state = TransferState.DONE
    export.finished_at = now
    export.expires_at = now + timedelta(seconds=settings.EXPORT_LINK_SECONDS)
    export.save(update_fields=["state", "done", "size_bytes", "sha256", "finished_at", "expires_at"])
    transfer_finished_event_record(kind="export", transfer=export)
    audit_record(
        action="export.done",
        target=export,
        details={
            "memories": export.done,
            "lines": digest.lines + 1,
            "size_bytes": export.size_bytes,
            "sha256": export.sha256,
        },
    )
