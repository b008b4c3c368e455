"""Readers of the sources an import takes: each turns a file or a folder into a stream of items.

    Mnemos export (JSONL, docs/export-format.md)  ──┐
    Mem0 export (JSON: a list, or {"results": [...]}) ──┼─► Item(line, key, fields) | Bad(line, reason)
    a folder (or .zip) of Markdown / text files  ──┘

An ``Item``'s ``fields`` are plain JSON values named as ``MemoryDraft``'s fields (timestamps as ISO
8601 text), so that the importer can store the stream once (``items.jsonl``, one item a line) and
read it back a chunk at a time. ``key`` is the source's own id of the item: the import key is
``"<format>:<key>"`` (``memory.ImportedRecord``), what makes a re-run create nothing new. ``line``
is where the item starts in the source (a Markdown item's line within its file, named by ``source``).

A source that cannot be read at all (not JSON, a zip with an unsafe path) is refused whole with
``Unprocessable``; a bad item is a ``Bad`` and the rest is read. The mappings are in docs/lifecycle.md.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import zipfile
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from core.errors import Unprocessable
from memory.models import Kind, Layer, Visibility
from memory.text import normal_tag, tag_rejection

MAX_CONTENT = 100_000  # remember's bound, the larger of the dialects'
MAX_SUMMARY = 500
TEXT_SUFFIXES = (".md", ".markdown", ".txt", ".text")
# An uploaded zip is refused beyond these (a zip bomb, a runaway folder).
ZIP_MAX_FILES = 100_000
ZIP_MAX_BYTES = 1024**3


@dataclass
class Item:
    line: int
    key: str
    fields: dict[str, Any]
    source: str = ""
    # Mnemos exports only: what the write path does not take and the importer restores after it
    # (status, forgotten state, fact_version, supersedes/derived_from/task by their exported ids).
    restore: dict[str, Any] = field(default_factory=dict)


@dataclass
class Bad:
    line: int
    reason: str
    source: str = ""


@dataclass
class Record:
    """A Mnemos export's line that is not a memory (a task, a link), applied by the importer."""

    line: int
    type: str
    data: dict[str, Any]


Read = Item | Bad | Record


# -- shared checks -----------------------------------------------------------------------------------


def iso_time(value: Any, name: str) -> str | None:
    """An ISO 8601 time (naive taken as UTC) as text, or None for null/empty; else a reason."""
    if value is None or value == "":
        return None
    if not isinstance(value, str):
        raise ValueError(f"{name}: an ISO 8601 time is required, got {type(value).__name__}")
    try:
        parsed = datetime.fromisoformat(value.strip().replace("Z", "+00:00"))
    except ValueError:
        raise ValueError(f"{name}: not an ISO 8601 time: {value[:40]!r}") from None
    return (parsed if parsed.tzinfo else parsed.replace(tzinfo=UTC)).isoformat()


def summary_of(text: str) -> str:
    """The first non-empty line (a heading's marks dropped), at most MAX_SUMMARY characters."""
    for raw in text.splitlines():
        line = raw.strip().lstrip("#").strip()
        if line:
            return line[:MAX_SUMMARY]
    return text.strip()[:MAX_SUMMARY]


def content_check(content: Any) -> str:
    if not isinstance(content, str) or not content.strip():
        raise ValueError("content: a non-empty text is required")
    if "\x00" in content:
        raise ValueError("content: NUL characters are not allowed")
    if len(content) > MAX_CONTENT:
        raise ValueError(f"content exceeds {MAX_CONTENT} characters")
    return content


def tags_kept(paths: list[str]) -> list[str]:
    """The tags that pass the tag rules (memory.text), normalised, each once."""
    kept: list[str] = []
    for raw in paths:
        tag = normal_tag(raw)
        if tag and tag_rejection(tag) is None and tag not in kept:
            kept.append(tag)
    return kept


def choice(value: Any, name: str, allowed: list[str], default: str) -> str:
    if value is None or value == "":
        return default
    if value not in allowed:
        raise ValueError(f"{name}: {value!r} is not one of {', '.join(allowed)}")
    return str(value)


# -- Mem0 --------------------------------------------------------------------------------------------

_SPACE = re.compile(r"[ \t\n\r]*")
MEM0_ENTITY_TYPES = (("user_id", "person"), ("agent_id", "agent"))


class _Lines:
    """Line numbers of offsets into one text, read forwards."""

    def __init__(self, text: str) -> None:
        self.text, self.offset, self.line = text, 0, 1

    def at(self, offset: int) -> int:
        self.line += self.text.count("\n", self.offset, offset)
        self.offset = offset
        return self.line


def _json_error(exc: json.JSONDecodeError) -> Unprocessable:
    return Unprocessable(
        f"not a Mem0 export: invalid JSON at line {exc.lineno} column {exc.colno}: {exc.msg}",
        code="import_unreadable",
    )


def _array_values(text: str, start: int, lines: _Lines) -> Iterator[tuple[int, Any]]:
    """Each value of the JSON array opening at ``start``, with its line; the offset after the array last."""
    decoder = json.JSONDecoder()
    pos = _SPACE.match(text, start + 1).end()  # type: ignore[union-attr]
    if text.startswith("]", pos):
        return
    while True:
        try:
            value, end = decoder.raw_decode(text, pos)
        except json.JSONDecodeError as exc:
            raise _json_error(exc) from None
        yield lines.at(pos), value
        pos = _SPACE.match(text, end).end()  # type: ignore[union-attr]
        if text.startswith("]", pos):
            return
        if not text.startswith(",", pos):
            raise _json_error(json.JSONDecodeError("expected ',' or ']'", text, pos))
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]


def _mem0_values(text: str) -> Iterator[tuple[int, Any]]:
    """The memories of a Mem0 export with their lines: a JSON list, an object whose ``results`` is
    the list (what ``get_all`` returns), or JSON Lines of memory objects."""
    lines = _Lines(text)
    pos = _SPACE.match(text).end()  # type: ignore[union-attr]
    if text.startswith("[", pos):
        yield from _array_values(text, pos, lines)
        return
    if not text.startswith("{", pos):
        raise Unprocessable(
            'not a Mem0 export: a JSON list of memories or {"results": [...]} is expected',
            code="import_unreadable",
        )
    try:
        whole = json.loads(text)
    except json.JSONDecodeError:
        whole = None
    if isinstance(whole, dict) and "results" in whole:
        if not isinstance(whole["results"], list):
            raise Unprocessable('not a Mem0 export: "results" is not a list', code="import_unreadable")
        # Find the array in the text itself, for its items' lines: the top-level keys in order.
        decoder = json.JSONDecoder()
        pos = _SPACE.match(text, pos + 1).end()  # type: ignore[union-attr]
        while True:
            name, end = decoder.raw_decode(text, pos)
            pos = _SPACE.match(text, _SPACE.match(text, end).end() + 1).end()  # type: ignore[union-attr]
            if name == "results":
                yield from _array_values(text, pos, lines)
                return
            _, end = decoder.raw_decode(text, pos)
            pos = _SPACE.match(text, _SPACE.match(text, end).end() + 1).end()  # type: ignore[union-attr]
    # JSON Lines: one memory object a line, a bad line reported alone.
    for number, raw in enumerate(text.splitlines(), start=1):
        if not raw.strip():
            continue
        try:
            yield number, json.loads(raw)
        except json.JSONDecodeError as exc:
            yield number, _BadJson(f"invalid JSON: {exc.msg} (column {exc.colno})")


@dataclass
class _BadJson:
    reason: str


def mem0_item(value: Any) -> tuple[str, dict[str, Any]]:
    """One Mem0 memory as (its id, the draft's fields); a ValueError says why it cannot be."""
    if isinstance(value, _BadJson):
        raise ValueError(value.reason)
    if not isinstance(value, dict):
        raise ValueError(f"a memory object is expected, got {type(value).__name__}")
    memory_id = value.get("id")
    if not isinstance(memory_id, (str, int)) or isinstance(memory_id, bool) or not str(memory_id).strip():
        raise ValueError("id: required (it is the import key that makes a re-run create nothing new)")
    memory_id = str(memory_id).strip()
    if len(memory_id) > 250:
        raise ValueError("id: longer than 250 characters")
    content = content_check(value.get("memory", value.get("text")))
    metadata = value.get("metadata")
    if metadata is not None and not isinstance(metadata, dict):
        raise ValueError("metadata: an object is expected")
    categories = value.get("categories") or []
    if not isinstance(categories, list) or not all(isinstance(c, str) for c in categories):
        raise ValueError("categories: a list of texts is expected")
    entities = []
    for name, type_ in MEM0_ENTITY_TYPES:
        who = value.get(name)
        if who is not None and not isinstance(who, (str, int)):
            raise ValueError(f"{name}: a text is expected")
        if who is not None and str(who).strip():
            entities.append([str(who).strip()[:300], type_])
    run_id = value.get("run_id")
    if run_id is not None and not isinstance(run_id, (str, int)):
        raise ValueError("run_id: a text is expected")
    created_at = iso_time(value.get("created_at"), "created_at")
    updated_at = iso_time(value.get("updated_at"), "updated_at")
    content_hash = value.get("hash")
    origin: dict[str, Any] = {"provider": "mem0", "address": memory_id}
    for name in ("user_id", "agent_id", "run_id", "updated_at"):
        if value.get(name) not in (None, ""):
            origin[name] = str(value[name])
    if metadata:
        origin["metadata"] = metadata
    if categories:
        origin["categories"] = categories
    return memory_id, {
        "content": content,
        "summary": summary_of(content),
        "kind": Kind.PREFERENCE if any("preference" in c.lower() for c in categories) else Kind.FACT,
        "source": "mem0",
        "source_id": memory_id,
        "source_hash": str(content_hash)[:1000] if content_hash else None,
        "source_revision": updated_at,
        "source_event_id": f"mem0-run:{run_id}" if run_id not in (None, "") else None,
        "origin": origin,
        "timestamp": created_at,
        "created_at": created_at,
        "entities": entities,
        "tags": tags_kept([f"mem0/{c}" for c in categories]),
    }


def read_mem0(path: Path) -> Iterator[Item | Bad]:
    try:
        text = path.read_text(encoding="utf-8-sig")
    except UnicodeDecodeError as exc:
        raise Unprocessable(
            f"not a Mem0 export: not UTF-8 text ({exc.reason})", code="import_unreadable"
        ) from None
    for line, value in _mem0_values(text):
        try:
            key, fields = mem0_item(value)
        except ValueError as exc:
            yield Bad(line=line, reason=str(exc))
        else:
            yield Item(line=line, key=key, fields=fields)


# -- Markdown and text files -------------------------------------------------------------------------

_HEADING = re.compile(r"^(#{1,6})[ \t]+(.+?)[ \t#]*$")
_FENCE = re.compile(r"^\s*(```|~~~)")


def heading_anchor(text: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces as hyphens."""
    return re.sub(r"[^\w\- ]", "", text.strip().lower()).replace(" ", "-")


def _sections(text: str) -> Iterator[tuple[int, str | None, str]]:
    """(line, heading or None for the text before the first, the section's text) of one file;
    a heading inside a fenced code block does not start a section."""
    start: int = 1
    heading: str | None = None
    body: list[str] = []
    fenced = False
    for number, line in enumerate(text.splitlines(), start=1):
        if _FENCE.match(line):
            fenced = not fenced
        match = None if fenced else _HEADING.match(line)
        if match:
            yield start, heading, "\n".join(body)
            start, heading, body = number, match.group(2).strip(), []
        body.append(line)
    yield start, heading, "\n".join(body)


def markdown_files(root: Path) -> list[str]:
    """The text files under ``root``, as sorted relative POSIX paths (hidden files and folders skipped)."""
    found = []
    for folder, dirs, files in os.walk(root):
        dirs[:] = sorted(d for d in dirs if not d.startswith("."))
        for name in files:
            if name.startswith(".") or not name.lower().endswith(TEXT_SUFFIXES):
                continue
            found.append(Path(folder, name).relative_to(root).as_posix())
    return sorted(found)


def _file_fields(rel: str, text: str, modified: str) -> dict[str, Any]:
    folder = str(PurePosixPath(rel).parent)
    return {
        "content": content_check(text.strip()),
        "summary": summary_of(text),
        "source": "import",
        "source_id": rel,
        "source_hash": hashlib.sha256(text.encode("utf-8")).hexdigest(),
        "origin": {"provider": "markdown", "address": rel},
        "timestamp": modified,
        "tags": tags_kept([folder]) if folder != "." else [],
    }


def read_markdown(root: Path, *, split_headings: bool = False) -> Iterator[Item | Bad]:
    """One memory per file, or per heading (``split_headings``: the text before the first heading is
    one more; a heading with nothing under it is none). ``source_id`` is the path, plus ``#anchor``."""
    for rel in markdown_files(root):
        file = root / rel
        try:
            text = file.read_text(encoding="utf-8-sig")
        except UnicodeDecodeError:
            yield Bad(line=1, reason="not UTF-8 text", source=rel)
            continue
        modified = datetime.fromtimestamp(file.stat().st_mtime, tz=UTC).isoformat()
        if not text.strip():
            yield Bad(line=1, reason="empty file", source=rel)
            continue
        if not split_headings:
            try:
                yield Item(line=1, key=rel, fields=_file_fields(rel, text, modified), source=rel)
            except ValueError as exc:
                yield Bad(line=1, reason=f"{exc}: split the file by headings", source=rel)
            continue
        anchors: dict[str, int] = {}
        for line, heading, section in _sections(text):
            body = section.split("\n", 1)[1] if heading is not None and "\n" in section else ""
            if not (body if heading is not None else section).strip():
                continue
            key = rel
            if heading is not None:
                anchor = heading_anchor(heading)
                seen = anchors.get(anchor, 0)
                anchors[anchor] = seen + 1
                key = f"{rel}#{anchor}" + (f"-{seen}" if seen else "")
            try:
                fields = _file_fields(rel, section, modified)
            except ValueError as exc:
                yield Bad(line=line, reason=str(exc), source=rel)
                continue
            fields["source_id"] = key
            fields["origin"]["address"] = key
            yield Item(line=line, key=key, fields=fields, source=rel)


def zip_extract(archive: Path, destination: Path) -> None:
    """Unpack an uploaded zip of text files into ``destination``; refused whole when an entry's path
    leaves it, or when it holds more than ZIP_MAX_FILES files or ZIP_MAX_BYTES once unpacked."""
    try:
        with zipfile.ZipFile(archive) as bundle:
            entries = [e for e in bundle.infolist() if not e.is_dir()]
            if len(entries) > ZIP_MAX_FILES:
                raise Unprocessable(
                    f"the zip holds more than {ZIP_MAX_FILES} files", code="import_unreadable"
                )
            if sum(e.file_size for e in entries) > ZIP_MAX_BYTES:
                raise Unprocessable(
                    f"the zip unpacks to more than {ZIP_MAX_BYTES // 1024**2} MB", code="import_unreadable"
                )
            root = destination.resolve()
            for entry in entries:
                target = (destination / entry.filename).resolve()
                if entry.filename.startswith(("/", "\\")) or not target.is_relative_to(root):
                    raise Unprocessable(
                        f"the zip's entry {entry.filename[:200]!r} leaves its folder",
                        code="import_unreadable",
                    )
                if (entry.external_attr >> 16) & 0o170000 == 0o120000:
                    continue  # a symbolic link: never followed
                target.parent.mkdir(parents=True, exist_ok=True)
                with bundle.open(entry) as src, target.open("wb") as out:
                    out.write(src.read())
                stamp = datetime(*entry.date_time, tzinfo=UTC).timestamp()
                os.utime(target, (stamp, stamp))
    except zipfile.BadZipFile as exc:
        raise Unprocessable(f"not a zip file: {exc}", code="import_unreadable") from None


# -- Mnemos exports ----------------------------------------------------------------------------------

LAYERS = list(Layer.values)
KINDS = list(Kind.values)
VISIBILITIES = list(Visibility.values)
EXPORT_FORMAT = "mnemos-export"
EXPORT_VERSIONS = (1,)
# A memory line's fields the write path takes, as they are (MemoryDraft's names).
_DRAFT_FIELDS = (
    "summary",
    "scope",
    "source",
    "source_id",
    "source_hash",
    "source_revision",
    "origin",
    "source_event_id",
    "source_event_revision",
    "fact_key",
)
# What the importer restores after the write path: the stored values a save would compute, and the
# references by exported id or by name (docs/export-format.md, "Round trip").
_RESTORED = (
    "id",
    "author",
    "team",
    "role",
    "task",
    "fact_version",
    "status",
    "derived_from",
    "supersedes",
    "source_forgotten",
    "forgotten_at",
    "redactions",
    "guard_version",
    "embedding_model",
    "embedding_dim",
    "embedding",
)


def _unreadable(reason: str) -> Unprocessable:
    return Unprocessable(f"not a complete Mnemos export: {reason}", code="import_unreadable")


def mnemos_memory(
    value: dict[str, Any], entity_types: dict[str, str]
) -> tuple[str, dict[str, Any], dict[str, Any]]:
    """A memory line as (its exported id, the draft's fields, what is restored after the save)."""
    memory_id = value.get("id")
    if not isinstance(memory_id, str) or not memory_id:
        raise ValueError("id: required")
    fields: dict[str, Any] = {name: value.get(name) for name in _DRAFT_FIELDS}
    for name in _DRAFT_FIELDS:
        if name != "origin" and fields[name] is not None and not isinstance(fields[name], str):
            raise ValueError(f"{name}: a text or null is expected")
    if fields["origin"] is not None and not isinstance(fields["origin"], dict):
        raise ValueError("origin: an object or null is expected")
    fields["content"] = content_check(value.get("content"))
    fields["summary"] = (fields["summary"] or "")[:MAX_SUMMARY]
    fields["scope"] = fields["scope"] or "shared"
    fields["source"] = fields["source"] or "owner"
    fields["kind"] = choice(value.get("kind"), "kind", KINDS, Kind.FACT)
    fields["layer"] = choice(value.get("layer"), "layer", LAYERS, Layer.PROJECT)
    fields["visibility"] = choice(value.get("visibility"), "visibility", VISIBILITIES, Visibility.PROJECT)
    confidence = value.get("confidence", 0.5)
    if isinstance(confidence, bool) or not isinstance(confidence, (int, float)) or not 0 <= confidence <= 1:
        raise ValueError("confidence: a number from 0 to 1 is expected")
    fields["confidence"] = float(confidence)
    fields["timestamp"] = iso_time(value.get("timestamp"), "timestamp")
    fields["created_at"] = iso_time(value.get("created_at"), "created_at")
    workspace = value.get("workspace")
    fields["workspace"] = workspace if isinstance(workspace, str) and workspace.strip() else None
    tags, names = value.get("tags") or [], value.get("entities") or []
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise ValueError("tags: a list of paths is expected")
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise ValueError("entities: a list of names is expected")
    fields["tags"] = tags
    fields["entities"] = [[name, entity_types.get(name, "")] for name in names]
    restore = {name: value.get(name) for name in _RESTORED if name in value}
    restore["forgotten_at"] = iso_time(value.get("forgotten_at"), "forgotten_at")
    derived = restore.get("derived_from") or []
    if not isinstance(derived, list) or not all(isinstance(d, str) for d in derived):
        raise ValueError("derived_from: a list of ids is expected")
    return memory_id, fields, restore


def _mnemos_record(kind: str, value: dict[str, Any]) -> dict[str, Any]:
    """A non-memory line checked for what the importer needs of it."""
    if kind == "entity":
        if not isinstance(value.get("name"), str) or not value["name"].strip():
            raise ValueError("entity: a name is required")
        iso_time(value.get("created_at"), "created_at")
    elif kind == "tag":
        if not isinstance(value.get("path"), str) or not value["path"].strip():
            raise ValueError("tag: a path is required")
    elif kind == "task":
        if not isinstance(value.get("id"), str) or not isinstance(value.get("name"), str):
            raise ValueError("task: an id and a name are required")
        iso_time(value.get("created_at"), "created_at")
    elif kind == "link":
        if not all(isinstance(value.get(k), str) for k in ("kind", "src", "dst")):
            raise ValueError("link: kind, src and dst are required")
        iso_time(value.get("asserted_at"), "asserted_at")
        iso_time(value.get("revoked_at"), "revoked_at")
    return value


def read_mnemos(path: Path) -> Iterator[Read]:
    """A Mnemos export, line by line: refused whole without its header first or its footer last, or
    when the footer's count or SHA-256 disagrees (an interrupted download); a bad line alone is a Bad."""
    digest = hashlib.sha256()
    entity_types: dict[str, str] = {}
    number = 0
    footer: dict[str, Any] | None = None
    with path.open("rb") as lines:
        for number, raw in enumerate(lines, start=1):
            if footer is not None:
                raise _unreadable(f"line {number} follows the footer")
            try:
                value = json.loads(raw)
            except (json.JSONDecodeError, UnicodeDecodeError) as exc:
                if number == 1:
                    raise _unreadable("the first line is not JSON") from None
                digest.update(raw)
                yield Bad(line=number, reason=f"invalid JSON: {exc}")
                continue
            kind = value.get("type") if isinstance(value, dict) else None
            if kind == "footer":
                footer = value
                continue
            digest.update(raw)
            if number == 1:
                if kind != "header" or value.get("format") != EXPORT_FORMAT:
                    raise _unreadable(f'the first line is not a header of format "{EXPORT_FORMAT}"')
                if value.get("version") not in EXPORT_VERSIONS:
                    raise _unreadable(f"version {value.get('version')!r} is not one this Mnemos reads (1)")
                yield Record(line=number, type="header", data=value)
                continue
            try:
                if kind == "memory":
                    key, fields, restore = mnemos_memory(value, entity_types)
                    yield Item(line=number, key=key, fields=fields, restore=restore)
                    continue
                if kind not in ("entity", "tag", "task", "link"):
                    raise ValueError(f"unknown line type {kind!r}")
                record = _mnemos_record(kind, value)
                if kind == "entity":
                    entity_types[record["name"]] = str(record.get("entity_type") or "")
                yield Record(line=number, type=kind, data=record)
            except ValueError as exc:
                yield Bad(line=number, reason=str(exc))
    if footer is None:
        raise _unreadable("no footer: the file is cut short")
    if footer.get("lines") != number - 1 or footer.get("sha256") != digest.hexdigest():
        raise _unreadable("the footer's line count or SHA-256 disagrees with the lines before it")


def items_read(*, format: str, path: Path, split_headings: bool = False) -> Iterator[Read]:
    """The items of a source of ``format`` (memory.models.ImportFormat's values)."""
    if format == "mem0":
        return read_mem0(path)
    if format == "markdown":
        return read_markdown(path, split_headings=split_headings)
    if format == "mnemos":
        return read_mnemos(path)
    raise Unprocessable(f"unknown import format {format!r}: mnemos, mem0 or markdown", code="import_format")
