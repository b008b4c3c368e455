"""What surrounds a set of memories: tags, entities, sequence neighbours, archivist relations."""

from __future__ import annotations

import uuid
from collections import Counter, defaultdict
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from django.db.models import IntegerField, Q
from django.db.models.expressions import RawSQL

from memory.models import LinkKind, MemoryEntity, MemoryLink, MemoryTag, Tag


@dataclass
class Surroundings:
    tags: dict[uuid.UUID, list[str]] = field(default_factory=dict)
    tag_ids: dict[uuid.UUID, list[int]] = field(default_factory=dict)
    entities: dict[uuid.UUID, list[tuple[int, str, str]]] = field(default_factory=dict)
    prev: dict[uuid.UUID, str | None] = field(default_factory=dict)
    next: dict[uuid.UUID, str | None] = field(default_factory=dict)
    relations: dict[uuid.UUID, list[dict[str, Any]]] = field(default_factory=dict)


def surroundings(ids: Sequence[uuid.UUID], *, visible_ids: set[uuid.UUID] | None = None) -> Surroundings:
    """Four queries for any number of memories (no N+1). Links to invisible memories are dropped."""
    out = Surroundings()
    wanted = list(ids)
    tags: dict[uuid.UUID, list[str]] = defaultdict(list)
    tag_ids: dict[uuid.UUID, list[int]] = defaultdict(list)
    for memory_id, tag_id, path in MemoryTag.objects.filter(memory_id__in=wanted).values_list(
        "memory_id", "tag_id", "tag__path"
    ):
        tags[memory_id].append(path)
        tag_ids[memory_id].append(tag_id)
    out.tags = {k: sorted(v) for k, v in tags.items()}
    out.tag_ids = dict(tag_ids)
    entities: dict[uuid.UUID, list[tuple[int, str, str]]] = defaultdict(list)
    for memory_id, entity_id, name, type_ in MemoryEntity.objects.filter(memory_id__in=wanted).values_list(
        "memory_id", "entity_id", "entity__name", "entity__type"
    ):
        entities[memory_id].append((entity_id, name, type_))
    out.entities = dict(entities)
    relations: dict[uuid.UUID, list[dict[str, Any]]] = defaultdict(list)
    links = MemoryLink.objects.filter(Q(src_id__in=wanted) | Q(dst_id__in=wanted), revoked_at__isnull=True)
    for link in links.values("kind", "src_id", "dst_id", "score", "relation"):
        src, dst = link["src_id"], link["dst_id"]
        for here, there, direction in ((src, dst, "out"), (dst, src, "in")):
            if here not in wanted or (visible_ids is not None and there not in visible_ids):
                continue
            if link["kind"] == LinkKind.NEXT:
                if direction == "out":
                    out.next.setdefault(here, str(there))
                else:
                    out.prev.setdefault(here, str(there))
            relations[here].append(
                {
                    "type": link["kind"],
                    "id": str(there),
                    "direction": direction,
                    "score": link["score"],
                    "relation": link["relation"] or None,
                }
            )
    out.relations = dict(relations)
    return out


def _ancestor_paths(path: str) -> list[str]:
    """A slash path and its groups': "ops/deploy/ci" -> ["ops", "ops/deploy", "ops/deploy/ci"]."""
    parts = path.split("/")
    return ["/".join(parts[: i + 1]) for i in range(len(parts))]


def shared_categories(tag_lists: Sequence[list[int]]) -> list[dict[str, object]]:
    """Tags (and their groups) carried by two or more results, with how many memories carry each.

    Three queries whatever the number of results (none when no result has a tag): the results' tags,
    their groups by path, and the totals.
    """
    wanted = {tag_id for ids in tag_lists for tag_id in ids}
    if not wanted:
        return []
    paths = dict(Tag.objects.filter(pk__in=wanted).values_list("pk", "path"))
    groups = dict(
        Tag.objects.filter(
            path__in={a for path in paths.values() for a in _ancestor_paths(path)}
        ).values_list("path", "pk")
    )
    counts: Counter[int] = Counter()
    for ids in tag_lists:
        expanded = {
            groups[a]
            for tag_id in ids
            if tag_id in paths
            for a in _ancestor_paths(paths[tag_id])
            if a in groups
        }
        counts.update(expanded)
    shared = [tag_id for tag_id, n in counts.items() if n >= 2]
    if not shared:
        return []
    # A group's total counts the live memories under any of its tags, in the same query as the tags.
    tags = {
        t.pk: t
        for t in Tag.objects.filter(pk__in=shared).annotate(
            total=RawSQL(
                "SELECT count(DISTINCT mt.memory_id) FROM memory_memorytag mt"
                " JOIN memory_tag t2 ON t2.id = mt.tag_id JOIN memory_memory m ON m.id = mt.memory_id"
                " WHERE (t2.path = memory_tag.path OR left(t2.path, length(memory_tag.path) + 1) = memory_tag.path || '/')"
                " AND m.forgotten_at IS NULL",
                [],
                output_field=IntegerField(),
            )
        )
    }
    return sorted(
        (
            {
                "id": tag_id,
                "name": tags[tag_id].name,
                "path": tags[tag_id].path,
                "count": counts[tag_id],
                "total": tags[tag_id].total,  # type: ignore[attr-defined]
            }
            for tag_id in shared
        ),
        key=lambda c: (-int(c["count"]), str(c["path"])),  # type: ignore[call-overload]
    )
